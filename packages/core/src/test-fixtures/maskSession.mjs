/**
 * A host in a child process, for processes.reliability.test.ts: builds a synthetic history of
 * bulky tool outputs and runs one masking pass on it with the real file store, as an agent would
 * before a request. It runs the built package (packages/core/dist), so `tsc -b packages/core` first.
 *
 * Argument: one JSON object
 *   projectTempDir, sessionId   where the outputs go
 *   outputs, lines              how many outputs, and lines per output
 *   shared                      the first `shared` outputs have the same call id and text in every
 *                               session (default 0); the others carry the session id
 *   slowWrite: {chunk, delayMs} write at most `chunk` bytes per write(2), sleeping `delayMs` after
 *                               each, so a SIGKILL lands in the middle of a file
 *   dropPrivileges              setuid/setgid 65534 (nobody) first (when the test runs as root)
 *   staleTemporaryFileMs        passed to the store
 *   waitForGo                   after READY, wait for a line on stdin before the pass (so that
 *                               several children start their passes at the same moment)
 *
 * Prints `READY` when the history is built and the pass is about to start, then one line
 * `RESULT <json>` with what the pass did, and the sha256 of every offloaded output's original text.
 */
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import { ToolOutputMaskingService } from '../../dist/services/toolOutputMaskingService.js';
import { createFileToolOutputStore } from '../../dist/storage/toolOutputStore.js';
import { resolveToolOutputMaskingConfig } from '../../dist/config/toolOutputMaskingSettings.js';

const options = JSON.parse(process.argv[2] ?? '{}');

if (options.dropPrivileges) {
  process.setgid(65534);
  process.setuid(65534);
}

const sha256 = (text) => createHash('sha256').update(text, 'utf8').digest('hex');

function outputText(index) {
  const owner = index < (options.shared ?? 0) ? 'shared' : options.sessionId;
  const body = [];
  for (let line = 0; line < options.lines; line++) {
    body.push(`${owner} output ${index} line ${line} ${'abcdefghij'.repeat(6)}`);
  }
  return body.join('\n');
}

const history = [{ role: 'user', parts: [{ text: 'start' }] }];
const originals = new Map();
for (let index = 0; index < options.outputs; index++) {
  const owner = index < (options.shared ?? 0) ? 'shared' : options.sessionId;
  const id = `${owner}-call-${index}`;
  const name = index % 2 === 0 ? 'run_shell_command' : 'read_file';
  const output = outputText(index);
  originals.set(id, sha256(output));
  history.push({ role: 'model', parts: [{ functionCall: { id, name, args: {} } }] });
  history.push({ role: 'user', parts: [{ functionResponse: { id, name, response: { output } } }] });
}
history.push({ role: 'user', parts: [{ text: 'next' }] });

/** `node:fs` with a slow write(2): the store's write loop sees short writes. */
function slowFs({ chunk, delayMs }) {
  const sleeper = new Int32Array(new SharedArrayBuffer(4));
  return {
    ...fs,
    writeSync(fd, buffer, offset = 0, length = buffer.length - offset) {
      const written = fs.writeSync(fd, buffer, offset, Math.min(length, chunk));
      Atomics.wait(sleeper, 0, 0, delayMs);
      return written;
    },
  };
}

const store = createFileToolOutputStore({
  fs: options.slowWrite ? slowFs(options.slowWrite) : fs,
  staleTemporaryFileMs: options.staleTemporaryFileMs,
});
const service = new ToolOutputMaskingService({ store, telemetry: () => undefined });
const config = resolveToolOutputMaskingConfig({
  toolProtectionThreshold: 0,
  minPrunableTokensThreshold: 0,
  // Every output masks in one pass (a one-request session cannot pay a warm break back).
  warmRule: 'floor',
});
const host = {
  getToolOutputMaskingConfig: async () => config,
  getSessionId: () => options.sessionId,
  storage: { getProjectTempDir: () => options.projectTempDir },
};

process.stdout.write('READY\n');
if (options.waitForGo) {
  await new Promise((resolve) => process.stdin.once('data', resolve));
  process.stdin.pause();
}
const result = await service.mask(history, host, { cacheLikelyCold: true });
process.stdout.write(
  `RESULT ${JSON.stringify({
    maskedCount: result.maskedCount,
    unchanged: result.newHistory === history,
    failures: result.failures,
    offloaded: result.offloaded.map((item) => ({
      filePath: item.filePath,
      sha256: originals.get(item.callId),
    })),
  })}\n`,
);
