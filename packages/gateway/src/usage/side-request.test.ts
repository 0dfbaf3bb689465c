/**
 * Which requests are side requests (each protocol's rule, through side-request.ts), from the body
 * as each client sends them: gemini-cli's `generateJson` (Gemini API and Code Assist) and
 * qwen-code's (OpenAI, a required `respond_in_schema` tool), Claude Code's and Codex's title calls
 * (a JSON schema and no tools, as the real binaries sent them to a loopback fake); main turns are
 * not. The session signal is kept as a digest.
 */
import { describe, expect, it } from 'vitest';
import type { ProtocolKind } from '../protocols/protocol.js';
import { PROTOCOLS } from '../protocols/protocols.js';
import { sessionSignal } from '../protocols/session-signal.js';
import { IncrementalBody } from '../body/incremental-body.js';
import { sideFacts, type SideFactsOf } from './side-request.js';

/** A request of `kind` as the pipeline gives it: its body, and its session signal read the same way. */
function exchange(
  kind: ProtocolKind,
  body: unknown,
  headers: Record<string, string> = {},
): SideFactsOf {
  const protocol = PROTOCOLS[kind];
  const raw = Buffer.from(JSON.stringify(body));
  return { protocol, raw, session: sessionSignal(protocol, headers, raw) };
}

/**
 * The facts of a request as the pipeline reads them: from the body without its conversation, as
 * the incremental reader gives it; the same as from the whole body (checked here).
 */
async function facts(
  kind: ProtocolKind,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Awaited<ReturnType<typeof sideFacts>>> {
  const whole = exchange(kind, body, headers);
  const read = await new IncrementalBody(whole.protocol.codec).read(whole.raw!, 'm');
  const outside = read!.outside();
  expect(outside.length).toBeLessThan(whole.raw!.length);
  const fromOutside = await sideFacts({ ...exchange(kind, body, headers), outside });
  expect(fromOutside).toEqual(await sideFacts(whole));
  return fromOutside;
}

const contents = [{ role: 'user', parts: [{ text: 'hi' }] }];
const jsonAnswer = { responseJsonSchema: { type: 'object' }, responseMimeType: 'application/json' };

describe('sideFacts', () => {
  it('gemini-cli: a JSON-schema answer is a side request, a main turn is not', async () => {
    expect(await facts('gemini-api', { contents, generationConfig: jsonAnswer })).toEqual({
      side: true,
    });
    expect(await facts('gemini-api', { contents, generationConfig: { temperature: 0 } })).toEqual(
      {},
    );
    const codeAssist = {
      model: 'm',
      user_prompt_id: 'abc########1',
      request: { contents, generationConfig: jsonAnswer },
    };
    const codeAssistFacts = await facts('code-assist', codeAssist);
    expect(codeAssistFacts.side).toBe(true);
    expect(codeAssistFacts.session).toMatch(/^[0-9a-f]{16}$/);
  });

  it("qwen-code: a required respond_in_schema tool is a side request; the launcher's header is digested", async () => {
    const messages = [{ role: 'user', content: 'hi' }];
    const tools = [{ type: 'function', function: { name: 'respond_in_schema', parameters: {} } }];
    const side = await facts(
      'openai',
      { messages, tools, tool_choice: 'required' },
      { 'x-toolmask-session': 'run-1' },
    );
    expect(side.side).toBe(true);
    expect(side.session).toMatch(/^[0-9a-f]{16}$/);
    expect(side.session).not.toContain('run-1');
    expect(await facts('openai', { messages, tools })).toEqual({});
  });

  it('claude-code: the title call (a json_schema format, tools: []) is a side request; a main turn is not', async () => {
    // As claude 2.1.328 sent it (the system text shortened), before its first main turn.
    const title = {
      model: 'claude-opus-5-5',
      messages: [
        { role: 'user', content: [{ type: 'text', text: '<session>\nsay hi\n</session>' }] },
      ],
      system: [{ type: 'text', text: 'You are naming a coding session…' }],
      tools: [],
      metadata: { user_id: '{"device_id":"d","account_uuid":"","session_id":"e440505e"}' },
      max_tokens: 128000,
      output_config: {
        effort: 'medium',
        format: {
          type: 'json_schema',
          schema: {
            type: 'object',
            properties: { title: { type: 'string' } },
            required: ['title'],
          },
        },
      },
      stream: true,
    };
    expect((await facts('anthropic', title)).side).toBe(true);
    const main = {
      ...title,
      tools: [{ name: 'Bash', input_schema: { type: 'object' } }],
      output_config: { effort: 'medium' },
    };
    expect((await facts('anthropic', main)).side).toBeUndefined();
    // A schema with the agent's tools is a turn of the conversation, not a one-shot call.
    const structuredTurn = { ...main, output_config: title.output_config };
    expect((await facts('anthropic', structuredTurn)).side).toBeUndefined();
  });

  it('codex: the title call (text.format json_schema, tools: []) is a side request; exec --output-schema turns are not', async () => {
    const input = [
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    ];
    const schema = {
      format: {
        type: 'json_schema',
        strict: true,
        schema: { type: 'object', properties: { title: { type: 'string' } } },
        name: 'codex_output_schema',
      },
    };
    const title = {
      model: 'gpt-5-codex',
      stream: true,
      input,
      tools: [],
      tool_choice: 'auto',
      text: schema,
    };
    expect((await facts('openai-responses', title)).side).toBe(true);
    const tools = [{ type: 'function', name: 'exec_command', parameters: {} }];
    const main = { model: 'gpt-5-codex', stream: true, input, tools, tool_choice: 'auto' };
    expect((await facts('openai-responses', main)).side).toBeUndefined();
    expect((await facts('openai-responses', { ...main, text: schema })).side).toBeUndefined();
  });
});
