import { describe, expect, it } from 'vitest';
import {
  OpenAiTranscriptError,
  openAiMessagesOf,
  openAiTranscriptToContents,
} from './openai-transcript.js';

const transcript = [
  { role: 'system', content: 'You are qwen-code.' },
  {
    role: 'user',
    content: [
      { type: 'text', text: 'list the ' },
      { type: 'text', text: 'logs' },
    ],
  },
  {
    role: 'assistant',
    content: null,
    reasoning_content: 'thinking',
    tool_calls: [
      { id: 'a', type: 'function', function: { name: 'run_shell_command', arguments: '{"c":1}' } },
      { id: 'b', type: 'function', function: { name: 'read_file', arguments: 'not json' } },
    ],
    usage: { prompt_tokens: 1200, prompt_tokens_details: { cached_tokens: 1024 } },
  },
  { role: 'tool', tool_call_id: 'a', content: 'out a' },
  { role: 'tool', tool_call_id: 'b', content: [{ type: 'text', text: 'out b' }] },
  { role: 'assistant', content: 'done', usage: { prompt_tokens: 1500 } },
  { role: 'user', content: [{ type: 'image_url', image_url: { url: 'data:' } }] },
  { role: 'tool', tool_call_id: 'zzz', content: 'orphan' },
];

describe('openAiMessagesOf', () => {
  it('takes a message array or a request body, and nothing shaped like Content', () => {
    expect(openAiMessagesOf(transcript)).toBe(transcript);
    const body = { model: 'qwen3-coder-plus', messages: transcript, tools: [] };
    expect(openAiMessagesOf(body)).toBe(transcript);
    expect(openAiMessagesOf([{ role: 'user', parts: [{ text: 'hi' }] }])).toBeUndefined();
    expect(openAiMessagesOf([])).toBeUndefined();
    expect(openAiMessagesOf({ messages: [] })).toBeUndefined();
    expect(openAiMessagesOf({ sessionId: 'x' })).toBeUndefined();
  });
});

describe('openAiTranscriptToContents', () => {
  const converted = openAiTranscriptToContents(transcript);

  it('turns messages into gemini-shaped contents, tool runs into one content', () => {
    expect(converted.contents).toEqual([
      { role: 'user', parts: [{ text: 'You are qwen-code.' }] },
      { role: 'user', parts: [{ text: 'list the logs' }] },
      {
        role: 'model',
        parts: [
          { functionCall: { id: 'a', name: 'run_shell_command', args: { c: 1 } } },
          { functionCall: { id: 'b', name: 'read_file', args: { arguments: 'not json' } } },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: { id: 'a', name: 'run_shell_command', response: { output: 'out a' } },
          },
          { functionResponse: { id: 'b', name: 'read_file', response: { output: 'out b' } } },
        ],
      },
      { role: 'model', parts: [{ text: 'done' }] },
      { role: 'user', parts: [] },
      {
        role: 'user',
        parts: [
          { functionResponse: { id: 'zzz', name: 'unknown', response: { output: 'orphan' } } },
        ],
      },
    ]);
  });

  it('keeps recorded usage beside the model content the request produced', () => {
    expect(converted.recordedUsage).toEqual([
      undefined,
      undefined,
      { promptTokens: 1200, cachedTokens: 1024 },
      undefined,
      { promptTokens: 1500 },
      undefined,
      undefined,
    ]);
  });

  it('says what it left out', () => {
    expect(converted.warnings).toEqual([
      '1 non-text content part(s) left out (images, audio)',
      '1 tool message(s) answer a tool_call_id no assistant message announced (named "unknown")',
    ]);
  });

  it('names the message that is not a chat message', () => {
    expect(() => openAiTranscriptToContents([{ role: 'user', content: 'x' }, 'text'])).toThrow(
      new OpenAiTranscriptError(
        'message 1: expected an object with role system, developer, user, assistant or tool',
      ),
    );
  });
});
