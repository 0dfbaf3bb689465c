/**
 * Which requests are side requests (side-request.ts), from the body as each client sends them:
 * gemini-cli's `generateJson` (Gemini API and Code Assist) and qwen-code's (OpenAI, a required
 * `respond_in_schema` tool); main turns are not. The session signal is kept as a digest.
 */
import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import type { ModelExchange } from '../pipeline/model-exchange.js';
import type { ProtocolKind } from '../protocols/protocol.js';
import { PROTOCOLS } from '../protocols/protocols.js';
import { sideFacts } from './side-request.js';

function exchange(kind: ProtocolKind, body: unknown, headers: Record<string, string> = {}) {
  return {
    protocol: PROTOCOLS[kind],
    raw: Buffer.from(JSON.stringify(body)),
    request: { headers } as unknown as IncomingMessage,
  } as unknown as ModelExchange;
}

const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
const jsonAnswer = { responseJsonSchema: { type: 'object' }, responseMimeType: 'application/json' };

describe('sideFacts', () => {
  it('gemini-cli: a JSON-schema answer is a side request, a main turn is not', async () => {
    expect(
      await sideFacts(exchange('gemini-api', { contents, generationConfig: jsonAnswer })),
    ).toEqual({
      side: true,
    });
    expect(
      await sideFacts(exchange('gemini-api', { contents, generationConfig: { temperature: 0 } })),
    ).toEqual({});
    const codeAssist = {
      model: 'm',
      user_prompt_id: 'abc########1',
      request: { contents, generationConfig: jsonAnswer },
    };
    const facts = await sideFacts(exchange('code-assist', codeAssist));
    expect(facts.side).toBe(true);
    expect(facts.session).toMatch(/^[0-9a-f]{16}$/);
  });

  it("qwen-code: a required respond_in_schema tool is a side request; the launcher's header is digested", async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const tools = [{ type: 'function', function: { name: 'respond_in_schema', parameters: {} } }];
    const side = await sideFacts(
      exchange(
        'openai',
        { messages, tools, tool_choice: 'required' },
        { 'x-toolmask-session': 'run-1' },
      ),
    );
    expect(side.side).toBe(true);
    expect(side.session).toMatch(/^[0-9a-f]{16}$/);
    expect(side.session).not.toContain('run-1');
    expect(await sideFacts(exchange('openai', { messages, tools }))).toEqual({});
  });
});
