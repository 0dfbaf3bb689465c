/**
 * How a read-back is refused or fails: one of a few stable codes (`ToolOutputReadErrorCode`) and
 * a message written for the model, which says what to do instead (most often: copy the path from
 * the snippet's `file` attribute), so the model can recover on its own. Arguments are quoted in
 * messages shortened to 200 characters.
 */
import { ToolmaskError } from '../utils/toolmaskError.js';

/**
 * Why a read-back was refused or failed: bad arguments (`INVALID_PARAMS`, `INVALID_PATTERN`), a
 * file it may not read (`OUTSIDE`, `OTHER_SESSION`, `NOT_A_FILE`), `NOT_FOUND`, `READ_FAILED`, or
 * `ABORTED`. The gemini-cli tool and the gateway's dashboard map them to their own error types.
 */
export type ToolOutputReadErrorCode =
  | 'INVALID_PARAMS'
  | 'INVALID_PATTERN'
  | 'OUTSIDE'
  | 'OTHER_SESSION'
  | 'NOT_FOUND'
  | 'NOT_A_FILE'
  | 'READ_FAILED'
  | 'ABORTED';

/** A refusal or failure, with a message written for the model and one of the codes above. */
export class ToolOutputReadError extends ToolmaskError<ToolOutputReadErrorCode> {
  constructor(code: ToolOutputReadErrorCode, message: string) {
    super(code, message);
  }
}

export function describeArgument(value: unknown): string {
  return typeof value === 'string' ? JSON.stringify(value.slice(0, 200)) : String(value);
}

/** What most refusals tell the model to do instead. */
export const USE_SNIPPET_PATH = `use the exact path from the snippet's file="..." attribute`;
