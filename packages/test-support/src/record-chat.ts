/**
 * Writes a gemini-cli chat recording with @google/gemini-cli-core's own ChatRecordingService, the
 * way a real session calls it (user prompt; model message; tool calls with results merged into
 * it; the tool responses recorded as a user message; a rewind; an info line), so the loader is
 * tested against the format core really writes. Returns the file path.
 */
import { ChatRecordingService, type Part } from '@google/gemini-cli-core';

const MODEL = 'gemini-2.5-pro';

export function functionResponse(id: string, name: string, output: string): Part {
  return { functionResponse: { id, name, response: { output } } };
}

export async function recordChat(projectTempDir: string): Promise<string> {
  const context = {
    promptId: 'c0ffee00-1111-2222-3333-444455556666',
    config: {
      getProjectRoot: () => '/home/dev/app',
      storage: { getProjectTempDir: () => projectTempDir },
    },
    toolRegistry: { getTool: () => undefined },
  };
  const recorder = new ChatRecordingService(
    context as unknown as ConstructorParameters<typeof ChatRecordingService>[0],
  );
  await recorder.initialize();
  const toolTurn = (calls: { id: string; name: string; args: object; output: string }[]) => {
    recorder.recordMessage({ model: MODEL, type: 'gemini', content: 'Let me look.' });
    const results = calls.map((call) => functionResponse(call.id, call.name, call.output));
    type ToolCallRecords = Parameters<typeof recorder.recordToolCalls>[1];
    recorder.recordToolCalls(
      MODEL,
      calls.map((call, index) => ({
        id: call.id,
        name: call.name,
        args: call.args as Record<string, unknown>,
        result: [results[index] as Part],
        status: 'success' as const,
        timestamp: new Date().toISOString(),
      })) as unknown as ToolCallRecords,
    );
    recorder.recordSyntheticMessage('user', results);
  };

  recorder.recordMessage({
    model: MODEL,
    type: 'user',
    content: [{ text: 'Why does the build fail?' }],
  });
  toolTurn([
    {
      id: 'call-1',
      name: 'run_shell_command',
      args: { command: 'npm run build' },
      output: 'Output: error TS2345\nExit Code: 2',
    },
    {
      id: 'call-2',
      name: 'read_file',
      args: { file_path: '/home/dev/app/src/a.ts' },
      output: 'export const a = 1;\n',
    },
  ]);
  recorder.recordMessage({ model: MODEL, type: 'gemini', content: 'A type error in src/a.ts.' });
  recorder.recordMessage({ model: MODEL, type: 'info', content: 'Checkpoint saved.' });
  recorder.recordMessage({ model: MODEL, type: 'user', content: [{ text: '/stats' }] });
  const dropped = recorder.recordMessage({
    model: MODEL,
    type: 'user',
    content: [{ text: 'Try again' }],
  });
  recorder.rewindTo(dropped);
  recorder.recordMessage({ model: MODEL, type: 'user', content: [{ text: 'Fix it, please.' }] });
  toolTurn([
    {
      id: 'call-3',
      name: 'replace',
      args: { file_path: '/home/dev/app/src/a.ts' },
      output: 'Successfully modified file.',
    },
  ]);
  recorder.recordMessage({ model: MODEL, type: 'gemini', content: 'Fixed.' });
  const file = recorder.getConversationFilePath();
  if (!file) throw new Error('ChatRecordingService wrote no file');
  return file;
}
