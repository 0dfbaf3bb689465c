import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { functionResponse, recordChat } from '@toolmask/test-support/record-chat';
import { ChatRecordingFormatError, parseChatRecordingJsonl } from './chat-recording.js';
import { loadTaskFile } from './load-task-file.js';

const workDir = mkdtempSync(join(tmpdir(), 'toolmask-chat-'));
afterAll(() => rmSync(workDir, { recursive: true, force: true }));

const line = (record: object) => JSON.stringify(record);
const META = { sessionId: 's-1', projectHash: 'h' };

describe('gemini-cli chat recordings', () => {
  it("converts a recording written by core's ChatRecordingService to what the model was sent", async () => {
    const file = await recordChat(workDir);
    const task = await loadTaskFile(file);
    expect(task.format).toBe('chat-recording');
    expect(task.contents).toEqual([
      { role: 'user', parts: [{ text: 'Why does the build fail?' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look.' },
          {
            functionCall: {
              id: 'call-1',
              name: 'run_shell_command',
              args: { command: 'npm run build' },
            },
          },
          {
            functionCall: {
              id: 'call-2',
              name: 'read_file',
              args: { file_path: '/home/dev/app/src/a.ts' },
            },
          },
        ],
      },
      {
        role: 'user',
        parts: [
          functionResponse('call-1', 'run_shell_command', 'Output: error TS2345\nExit Code: 2'),
          functionResponse('call-2', 'read_file', 'export const a = 1;\n'),
        ],
      },
      { role: 'model', parts: [{ text: 'A type error in src/a.ts.' }] },
      // the info line and /stats are not sent; "Try again" was rewound away
      { role: 'user', parts: [{ text: 'Fix it, please.' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me look.' },
          {
            functionCall: {
              id: 'call-3',
              name: 'replace',
              args: { file_path: '/home/dev/app/src/a.ts' },
            },
          },
        ],
      },
      {
        role: 'user',
        parts: [functionResponse('call-3', 'replace', 'Successfully modified file.')],
      },
      { role: 'model', parts: [{ text: 'Fixed.' }] },
    ]);
  });

  it('reads the older single-object format, taking tool results from toolCalls', async () => {
    const task = await loadTaskFile(
      join(import.meta.dirname, '..', 'test-data', 'chat-recording-legacy.json'),
    );
    expect(task.contents).toEqual([
      { role: 'user', parts: [{ text: 'Show me the README' }] },
      {
        role: 'model',
        parts: [
          { text: 'Reading it.' },
          { functionCall: { id: 'read-1', name: 'read_file', args: { file_path: 'README.md' } } },
        ],
      },
      { role: 'user', parts: [functionResponse('read-1', 'read_file', '# App\nA small app.')] },
      { role: 'model', parts: [{ text: 'It describes a small app.' }] },
    ]);
  });

  it('applies checkpoints ($set.messages) and skips a torn last line with a warning', () => {
    const parsed = parseChatRecordingJsonl(
      [
        line(META),
        line({ id: 'a', type: 'user', content: [{ text: 'old' }] }),
        line({ $set: { messages: [{ id: 'b', type: 'user', content: [{ text: 'new' }] }] } }),
        '{"id":"c","type":"gem',
      ].join('\n'),
    );
    expect(parsed.messages.map((message) => message.id)).toEqual(['b']);
    expect(parsed.warnings).toEqual(['line 4 is cut off and was skipped']);
  });

  it("reads the session's first and last recorded moments, for replay --since (issue 35)", async () => {
    // As gemini 0.61.0 writes them: times in the metadata line, each message's timestamp.
    const file = join(workDir, 'session-2026-12-03T10-20-3f8db1d5.jsonl');
    const { writeFileSync } = await import('node:fs');
    writeFileSync(
      file,
      [
        line({
          ...META,
          startTime: '2026-12-03T10:20:11.694Z',
          lastUpdated: '2026-12-03T10:20:11.694Z',
        }),
        line({
          $set: {
            messages: [
              {
                id: 'u',
                timestamp: '2026-12-03T10:20:11.696Z',
                type: 'user',
                content: [{ text: 'hi' }],
              },
            ],
          },
        }),
        line({
          id: 'g',
          timestamp: '2026-12-03T10:20:15.000Z',
          type: 'gemini',
          content: [{ text: 'ok' }],
        }),
        line({ $set: { lastUpdated: '2026-12-03T10:20:15.500Z' } }),
      ].join('\n'),
    );
    const task = await loadTaskFile(file);
    expect(task.startedAt).toBe(Date.parse('2026-12-03T10:20:11.694Z'));
    expect(task.updatedAt).toBe(Date.parse('2026-12-03T10:20:15.500Z'));
  });

  it('rejects a bad line in the middle and a file without session metadata', () => {
    expect(() =>
      parseChatRecordingJsonl([line(META), 'nope', line({ id: 'x' })].join('\n')),
    ).toThrow(new ChatRecordingFormatError('line 2 is not valid JSON'));
    expect(() => parseChatRecordingJsonl(line({ id: 'x', type: 'user' }))).toThrow(
      /first line has no sessionId/,
    );
  });
});
