/**
 * The Gemini family's conversation: gemini-cli's history as `contents` (a `Content[]` already), at
 * the top of the body for the Gemini API and Vertex, inside `request` for Code Assist, which wraps
 * it as `{ model, project, user_prompt_id, request: { contents, ..., session_id } }`. `countTokens`
 * bodies may nest the request once more (`generateContentRequest`).
 */
import { isReadBackTool, type Content } from '@toolmask/core';
import { isPlainObject } from '@toolmask/core/utils';
import { stringAt } from '../../body/json-layout.js';
import type { BodyCodec, WholeBody } from '../../body/body-codec.js';
import type { ProtocolKind } from '../protocol.js';

type JsonObject = Record<string, unknown>;

/** The object holding `contents` in a Gemini-style body. */
function contentsHolder(body: JsonObject, kind: ProtocolKind): JsonObject | undefined {
  const candidates: unknown[] =
    kind === 'code-assist' ? [body['request'], body] : [body, body['generateContentRequest']];
  for (const candidate of candidates) {
    if (isPlainObject(candidate) && Array.isArray(candidate['contents'])) return candidate;
    if (isPlainObject(candidate) && isPlainObject(candidate['generateContentRequest'])) {
      const nested = candidate['generateContentRequest'];
      if (Array.isArray(nested['contents'])) return nested;
    }
  }
  return undefined;
}

/** The name of the declared read-back tool (an MCP tool, prefixed by the client: `isReadBackTool`). */
function declaredReadTool(tools: unknown): string | undefined {
  for (const tool of Array.isArray(tools) ? tools : []) {
    const declarations = isPlainObject(tool) ? tool['functionDeclarations'] : undefined;
    for (const declaration of Array.isArray(declarations) ? declarations : []) {
      const name = isPlainObject(declaration) ? declaration['name'] : undefined;
      if (typeof name === 'string' && isReadBackTool(name)) return name;
    }
  }
  return undefined;
}

function readWhole(kind: ProtocolKind, body: unknown, routeModel: string): WholeBody | undefined {
  if (!isPlainObject(body)) return undefined;
  const holder = contentsHolder(body, kind);
  if (!holder) return undefined;
  const contents = holder['contents'] as Content[];
  if (contents.length === 0) return undefined;
  const request = isPlainObject(body['request']) ? body['request'] : undefined;
  const bodyModel = typeof body['model'] === 'string' ? body['model'] : undefined;
  const readToolName = declaredReadTool(holder['tools'] ?? request?.['tools'] ?? body['tools']);
  return {
    ...(readToolName ? { readToolName } : {}),
    contents,
    head: contents[0],
    model: routeModel || bodyModel || '',
    unmaskable: 0,
    write(sent) {
      holder['contents'] = sent;
      return JSON.stringify(body);
    },
  };
}

/** Gemini's `contents` elements are Contents already: nothing to convert either way. */
export function geminiCodec(kind: ProtocolKind): BodyCodec {
  return {
    arrayPath: kind === 'code-assist' ? ['request', 'contents'] : ['contents'],
    headElements: 1,
    ...(kind === 'code-assist'
      ? {
          // `<session id>` headless, `<session id>########<n>` interactive: the session is the start.
          session: async (raw: Buffer) =>
            (await stringAt(raw, ['user_prompt_id']))?.split('#')[0] || undefined,
        }
      : {}),
    createState: () => undefined,
    toContents: (elements) => ({
      contents: elements as Content[],
      unmaskable: elements.map(() => 0),
    }),
    toElement: (sent) => sent,
    describe(outside, routeModel) {
      const body = isPlainObject(outside) ? outside : {};
      const request = isPlainObject(body['request']) ? body['request'] : undefined;
      const holder = kind === 'code-assist' ? (request ?? {}) : body;
      const readToolName = declaredReadTool(holder['tools']);
      return {
        model: routeModel || (typeof body['model'] === 'string' ? body['model'] : ''),
        ...(readToolName ? { readToolName } : {}),
      };
    },
    readWhole: (body, routeModel) => readWhole(kind, body, routeModel),
  };
}
