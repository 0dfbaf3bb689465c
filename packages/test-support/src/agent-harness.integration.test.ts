/**
 * The end-to-end harness keeps test output clean: a dozen Configs in one process (as a test file
 * makes them) trip neither Node's listener-leak warning nor core's "Ripgrep is not available".
 */
import { afterAll, beforeAll, expect, test, vi } from 'vitest';
import { createHostConfig, setUpTestEnv } from './agent-harness.js';
import { startFakeGeminiServer, type FakeGeminiServer } from './fake-gemini-server.js';

let server: FakeGeminiServer;
const warnings: string[] = [];
const onWarning = (warning: Error) => warnings.push(`${warning.name}: ${warning.message}`);

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
  vi.spyOn(console, 'debug').mockImplementation(() => undefined);
  server = await startFakeGeminiServer();
  process.on('warning', onWarning);
});

afterAll(async () => {
  process.off('warning', onWarning);
  await server.close();
  vi.restoreAllMocks();
});

test('twelve Configs, each restored: no MaxListenersExceededWarning, no ripgrep warning', async () => {
  const warn = vi.spyOn(console, 'warn');
  for (let index = 0; index < 12; index++) {
    const env = setUpTestEnv('toolmask-harness');
    await createHostConfig(env, server);
    await env.restore();
  }
  await new Promise((resolve) => setImmediate(resolve));
  expect(warnings.filter((warning) => warning.includes('MaxListeners'))).toEqual([]);
  expect(warn.mock.calls.flat().join('\n')).not.toContain('Ripgrep');
});
