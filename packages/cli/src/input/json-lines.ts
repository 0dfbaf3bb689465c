/**
 * Reads a JSON Lines file one line at a time, so a session file of hundreds of megabytes never
 * sits in memory whole: each record is handed to `onRecord` and may be dropped at once.
 *
 * A line that is not JSON is an error naming its number, except a cut-off last line (a crash
 * while appending), which is skipped and reported, as the agents themselves do on resume.
 */
import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { ToolmaskError } from '@toolmask/core/errors';
import { isPlainObject } from '@toolmask/core/utils';

/** A line that is not a JSON object (the reader names the file). Code `INVALID_JSON_LINES`. */
export class JsonLinesError extends ToolmaskError<'INVALID_JSON_LINES'> {
  constructor(message: string) {
    super('INVALID_JSON_LINES', message);
  }
}

export interface JsonLinesResult {
  /** Lines that held a record. */
  records: number;
  /** A warning when the last line was cut off and skipped. */
  tornLastLine?: string;
}

export async function readJsonLines(
  file: string,
  onRecord: (record: Record<string, unknown>, lineNumber: number) => void,
): Promise<JsonLinesResult> {
  const lines = createInterface({
    input: createReadStream(file, { encoding: 'utf8' }),
    crlfDelay: Infinity,
  });
  let records = 0;
  let lineNumber = 0;
  // A bad line is only an error when another line follows it (then it was not torn).
  let pendingBad: number | undefined;
  for await (const line of lines) {
    lineNumber++;
    if (!line.trim()) continue;
    if (pendingBad !== undefined) throw new JsonLinesError(`line ${pendingBad} is not valid JSON`);
    let record: unknown;
    try {
      record = JSON.parse(line);
    } catch {
      pendingBad = lineNumber;
      continue;
    }
    if (!isPlainObject(record)) throw new JsonLinesError(`line ${lineNumber} is not a JSON object`);
    records++;
    onRecord(record, lineNumber);
  }
  return pendingBad === undefined
    ? { records }
    : { records, tornLastLine: `line ${pendingBad} is cut off and was skipped` };
}
