/**
 * The prompt, folder and OpenCode title mark read from each client's bodies (shapes as the real
 * binaries send them: Codex's environment context, Claude Code's system prompt and reminders,
 * OpenCode's title call, gemini-cli's setup message), bounded; and OpenCode's title call is a side
 * request of the same session as its turns (it was a session of its own before).
 */
import { describe, expect, it } from 'vitest';
import type { ProtocolKind } from '../protocols/protocol.js';
import { PROTOCOLS } from '../protocols/protocols.js';
import { sessionSignal } from '../protocols/session-signal.js';
import { MAX_FOLDER_CHARS, MAX_PROMPT_CHARS, requestFacts } from './request-facts.js';
import { sideFacts } from './side-request.js';

function facts(kind: ProtocolKind, body: unknown) {
  return requestFacts(PROTOCOLS[kind], Buffer.from(JSON.stringify(body)));
}

const TITLE_SYSTEM =
  'You are a title generator. You output ONLY a thread title. Nothing else.\n<task>\nGenerate a brief title';

describe('requestFacts', () => {
  it('Codex: the prompt after its environment context, the folder from <cwd>', async () => {
    const input = [
      { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'rules' }] },
      {
        type: 'message',
        role: 'user',
        content: [
          { type: 'input_text', text: '# AGENTS.md instructions for /w\n\nbe brief' },
          {
            type: 'input_text',
            text: '<environment_context>\n  <cwd>/home/me/app</cwd>\n</environment_context>',
          },
        ],
      },
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'fix the build' }] },
      { type: 'function_call_output', call_id: 'c1', output: 'Working directory: /nope' },
    ];
    expect(await facts('openai-responses', { input, instructions: 'You are Codex.' })).toEqual({
      prompt: 'fix the build',
      folder: '/home/me/app',
    });
  });

  it("Claude Code: the prompt after its reminders, the folder from its system prompt's environment", async () => {
    const body = {
      model: 'claude-opus-5-5',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>\nAs you answer\n</system-reminder>' },
            { type: 'text', text: 'add  a\n test for parse()' },
          ],
        },
      ],
      system: [
        { type: 'text', text: 'You are Claude Code.' },
        { type: 'text', text: '<env>\nWorking directory: /srv/repo\nIs git repo: yes\n</env>' },
      ],
    };
    expect(await facts('anthropic', body)).toEqual({
      prompt: 'add a test for parse()',
      folder: '/srv/repo',
    });
    // 2.1.3xx: the environment in a system message of its own, among the messages.
    const environment = {
      role: 'system',
      content: [
        {
          type: 'text',
          text: '# Environment\nYou have been invoked in the following environment: \n - Primary working directory: /home/me/api\n - Is a git repository: false',
        },
      ],
    };
    expect(
      await facts('anthropic', { ...body, messages: [...body.messages, environment], system: [] }),
    ).toEqual({ prompt: 'add a test for parse()', folder: '/home/me/api' });
  });

  it("OpenCode: its title call is marked; a main turn's prompt and folder are read", async () => {
    const title = {
      model: 'm',
      messages: [
        { role: 'system', content: TITLE_SYSTEM },
        { role: 'user', content: 'Generate a title for this conversation:\n' },
        { role: 'user', content: 'list the files' },
      ],
    };
    expect((await facts('openai', title)).titleRequest).toBe(true);
    const turn = {
      model: 'm',
      messages: [
        { role: 'system', content: 'You are opencode.\n<env>\n  Working directory: /p/q\n</env>' },
        { role: 'user', content: [{ type: 'text', text: '"list the files"' }] },
      ],
      tools: [{ type: 'function', function: { name: 'bash' } }],
    };
    expect(await facts('openai', turn)).toEqual({ prompt: 'list the files', folder: '/p/q' });
  });

  it("gemini-cli: the prompt after its setup message, the folder from it; Code Assist's wrapping too", async () => {
    const contents = [
      {
        role: 'user',
        parts: [
          {
            text: "This is the Gemini CLI. We are setting up the context for our chat.\nToday's date is Monday.\nI'm currently working in the directory: /home/me/site\nHere is the folder structure",
          },
        ],
      },
      { role: 'model', parts: [{ text: 'Got it. Thanks for the context!' }] },
      { role: 'user', parts: [{ text: 'why does the test fail?' }] },
    ];
    const expected = { prompt: 'why does the test fail?', folder: '/home/me/site' };
    expect(await facts('gemini-api', { contents })).toEqual(expected);
    expect(await facts('code-assist', { model: 'm', request: { contents } })).toEqual(expected);
    // gemini-cli 0.61: its context in <session_context>, the folders as workspace directories.
    const session = [
      {
        role: 'user',
        parts: [
          {
            text: '<session_context>\nThis is the Gemini CLI. We are setting up the context for our chat.\n- **Workspace Directories:**\n  - /home/me/site\n  - /home/me/lib\n</session_context>',
          },
        ],
      },
      { role: 'user', parts: [{ text: 'why does the test fail?' }] },
    ];
    expect(await facts('gemini-api', { contents: session })).toEqual(expected);
    // A prompt of the person's that starts with a tag of its own is theirs.
    const task = [{ role: 'user', parts: [{ text: '<pr_description>\nOptimize delete()' }] }];
    expect(await facts('gemini-api', { contents: task })).toEqual({
      prompt: '<pr_description> Optimize delete()',
    });
  });

  it('keeps them bounded: the prompt its start, the folder its end', async () => {
    const long = `${'word '.repeat(200)}end`;
    const folder = `/${'deep/'.repeat(100)}leaf`;
    const result = await facts('anthropic', {
      messages: [{ role: 'user', content: long }],
      system: `Working directory: ${folder}`,
    });
    expect(result.prompt).toHaveLength(MAX_PROMPT_CHARS);
    expect(result.prompt?.startsWith('word word')).toBe(true);
    expect(result.folder).toHaveLength(MAX_FOLDER_CHARS);
    expect(result.folder?.endsWith('/deep/leaf')).toBe(true);
  });

  it('reads only the first megabyte: what starts there, never a value cut by its end', async () => {
    const big = 'x'.repeat(3 * 1024 * 1024);
    const body = {
      messages: [
        { role: 'user', content: 'summarise the log' },
        { role: 'assistant', content: big },
        { role: 'user', content: 'and now?' },
      ],
      system: 'Working directory: /late',
    };
    expect(await facts('anthropic', body)).toEqual({ prompt: 'summarise the log' });
  });

  it('reads the system prompt from the body without its conversation, however long that is', async () => {
    const body = {
      messages: [
        { role: 'user', content: 'summarise the log' },
        { role: 'assistant', content: 'x'.repeat(3 * 1024 * 1024) },
      ],
      system: 'Working directory: /late',
    };
    const outside = Buffer.from(JSON.stringify({ ...body, messages: [] }));
    const raw = Buffer.from(JSON.stringify(body));
    expect(await requestFacts(PROTOCOLS.anthropic, raw, { outside })).toEqual({
      prompt: 'summarise the log',
      folder: '/late',
    });
  });

  it('of a request that names nothing, reads only the title call mark', async () => {
    const body = {
      messages: [{ role: 'user', content: 'fix the build' }],
      system: 'Working directory: /home/me/app',
    };
    const raw = Buffer.from(JSON.stringify(body));
    expect(await requestFacts(PROTOCOLS.anthropic, raw, { named: false })).toEqual({});
    const title = Buffer.from(JSON.stringify({ ...body, system: TITLE_SYSTEM }));
    expect(await requestFacts(PROTOCOLS.anthropic, title, { named: false })).toEqual({
      titleRequest: true,
    });
  });

  it('a body that is not the shape expected gives nothing', async () => {
    expect(await requestFacts(PROTOCOLS.anthropic, Buffer.from('{"messages": [1, '))).toEqual({});
    expect(await facts('anthropic', { messages: 'no' })).toEqual({});
  });
});

describe("OpenCode's title call", () => {
  it('is a side request with the session of its turns, named only when asked', async () => {
    const protocol = PROTOCOLS.openai;
    const headers = { 'x-session-affinity': 'ses_0123abcd' };
    const raw = Buffer.from(
      JSON.stringify({
        model: 'm',
        messages: [
          { role: 'system', content: TITLE_SYSTEM },
          { role: 'user', content: 'Generate a title for this conversation:\n' },
        ],
      }),
    );
    const title = await sideFacts({
      protocol,
      raw,
      session: sessionSignal(protocol, headers, raw),
    });
    expect(title.side).toBe(true);
    expect(title.session).toMatch(/^[0-9a-f]{16}$/);
    const turnRaw = Buffer.from(
      JSON.stringify({ model: 'm', messages: [{ role: 'user', content: 'list the files' }] }),
    );
    const turn = await sideFacts({
      protocol,
      raw: turnRaw,
      session: sessionSignal(protocol, headers, turnRaw),
      named: true,
    });
    expect(turn).toEqual({ session: title.session, prompt: 'list the files' });
  });
});
