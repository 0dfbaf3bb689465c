/**
 * The Gemini API, Vertex AI and Code Assist fronts. All three carry gemini-cli's history as
 * `contents` (a `Content[]` already): at the top of the body for the Gemini API and Vertex, inside
 * `request` for Code Assist, which wraps it as `{ model, project, user_prompt_id, request: {
 * contents, ..., session_id } }` and its answers as `{ response: {...} }`. `countTokens` bodies
 * may nest the request once more (`generateContentRequest`).
 */
import type { Content } from '@toolmask/core';
import type { FrontKind } from '../usage/usage-record.js';
import type { ArrayCodec, Front, FrontRequest, UsageReport } from './front.js';
import { stringAt } from '../http/json-layout.js';

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject =>
  value !== null && typeof value === 'object' && !Array.isArray(value);

/** The object holding `contents` in a Gemini-style body. */
function contentsHolder(body: JsonObject, kind: FrontKind): JsonObject | undefined {
  const candidates: unknown[] =
    kind === 'code-assist' ? [body['request'], body] : [body, body['generateContentRequest']];
  for (const candidate of candidates) {
    if (isObject(candidate) && Array.isArray(candidate['contents'])) return candidate;
    if (isObject(candidate) && isObject(candidate['generateContentRequest'])) {
      const nested = candidate['generateContentRequest'] as JsonObject;
      if (Array.isArray(nested['contents'])) return nested;
    }
  }
  return undefined;
}

/** The name of a declared function ending in `read_tool_output` (an MCP tool, prefixed by the client). */
function declaredReadTool(tools: unknown): string | undefined {
  for (const tool of Array.isArray(tools) ? tools : []) {
    const declarations = isObject(tool) ? tool['functionDeclarations'] : undefined;
    for (const declaration of Array.isArray(declarations) ? declarations : []) {
      const name = isObject(declaration) ? declaration['name'] : undefined;
      if (typeof name === 'string' && name.endsWith('read_tool_output')) return name;
    }
  }
  return undefined;
}

function tokens(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

function googleError(status: number, code: string, message: string): string {
  const statusName =
    status === 400
      ? 'INVALID_ARGUMENT'
      : status === 401
        ? 'UNAUTHENTICATED'
        : status === 404
          ? 'NOT_FOUND'
          : status === 413
            ? 'INVALID_ARGUMENT'
            : status === 504
              ? 'DEADLINE_EXCEEDED'
              : 'UNAVAILABLE';
  return JSON.stringify({
    error: {
      code: status,
      message: `toolmask gateway: ${message}`,
      status: statusName,
      reason: code,
    },
  });
}

/** Gemini's `contents` elements are Contents already: nothing to convert either way. */
function geminiCodec(kind: FrontKind): ArrayCodec {
  return {
    arrayPath: kind === 'code-assist' ? ['request', 'contents'] : ['contents'],
    headElements: 1,
    ...(kind === 'code-assist'
      ? {
          // `<session id>` headless, `<session id>########<n>` interactive: the session is the start.
          session: (raw: Buffer) => stringAt(raw, ['user_prompt_id'])?.split('#')[0] || undefined,
        }
      : {}),
    createState: () => undefined,
    toContents: (elements) => ({
      contents: elements as Content[],
      unmaskable: elements.map(() => 0),
    }),
    toElement: (sent) => sent,
    describe(outside, routeModel) {
      const body = isObject(outside) ? outside : {};
      const request = isObject(body['request']) ? (body['request'] as JsonObject) : undefined;
      const holder = kind === 'code-assist' ? (request ?? {}) : body;
      const readToolName = declaredReadTool(holder['tools']);
      return {
        model: routeModel || (typeof body['model'] === 'string' ? (body['model'] as string) : ''),
        ...(readToolName ? { readToolName } : {}),
      };
    },
  };
}

function geminiFront(kind: FrontKind): Front {
  return {
    kind,
    codec: geminiCodec(kind),
    read(body, model): FrontRequest | undefined {
      if (!isObject(body)) return undefined;
      const holder = contentsHolder(body, kind);
      if (!holder) return undefined;
      const contents = holder['contents'] as Content[];
      if (contents.length === 0) return undefined;
      const request = isObject(body['request']) ? (body['request'] as JsonObject) : undefined;
      const bodyModel = typeof body['model'] === 'string' ? (body['model'] as string) : undefined;
      const readToolName = declaredReadTool(holder['tools'] ?? request?.['tools'] ?? body['tools']);
      return {
        ...(readToolName ? { readToolName } : {}),
        contents,
        head: contents[0],
        model: model || bodyModel || '',
        write(sent) {
          holder['contents'] = sent;
          return JSON.stringify(body);
        },
      };
    },
    usage(event): UsageReport | undefined {
      if (!isObject(event)) return undefined;
      const response =
        kind === 'code-assist' && isObject(event['response']) ? event['response'] : event;
      const metadata = (response as JsonObject)['usageMetadata'];
      if (!isObject(metadata)) return undefined;
      const report: UsageReport = {};
      const prompt = tokens(metadata['promptTokenCount']);
      if (prompt !== undefined) report.promptTokens = prompt;
      // Gemini omits the cached count when nothing was cached: then it is 0.
      if (prompt !== undefined)
        report.cachedTokens = tokens(metadata['cachedContentTokenCount']) ?? 0;
      const output = tokens(metadata['candidatesTokenCount']);
      if (output !== undefined) report.outputTokens = output;
      return report;
    },
    errorBody: googleError,
  };
}

export const GEMINI_API_FRONT = geminiFront('gemini-api');
export const VERTEX_FRONT = geminiFront('vertex');
export const CODE_ASSIST_FRONT = geminiFront('code-assist');
