import { Volume, createFsFromVolume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { resolveToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';
import { createFileToolOutputStore, type StoreFileSystem } from '../storage/toolOutputStore.js';
import { createMaskingMiddleware, isTextPrompt } from './maskingMiddleware.js';
import type { Content, MaskingHost, MaskingResult } from './maskingTypes.js';
import { ToolOutputMaskingService } from './toolOutputMaskingService.js';
import { isMaskedResponse } from './maskedSnippet.js';

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} line ${index + 1}`).join('\n');

function output(id: string, text: string): Content {
  return {
    role: 'user',
    parts: [{ functionResponse: { id, name: 'run_shell_command', response: { output: text } } }],
  };
}

function call(id: string): Content {
  return { role: 'model', parts: [{ functionCall: { id, name: 'run_shell_command', args: {} } }] };
}

const prompt = (text: string): Content => ({ role: 'user', parts: [{ text }] });

const snippetText = (content: Content | undefined): string =>
  (content?.parts?.[0]?.functionResponse?.response as { output: string }).output;

function setup(settings = {}) {
  const memory = createFsFromVolume(new Volume());
  const service = new ToolOutputMaskingService({
    store: createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem }),
    telemetry: () => undefined,
  });
  const config = resolveToolOutputMaskingConfig({
    warmRule: 'floor',
    toolProtectionThreshold: 2_000,
    minPrunableTokensThreshold: 100_000,
    ...settings,
  });
  const host: MaskingHost = {
    getToolOutputMaskingConfig: async () => config,
    getSessionId: () => 's',
    storage: { getProjectTempDir: () => '/p' },
  };
  let now = 0;
  const notices: string[] = [];
  const seen: boolean[] = [];
  const original = service.mask.bind(service);
  service.mask = (history, passHost, options) => {
    seen.push(options?.cacheLikelyCold === true);
    return original(history, passHost, options);
  };
  const middleware = createMaskingMiddleware(service, {
    host,
    idleGapMs: 60_000,
    onNotice: (notice) => notices.push(notice),
    _internal: { now: () => now },
  });
  return {
    middleware,
    service,
    host,
    notices,
    seen,
    advance: (ms: number) => (now += ms),
  };
}

/** Two old bulky outputs, then a model call whose response is being sent. */
function session(): { history: Content[]; request: Content } {
  return {
    history: [
      prompt('fix it'),
      call('a'),
      output('a', lines(400, 'a')),
      call('b'),
      output('b', lines(400, 'b')),
      call('c'),
    ],
    request: output('c', lines(400, 'c')),
  };
}

describe('createMaskingMiddleware', () => {
  it('a request carrying tool responses goes in as the latest turn (the guard reaches it)', async () => {
    const { middleware } = setup({ maxOutputTokens: 1_000 });
    const { history, request } = session();
    const masked = await middleware.transformRequest({ history, request });
    // Every output is above the guard: the old ones and the one being sent are offloaded.
    expect(masked.requestPartsMasked).toBe(1);
    expect(masked.request).not.toBe(request);
    expect(isMaskedResponse(masked.request.parts?.[0]?.functionResponse?.response)).toBe(true);
    expect(masked.history).toHaveLength(history.length);
    expect(masked.result.maskedCount).toBe(3);
  });

  it('the request being sent is protected like the latest turn below the guard', async () => {
    const { middleware } = setup({ minPrunableTokensThreshold: 0 });
    const { history, request } = session();
    const masked = await middleware.transformRequest({ history, request });
    expect(masked.request).toBe(request);
    expect(masked.requestPartsMasked).toBe(0);
    expect(isMaskedResponse(masked.history[2]?.parts?.[0]?.functionResponse?.response)).toBe(true);
  });

  it('a text prompt is not passed in; the history is masked alone', async () => {
    const { middleware } = setup({ minPrunableTokensThreshold: 0 });
    const { history } = session();
    const request = prompt('next');
    const masked = await middleware.transformRequest({ history, request });
    expect(masked.request).toBe(request);
    expect(masked.result.newHistory).toHaveLength(history.length);
  });

  it("a request's own settings and read-back name are used for that request alone", async () => {
    // The host's settings mask nothing here (a high minimum); the request's own mask at once.
    const { middleware } = setup();
    const { history, request } = session();
    const perRequest = resolveToolOutputMaskingConfig({
      warmRule: 'floor',
      toolProtectionThreshold: 2_000,
      minPrunableTokensThreshold: 0,
    });
    const masked = await middleware.transformRequest({
      history,
      request,
      config: perRequest,
      readToolName: 'mcp_toolmask_read_tool_output',
    });
    expect(masked.result.maskedCount).toBe(2);
    const snippet = masked.history[2]?.parts?.[0]?.functionResponse?.response as {
      output: string;
    };
    expect(snippet.output).toContain('Full output: mcp_toolmask_read_tool_output(');
    // The next request brings neither: the host's settings apply again (nothing new to mask).
    const next = await middleware.transformRequest({ history: session().history, request });
    expect(next.result.maskedCount).toBe(0);
  });

  it('a host with no settings of its own needs them in each request; without, the pass is skipped', async () => {
    const memory = createFsFromVolume(new Volume());
    const service = new ToolOutputMaskingService({
      store: createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem }),
      telemetry: () => undefined,
    });
    const middleware = createMaskingMiddleware(service, {
      host: { getSessionId: () => 's', storage: { getProjectTempDir: () => '/p' } },
    });
    const { history, request } = session();
    const config = resolveToolOutputMaskingConfig({
      warmRule: 'floor',
      toolProtectionThreshold: 2_000,
      minPrunableTokensThreshold: 0,
    });
    const masked = await middleware.transformRequest({ history, request, config });
    expect(masked.result.maskedCount).toBe(2);
    expect(snippetText(masked.history[2])).toContain('Full output: read_tool_output(');
    const unset = await middleware.transformRequest(session());
    expect(unset.result.maskedCount).toBe(0);
    expect(unset.result.failures.map((failure) => failure.code)).toEqual(['INTERNAL']);
  });

  it('nothing to mask: the same history array and request object come back', async () => {
    const { middleware } = setup();
    const history = [prompt('hi'), { role: 'model', parts: [{ text: 'hello' }] }];
    const request = prompt('again');
    const masked = await middleware.transformRequest({ history, request });
    expect(masked.history).toBe(history);
    expect(masked.request).toBe(request);
  });

  it('cold signal: a text prompt after the idle gap; the host may say so too', async () => {
    const { middleware, seen, advance } = setup();
    const { history } = session();
    await middleware.transformRequest({ history, request: prompt('first') }); // no previous end
    middleware.requestEnded();
    advance(30_000);
    await middleware.transformRequest({ history, request: prompt('quick') });
    middleware.requestEnded();
    advance(61_000);
    await middleware.transformRequest({ history, request: output('x', 'tool answer') }); // not a prompt
    await middleware.transformRequest({ history, request: prompt('after lunch') });
    await middleware.transformRequest({ history, request: prompt('x'), cacheLikelyCold: true });
    expect(seen).toEqual([false, false, false, true, true]);
  });

  it('tells the person after a pass that masked something', async () => {
    const { middleware, notices } = setup({ minPrunableTokensThreshold: 0 });
    const { history, request } = session();
    await middleware.transformRequest({ history, request });
    expect(notices).toEqual([expect.stringMatching(/^toolmask: masked 2 older tool outputs/)]);
  });

  it('never throws: a failing service or a throwing observer leaves the request as it came', async () => {
    const debug: string[] = [];
    const broken = {
      mask: async (): Promise<MaskingResult> => {
        throw Object.create(null); // cannot even be printed
      },
    } as unknown as ToolOutputMaskingService;
    const middleware = createMaskingMiddleware(broken, {
      host: {} as MaskingHost,
      debug: (line) => {
        debug.push(line);
        throw new Error('the debug sink fails too');
      },
    });
    const { history, request } = session();
    const masked = await middleware.transformRequest({ history, request });
    expect(masked.history).toBe(history);
    expect(masked.request).toBe(request);
    expect(debug).toEqual(['[toolmask] pass skipped: an error that cannot be printed']);

    const { service, host } = setup({ minPrunableTokensThreshold: 0 });
    const throwingObserver = createMaskingMiddleware(service, {
      host,
      onNotice: () => {
        throw new Error('observer');
      },
    });
    const fresh = session();
    const result = await throwingObserver.transformRequest(fresh);
    expect(result.result.maskedCount).toBe(2);
    expect(result.history).not.toBe(fresh.history);
  });

  it('recognises a text prompt', () => {
    expect(isTextPrompt(prompt('hi'))).toBe(true);
    expect(isTextPrompt(prompt(''))).toBe(false);
    expect(isTextPrompt({ role: 'model', parts: [{ text: 'hi' }] })).toBe(false);
    expect(isTextPrompt(output('a', 'x'))).toBe(false);
    expect(isTextPrompt({ role: 'user' })).toBe(false);
  });
});
