/**
 * Checks on what the fake server received: the function responses of a request, whether they are
 * masked snippets, and whether every response still follows its call.
 */
import * as fs from 'node:fs';
import type { Content } from '@google/gemini-cli-core';
import type { RecordedRequest } from './fake-gemini-server.js';

export interface SentResponse {
  contentIndex: number;
  partIndex: number;
  id: string;
  name: string;
  response: Record<string, unknown>;
  /** The `output` string, when the response is `{ output: string }`. */
  output?: string;
  /** The absolute file path of a masked snippet, else undefined. */
  maskedFile?: string;
}

const SNIPPET =
  /^<tool_output_masked [^\n]*\bfile="([^"\n]+)"[^\n]*>\n[\s\S]*\n<\/tool_output_masked>$/;

function unescapeAttribute(value: string): string {
  return value
    .replace(/&quot;/g, '"')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
}

/** The file path of a toolmask snippet (checked independently of the service's own parser). */
export function maskedFileOf(output: unknown): string | undefined {
  if (typeof output !== 'string') return undefined;
  const match = SNIPPET.exec(output);
  return match?.[1] ? unescapeAttribute(match[1]) : undefined;
}

export function sentResponses(contents: readonly Content[]): SentResponse[] {
  const found: SentResponse[] = [];
  contents.forEach((content, contentIndex) => {
    (content.parts ?? []).forEach((part, partIndex) => {
      const fr = part.functionResponse;
      if (!fr) return;
      const response = (fr.response ?? {}) as Record<string, unknown>;
      const output = typeof response['output'] === 'string' ? response['output'] : undefined;
      const keys = Object.keys(response);
      found.push({
        contentIndex,
        partIndex,
        id: fr.id ?? '',
        name: fr.name ?? '',
        response,
        output,
        maskedFile: keys.length === 1 ? maskedFileOf(output) : undefined,
      });
    });
  });
  return found;
}

export function contentsOf(request: RecordedRequest): Content[] {
  return request.body.contents ?? [];
}

/**
 * Problems with call/response pairing: each model turn's calls must be answered, with the same
 * ids in the same order, by the very next (user) entry, and every response must answer a call.
 * The last entry may be a model turn whose calls are not answered yet.
 */
export function pairingProblems(contents: readonly Content[]): string[] {
  const problems: string[] = [];
  contents.forEach((content, index) => {
    const callIds = (content.parts ?? [])
      .filter((part) => part.functionCall)
      .map((part) => part.functionCall?.id ?? '');
    const responseIds = (content.parts ?? [])
      .filter((part) => part.functionResponse)
      .map((part) => part.functionResponse?.id ?? '');
    if (responseIds.length > 0) {
      const previous = contents[index - 1];
      const previousCalls = (previous?.parts ?? [])
        .filter((part) => part.functionCall)
        .map((part) => part.functionCall?.id ?? '');
      if (previous?.role !== 'model' || previousCalls.join('|') !== responseIds.join('|')) {
        problems.push(
          `entry ${index}: responses [${responseIds.join(', ')}] do not follow calls [${previousCalls.join(', ')}]`,
        );
      }
    }
    if (callIds.length > 0 && index < contents.length - 1) {
      const next = contents[index + 1];
      const nextResponses = (next?.parts ?? [])
        .filter((part) => part.functionResponse)
        .map((part) => part.functionResponse?.id ?? '');
      if (next?.role !== 'user' || nextResponses.join('|') !== callIds.join('|')) {
        problems.push(
          `entry ${index}: calls [${callIds.join(', ')}] not answered by the next entry [${nextResponses.join(', ')}]`,
        );
      }
    }
  });
  return problems;
}

export function readFileText(file: string): string {
  return fs.readFileSync(file, 'utf8');
}

export interface SizeSummary {
  requests: number;
  firstBytes: number;
  lastBytes: number;
  maxBytes: number;
  totalBytes: number;
}

export function sizeSummary(requests: readonly RecordedRequest[]): SizeSummary {
  const sizes = requests.map((r) => r.bytes);
  return {
    requests: sizes.length,
    firstBytes: sizes[0] ?? 0,
    lastBytes: sizes.at(-1) ?? 0,
    maxBytes: Math.max(0, ...sizes),
    totalBytes: sizes.reduce((a, b) => a + b, 0),
  };
}
