/**
 * An in-process session that writes telemetry to a local outfile, for the tests that read it:
 * a real gemini-cli-core client with core's own masking off and toolmask installed (settings
 * given, files not read), telemetry on with `target: local`, and `rounds` shell calls against
 * the fake Gemini server, each answered with `outputText(round)`. The outfile is flushed before
 * this resolves. Core's console notes (routing, policy) are silenced until `close()`. (The
 * OpenTelemetry SDK is process-wide: one per test file.) `install` is the caller's
 * `installToolOutputMasking`: core's own tests pass its source, other packages `@toolmask/core`'s.
 */
import * as path from 'node:path';
import { vi } from 'vitest';
import {
  TelemetryTarget,
  flushTelemetry,
  shutdownTelemetry,
  type Config,
  type Part,
} from '@google/gemini-cli-core';
import type {
  InstallToolOutputMaskingOptions,
  MaskingPass,
  ToolOutputMaskingSettings,
} from '@toolmask/core';
import {
  CORE_MASKING_OFF,
  createHostConfig,
  sendAndCollect,
  setUpTestEnv,
  type TestEnv,
} from './agent-harness.js';
import { startFakeGeminiServer, type FakeGeminiServer } from './fake-gemini-server.js';

export interface TelemetrySession {
  env: TestEnv;
  server: FakeGeminiServer;
  config: Config;
  outfile: string;
  /** Every pass toolmask ran, in order. */
  passes: MaskingPass[];
  /** Stops telemetry and the server, removes the folders, gives the console back. */
  close(): Promise<void>;
}

export async function runTelemetrySession(options: {
  /** A method, so that core's source and its built declarations both fit. */
  install(
    config: Config,
    options: Pick<InstallToolOutputMaskingOptions, 'settings' | 'readSettingsFiles' | 'onPass'>,
  ): unknown;
  label: string;
  rounds: number;
  settings: ToolOutputMaskingSettings;
  outputText: (round: number) => string;
}): Promise<TelemetrySession> {
  const quiet = [
    vi.spyOn(console, 'log').mockImplementation(() => undefined),
    vi.spyOn(console, 'debug').mockImplementation(() => undefined),
  ];
  const env = setUpTestEnv(options.label);
  const outfile = path.join(env.root, 'telemetry.log');
  const server = await startFakeGeminiServer({
    script: Array.from({ length: options.rounds }, (_, i) => ({
      parts: [
        {
          functionCall: { id: `c${i}`, name: 'run_shell_command', args: { command: `make ${i}` } },
        },
      ],
    })),
  });
  const config = await createHostConfig(env, server, {
    params: {
      contextManagement: CORE_MASKING_OFF,
      telemetry: { enabled: true, target: TelemetryTarget.LOCAL, outfile },
    },
  });
  const passes: MaskingPass[] = [];
  options.install(config, {
    settings: options.settings,
    readSettingsFiles: false,
    onPass: (pass) => passes.push(pass),
  });
  const answer = (callId: string, round: number): Part[] => [
    {
      functionResponse: {
        id: callId,
        name: 'run_shell_command',
        response: { output: options.outputText(round) },
      },
    },
  ];
  let calls = (await sendAndCollect(config, [{ text: 'build it' }], 'p1')).calls;
  for (let round = 0; round < options.rounds; round++) {
    calls = (await sendAndCollect(config, answer(calls[0]!.callId, round), 'p1')).calls;
  }
  await flushTelemetry(config);
  return {
    env,
    server,
    config,
    outfile,
    passes,
    async close() {
      await shutdownTelemetry(config, false);
      await server.close();
      await env.restore();
      for (const spy of quiet) spy.mockRestore();
    },
  };
}
