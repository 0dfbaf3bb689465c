/**
 * The traffic most gateway tests need: a gateway (fresh state folder, the given masking settings)
 * in front of a model that calls the shell `steps` times, and one client conversation through it
 * answering every call with a bulky output, finished (its usage recorded) when this resolves.
 * Everything started is handed to `cleanups`.
 */
import type { ListenOptions, RunningGateway } from '../listen-gateway.js';
import { shellCallingUpstream } from '@toolmask/test-support/fake-upstream';
import {
  gatewayFixture,
  runGeminiClient,
  settled,
  shellOutput,
  startTestGateway,
} from './gemini-client.js';

export interface ShellSessionOptions {
  settings: Record<string, unknown>;
  steps: number;
  usage?: (step: number) => { prompt: number; cached: number };
  gateway?: Partial<ListenOptions>;
  /** The output of a call; default a 400-line shell output tagged with the call id. */
  output?: (call: { id: string }, index: number) => string;
  headers?: Record<string, string>;
}

export async function shellSessionThroughGateway(
  options: ShellSessionOptions,
  cleanups: Array<() => Promise<void>>,
): Promise<{ running: RunningGateway; stateDir: string; settingsFile: string }> {
  const fixture = await gatewayFixture(options.settings);
  cleanups.push(fixture.cleanup);
  const upstream = await shellCallingUpstream(options.steps, options.usage);
  cleanups.push(() => upstream.close());
  const running = await startTestGateway({
    stateDir: fixture.stateDir,
    settingsFile: fixture.settingsFile,
    upstreams: { gemini: upstream.url },
    ...options.gateway,
  });
  cleanups.push(() => running.close());
  const output = options.output ?? ((call) => shellOutput(call.id));
  await runGeminiClient({
    url: `${running.url}/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse`,
    prompt: 'build it',
    outputFor: (call, index) => ({ output: output(call, index) }),
    maxRequests: options.steps + 4,
    ...(options.headers ? { headers: options.headers } : {}),
  });
  await settled(running);
  return { running, stateDir: fixture.stateDir, settingsFile: fixture.settingsFile };
}
