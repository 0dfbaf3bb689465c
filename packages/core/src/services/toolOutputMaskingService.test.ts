import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Volume, createFsFromVolume } from 'memfs';
import { describe, expect, it } from 'vitest';
import { shellStep } from '../test-utils/maskingHarness.js';
import type { Content, MaskingHost, Part } from './maskingTypes.js';
import {
  resolveToolOutputMaskingConfig,
  type ToolOutputMaskingSettings,
} from '../config/toolOutputMaskingSettings.js';
import { ToolOutputMaskingService } from './toolOutputMaskingService.js';
import {
  createFileToolOutputStore,
  type StoreFileSystem,
  type ToolOutputStore,
} from '../storage/toolOutputStore.js';
import { isMaskedResponse, parseMaskedSnippet } from './maskedSnippet.js';
import { estimateFunctionResponseTokens } from '../utils/tokenCalculation.js';
import type { ToolOutputMaskingEvent } from '../telemetry/toolOutputMaskingEvent.js';

const PROJECT_TEMP = '/project-temp';

function setup(settings: ToolOutputMaskingSettings = {}, store?: ToolOutputStore) {
  const memory = createFsFromVolume(new Volume());
  const events: ToolOutputMaskingEvent[] = [];
  let now = 1_000;
  const service = new ToolOutputMaskingService({
    store: store ?? createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem }),
    _internal: { clock: () => (now += 5) },
    telemetry: (event) => events.push(event),
  });
  const host: MaskingHost = {
    getToolOutputMaskingConfig: async () =>
      resolveToolOutputMaskingConfig({
        warmRule: 'floor',
        toolProtectionThreshold: 1_000,
        minPrunableTokensThreshold: 500,
        ...settings,
      }),
    getSessionId: () => 'session-a',
    storage: { getProjectTempDir: () => PROJECT_TEMP },
  };
  return { service, host, memory, events };
}

const lines = (count: number, prefix: string) =>
  Array.from({ length: count }, (_, index) => `${prefix} line ${index + 1}`).join('\n');

let callCounter = 0;
function exchange(
  name: string,
  response: Record<string, unknown>,
  extraParts: Part[] = [],
): Content[] {
  const id = `call-${++callCounter}`;
  return [
    { role: 'model', parts: [{ functionCall: { id, name, args: {} } }] },
    { role: 'user', parts: [{ functionResponse: { id, name, response } }, ...extraParts] },
  ];
}

/** Four bulky shell outputs (~1,000+ tokens each) and a closing user prompt. */
function bulkyHistory(): Content[] {
  return [
    { role: 'user', parts: [{ text: 'fix the bug' }] },
    ...exchange('run_shell_command', { output: `Output: ${lines(300, 'first')}\nExit Code: 1` }),
    ...exchange('read_file', { output: lines(300, 'second') }),
    ...exchange('grep_search', { output: lines(300, 'third') }),
    ...exchange('run_shell_command', { output: `Output: ${lines(300, 'fourth')}` }),
    { role: 'model', parts: [{ text: 'done' }] },
  ];
}

function responseOf(content: Content | undefined, partIndex = 0): Record<string, unknown> {
  return content?.parts?.[partIndex]?.functionResponse?.response as Record<string, unknown>;
}

describe('ToolOutputMaskingService', () => {
  it('returns the history untouched when disabled', async () => {
    const { service, host, events } = setup({ enabled: false });
    const history = bulkyHistory();
    const result = await service.mask(history, host);
    expect(result.newHistory).toBe(history);
    expect(result.maskedCount).toBe(0);
    expect(events).toEqual([]);
  });

  it('handles an empty history', async () => {
    const { service, host } = setup();
    const result = await service.mask([], host);
    expect(result.newHistory).toEqual([]);
    expect(result.maskedCount).toBe(0);
  });

  it('does nothing below the thresholds', async () => {
    const { service, host, memory } = setup({ toolProtectionThreshold: 1_000_000 });
    const history = bulkyHistory();
    const result = await service.mask(history, host);
    expect(result.newHistory).toBe(history);
    expect(result.tokensBefore).toBeGreaterThan(2_000);
    expect(result.totalPrunableTokens).toBe(0);
    await expect(memory.promises.readdir(PROJECT_TEMP)).rejects.toThrow();
  });

  it('masks older outputs above the thresholds, keeps the newest, and saves the full text', async () => {
    const history = bulkyHistory();
    // Room for exactly the newest output: it stays whole, the three older ones are prunable.
    const newestTokens = estimateFunctionResponseTokens(responseOf(history[8]));
    const { service, host, memory, events } = setup({ toolProtectionThreshold: newestTokens + 10 });
    const original = structuredClone(history);
    const result = await service.mask(history, host);

    expect(result.maskedCount).toBe(3);
    expect(result.tokensSaved).toBeGreaterThan(1_000);
    expect(result.tokensAfter).toBe(result.tokensBefore - result.tokensSaved);
    // Input not mutated.
    expect(history).toEqual(original);
    // The newest output (index 8) stays whole; the oldest (index 2) is masked.
    expect(responseOf(result.newHistory[8])).toEqual(responseOf(history[8]));
    const masked = responseOf(result.newHistory[2]);
    expect(isMaskedResponse(masked)).toBe(true);
    const snippet = masked['output'] as string;
    expect(snippet).toContain('<tool_output_masked');
    expect(snippet).toContain('Exit Code: 1');
    const parsed = parseMaskedSnippet(snippet);
    expect(parsed?.filePath.startsWith(`${PROJECT_TEMP}/tool-outputs/session-session-a/`)).toBe(
      true,
    );
    expect(await memory.promises.readFile(parsed!.filePath, 'utf8')).toBe(
      responseOf(history[2])['output'],
    );
    expect(result.changedIndices).toContain(2);
    expect(result.notice).toMatch(
      /^toolmask: masked \d+ older tool outputs, freed ~[\d,]+ tokens; full outputs in /,
    );
    // One telemetry event with gemini-cli's attribute names.
    expect(events).toHaveLength(1);
    expect(events[0]!.toOpenTelemetryAttributes()).toMatchObject({
      'event.name': 'gemini_cli.tool_output_masking',
      masked_count: result.maskedCount,
      tokens_before: result.tokensBefore,
      tokens_after: result.tokensAfter,
      total_prunable_tokens: result.totalPrunableTokens,
      failed_count: 0,
    });
    // The injected clock (starting at 1,000 ms, +5 a reading) times the pass and stamps the event.
    expect(result.durationMs).toBe(5);
    expect(events[0]!['event.timestamp']).toBe(new Date(1_015).toISOString());
  });

  it('never masks again what it masked, and a second pass is a no-op', async () => {
    const { service, host, events } = setup();
    const first = await service.mask(bulkyHistory(), host);
    const second = await service.mask(first.newHistory, host);
    expect(second.maskedCount).toBe(0);
    expect(second.newHistory).toBe(first.newHistory);
    expect(events).toHaveLength(1);
    // A fresh service (e.g. after resume) recognises the snippets structurally.
    const fresh = setup();
    const third = await fresh.service.mask(structuredClone(first.newHistory), fresh.host);
    expect(third.maskedCount).toBe(0);
  });

  it('protects the latest turn', async () => {
    const { service, host } = setup({ toolProtectionThreshold: 0, minPrunableTokensThreshold: 0 });
    const history = bulkyHistory().slice(0, -1); // last entry = newest tool result
    const result = await service.mask(history, host);
    expect(isMaskedResponse(responseOf(result.newHistory.at(-1)))).toBe(false);
    expect(isMaskedResponse(responseOf(result.newHistory.at(-3)))).toBe(true);
    const unprotected = await setup({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 0,
      protectLatestTurn: false,
    }).service.mask(history, host);
    expect(unprotected.maskedCount).toBe(result.maskedCount);
  });

  it('never counts or masks exempt tools, built-in or configured', async () => {
    const { service, host } = setup({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 0,
      exemptTools: ['read_file'],
    });
    const history = [
      ...exchange('skill', { output: lines(400, 'skill') }),
      ...exchange('memory', { output: lines(400, 'memory') }),
      ...exchange('read_file', { output: lines(400, 'read') }),
      ...exchange('run_shell_command', { output: `Output: ${lines(400, 'shell')}` }),
      { role: 'user', parts: [{ text: 'next' }] },
    ] satisfies Content[];
    const result = await service.mask(history, host);
    expect(result.maskedCount).toBe(1);
    for (const index of [1, 3, 5])
      expect(responseOf(result.newHistory[index])).toBe(responseOf(history[index]));
    expect(isMaskedResponse(responseOf(result.newHistory[7]))).toBe(true);
  });

  it('never masks the read-back or search tool under a client prefix (Claude Code, gemini-cli, OpenCode)', async () => {
    const { service, host } = setup({ toolProtectionThreshold: 0, minPrunableTokensThreshold: 0 });
    const names = [
      'mcp__toolmask__read_tool_output',
      'toolmask__read_tool_output',
      'toolmask_read_tool_output',
      'search_tool_outputs',
      'mcp__toolmask__search_tool_outputs',
      'toolmask_search_tool_outputs',
    ];
    const history = [
      ...names.flatMap((name) => exchange(name, { output: lines(400, name) })),
      ...exchange('run_shell_command', { output: `Output: ${lines(400, 'shell')}` }),
      { role: 'user', parts: [{ text: 'next' }] },
    ] satisfies Content[];
    const result = await service.mask(history, host);
    expect(result.maskedCount).toBe(1);
    for (const index of [1, 3, 5, 7, 9, 11])
      expect(responseOf(result.newHistory[index])).toBe(responseOf(history[index]));
    expect(isMaskedResponse(responseOf(result.newHistory[13]))).toBe(true);
  });

  it("leaves other hosts' markers alone: never counted, never masked, but a marker's shape around a giant output counts", async () => {
    const { service, host } = setup({ toolProtectionThreshold: 0, minPrunableTokensThreshold: 0 });
    const preview = lines(40, 'preview');
    const markers = [
      `<persisted-output>\nOutput too large (88.1KB). Full output saved to: /home/me/.claude/x.txt\n\nPreview (first 2KB):\n${preview}\n</persisted-output>`,
      `<truncated-output>\n${preview}\n</truncated-output>`,
      '[Old tool result content cleared]',
      `<tool_output_masked>\n${preview}\n</tool_output_masked>`,
    ];
    const history = [
      ...markers.flatMap((output) => exchange('run_shell_command', { output })),
      ...exchange('run_shell_command', {
        output: `<persisted-output>\n${lines(4_000, 'giant')}\n</persisted-output>`,
      }),
      { role: 'user', parts: [{ text: 'next' }] },
    ] satisfies Content[];
    const result = await service.mask(history, host);
    for (const index of [1, 3, 5, 7])
      expect(responseOf(result.newHistory[index])).toBe(responseOf(history[index]));
    expect(result.maskedCount).toBe(1);
    expect(isMaskedResponse(responseOf(result.newHistory[9]))).toBe(true);
    // Only the giant output was counted.
    expect(result.tokensBefore).toBeGreaterThan(10_000);
    const alone = await setup({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 0,
    }).service.mask([...history.slice(0, 8), history[10]!], host);
    expect(alone.maskedCount).toBe(0);
    expect(alone.tokensBefore).toBe(0);
  });

  it('leaves an output whole and writes no file when masking would not shrink it', async () => {
    const { service, host, memory } = setup({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 0,
    });
    const history = [
      ...exchange('run_shell_command', { output: 'Output: ok' }),
      { role: 'user', parts: [{ text: 'go on' }] },
    ] satisfies Content[];
    const result = await service.mask(history, host);
    expect(result.maskedCount).toBe(0);
    expect(result.newHistory).toBe(history);
    await expect(memory.promises.readdir(PROJECT_TEMP)).rejects.toThrow();
  });

  it('stops counting outputs it kept whole, so they cannot keep the prunable total up', async () => {
    const { service, host, memory } = setup({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 100,
    });
    // Twenty small outputs: prunable together, but each too small to be worth a snippet.
    const history: Content[] = [
      ...Array.from({ length: 20 }, (_, index) =>
        exchange('run_shell_command', { output: `Output: ok ${index}` }),
      ).flat(),
      { role: 'user', parts: [{ text: 'next' }] },
    ];
    const first = await service.mask(history, host);
    expect(first.totalPrunableTokens).toBeGreaterThanOrEqual(100);
    expect(first.maskedCount).toBe(0);
    await expect(memory.promises.readdir(PROJECT_TEMP)).rejects.toThrow();
    // Next pass: nothing prunable is left, so nothing triggers (before, every pass re-tried them).
    const second = await service.mask(history, host);
    expect(second.totalPrunableTokens).toBe(0);
    expect(second.tokensBefore).toBe(0);
  });

  it('keeps ids, names, sibling parts and nested functionResponse.parts intact', async () => {
    const { service, host } = setup({ toolProtectionThreshold: 0, minPrunableTokensThreshold: 0 });
    const image: Part = { inlineData: { mimeType: 'image/png', data: 'iVBORw0KGgo=' } };
    const note: Part = { text: 'screenshot attached' };
    const history: Content[] = [
      { role: 'model', parts: [{ functionCall: { id: 'shot-1', name: 'browser', args: {} } }] },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'shot-1',
              name: 'browser',
              response: { output: lines(400, 'dom') },
              parts: [{ inlineData: { mimeType: 'image/png', data: 'AAAA' } }],
            },
          },
          image,
          note,
        ],
      },
      { role: 'user', parts: [{ text: 'next' }] },
    ];
    const result = await service.mask(history, host);
    expect(result.maskedCount).toBe(1);
    const parts = result.newHistory[1]!.parts!;
    expect(parts[0]!.functionResponse!.id).toBe('shot-1');
    expect(parts[0]!.functionResponse!.name).toBe('browser');
    expect(parts[0]!.functionResponse!.parts).toEqual([
      { inlineData: { mimeType: 'image/png', data: 'AAAA' } },
    ]);
    expect(parts[1]).toBe(image);
    expect(parts[2]).toBe(note);
    expect(result.newHistory[0]).toBe(history[0]);
  });

  it('saves non-plain responses as pretty JSON', async () => {
    const { service, host, memory } = setup({
      toolProtectionThreshold: 0,
      minPrunableTokensThreshold: 0,
    });
    const response = {
      matches: Array.from({ length: 200 }, (_, index) => ({ file: `f${index}.ts`, line: index })),
    };
    const history = [
      ...exchange('grep_search', response),
      { role: 'user', parts: [{ text: 'next' }] },
    ] satisfies Content[];
    const result = await service.mask(history, host);
    expect(result.maskedCount).toBe(1);
    const saved = await memory.promises.readFile(result.offloaded[0]!.filePath, 'utf8');
    expect(JSON.parse(saved as string)).toEqual(response);
  });

  it('leaves an output unmasked when its write fails, masks the rest, and reports the failure', async () => {
    const memory = createFsFromVolume(new Volume());
    const real = createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem });
    let calls = 0;
    const flaky: ToolOutputStore = {
      save: async (directory, fileName, text) => {
        if (++calls === 1)
          throw Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
        return real.save(directory, fileName, text);
      },
    };
    const { service, host, events } = setup(
      { toolProtectionThreshold: 0, minPrunableTokensThreshold: 0 },
      flaky,
    );
    const history = bulkyHistory();
    const result = await service.mask(history, host);
    expect(result.failures).toEqual([
      expect.objectContaining({ code: 'ENOSPC', toolName: 'run_shell_command' }),
    ]);
    expect(responseOf(result.newHistory[2])).toBe(responseOf(history[2]));
    expect(result.maskedCount).toBe(3);
    expect(events[0]!.fields.failure_codes).toBe('ENOSPC');
  });

  it('does not throw when the settings cannot be read', async () => {
    const { service } = setup();
    const history = bulkyHistory();
    const result = await service.mask(history, {
      getToolOutputMaskingConfig: async () => {
        throw new Error('broken settings');
      },
      getSessionId: () => 's',
      storage: { getProjectTempDir: () => '/tmp' },
    });
    expect(result.newHistory).toBe(history);
    expect(result.failures[0]?.message).toBe('broken settings');
  });

  it('writes into a real temp dir', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-service-'));
    try {
      const service = new ToolOutputMaskingService({ telemetry: () => undefined });
      const host: MaskingHost = {
        getToolOutputMaskingConfig: async () =>
          resolveToolOutputMaskingConfig({
            warmRule: 'floor',
            toolProtectionThreshold: 0,
            minPrunableTokensThreshold: 0,
          }),
        getSessionId: () => 'real',
        storage: { getProjectTempDir: () => root },
      };
      const history = bulkyHistory();
      const result = await service.mask(history, host);
      expect(result.maskedCount).toBe(4);
      for (const item of result.offloaded) {
        expect(path.dirname(item.filePath)).toBe(path.join(root, 'tool-outputs', 'session-real'));
        expect(fs.statSync(item.filePath).mode & 0o777).toBe(0o600);
      }
      const first = result.offloaded[0]!;
      expect(fs.readFileSync(first.filePath, 'utf8')).toBe(responseOf(history[2])['output']);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  it('plans concurrent passes sharing the service one at a time (measuring gives the loop turns)', async () => {
    // Histories long enough that measuring them takes several stretches: two clients of one
    // installation asking at once must each get the plan of their own history.
    const longHistory = (tag: string, bulky: number) => {
      const history: Content[] = [{ role: 'user', parts: [{ text: `task ${tag}` }] }];
      for (let index = 0; index < 30_000; index++) {
        history.push(...exchange('list_directory', { output: `${tag} entry ${index}` }));
      }
      for (let index = 0; index < bulky; index++) {
        history.push(...exchange('read_file', { output: lines(300, `${tag} ${index}`) }));
      }
      history.push({ role: 'model', parts: [{ text: 'done' }] });
      return history;
    };
    const first = longHistory('a', 4);
    const second = longHistory('b', 7);
    const summary = (result: Awaited<ReturnType<ToolOutputMaskingService['mask']>>) => ({
      maskedCount: result.maskedCount,
      tokensBefore: result.tokensBefore,
      totalPrunableTokens: result.totalPrunableTokens,
      changedIndices: result.changedIndices,
    });
    const alone = [
      summary(await setup().service.mask(first, setup().host)),
      summary(await setup().service.mask(second, setup().host)),
    ];
    const { service, host } = setup();
    const together = await Promise.all([service.mask(first, host), service.mask(second, host)]);
    expect(together.map(summary)).toEqual(alone);
  });

  it('previews an output by its kind, from the call that produced it (issue 25)', async () => {
    const source = Array.from({ length: 300 }, (_, index) => {
      const code =
        index === 149 ? '    def compute(value):' : `        value_${index} = scale(${index})`;
      return `${String(index + 1).padStart(6)}\t${code}`;
    }).join('\n');
    const history: Content[] = [
      { role: 'user', parts: [{ text: 'fix the bug' }] },
      {
        role: 'model',
        parts: [
          { text: 'Let me read `compute`.' },
          {
            functionCall: {
              id: 'read-1',
              name: 'run_shell_command',
              args: { command: 'nl -ba src/app.py | sed -n 1,300p' },
            },
          },
        ],
      },
      {
        role: 'user',
        parts: [
          {
            functionResponse: {
              id: 'read-1',
              name: 'run_shell_command',
              response: { output: `Output: ${source}` },
            },
          },
        ],
      },
      { role: 'model', parts: [{ text: 'done' }] },
      { role: 'user', parts: [{ text: 'next' }] },
    ];
    const snippetOf = async (previewFamily?: 'head-and-tail') => {
      const memory = createFsFromVolume(new Volume());
      const service = new ToolOutputMaskingService({
        store: createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem }),
        telemetry: () => {},
        ...(previewFamily ? { _internal: { tuning: { previewFamily } } } : {}),
      });
      const { host } = setup({ toolProtectionThreshold: 0, minPrunableTokensThreshold: 0 });
      const result = await service.mask(history, host);
      return responseOf(result.newHistory[2])['output'] as string;
    };
    // A source read: an outline of numbered lines, the function the model named among them.
    const byKind = await snippetOf();
    expect(byKind).toContain('lines omitted; kept lines numbered');
    expect(byKind).toContain('\n150\t    def compute(value):\n151\t        value_150 = scale(150)');
    // The previews before issue 25: head and tail lines.
    const headAndTail = await snippetOf('head-and-tail');
    expect(headAndTail).not.toContain('kept lines numbered');
    expect(headAndTail).toMatch(/\[\.\.\. [\d,]+ of 300 lines omitted \.\.\.\]/);
  });
});

describe('ToolOutputMaskingService: superseded outputs first', () => {
  /** A shell call with a real command and a bulky output. */
  const step = (id: string, command: string, prefix: string): Content[] =>
    shellStep(id, command, `Output: ${lines(200, prefix)}`);
  // Every output fits in the window; `cat a.py` (index 2) is read again by s3, `pytest` (index 4)
  // runs again in s4.
  const history = (): Content[] => [
    { role: 'user', parts: [{ text: 'fix the bug' }] },
    ...step('s1', 'cat a.py', 'first'),
    ...step('s2', 'pytest -q', 'second'),
    ...step('s3', 'nl -ba a.py', 'third'),
    ...step('s4', 'pytest -q', 'fourth'),
    { role: 'user', parts: [{ text: 'go on' }] },
  ];

  it('masks them inside the window at a cold moment, says why in the snippet, counts them in the event', async () => {
    const { service, host, events } = setup({
      toolProtectionThreshold: 100_000,
      minPrunableTokensThreshold: 100_000,
    });
    const result = await service.mask(history(), host, { cacheLikelyCold: true });
    expect(result.trigger).toBe('cold_cache');
    expect(result.changedIndices).toEqual([2, 4]);
    expect(result.supersededCount).toBe(2);
    expect(result.offloaded.map((output) => output.superseded)).toEqual([
      { reason: 'read-again', callId: 's3' },
      { reason: 'rerun', callId: 's4' },
    ]);
    const snippet = responseOf(result.newHistory[2])['output'] as string;
    expect(snippet.split('\n')[1]).toBe('Superseded: this file was read again later (call s3).');
    expect(parseMaskedSnippet(snippet)).toBeDefined();
    expect((responseOf(result.newHistory[4])['output'] as string).split('\n')[1]).toBe(
      'Superseded: the same command ran again later (call s4).',
    );
    expect(events).toHaveLength(1);
    expect(events[0]!.fields.superseded_count).toBe(2);
    expect(events[0]!.toOpenTelemetryAttributes()).toMatchObject({ superseded_count: 2 });
  });

  it('leaves them whole while the cache is warm below the trigger, and when turned off', async () => {
    const warm = setup({ toolProtectionThreshold: 100_000, minPrunableTokensThreshold: 100_000 });
    expect((await warm.service.mask(history(), warm.host)).maskedCount).toBe(0);
    // They count toward the warm trigger: above it, a warm pass masks them.
    const counted = setup({ toolProtectionThreshold: 100_000, minPrunableTokensThreshold: 1_000 });
    const triggered = await counted.service.mask(history(), counted.host);
    expect(triggered.trigger).toBe('threshold');
    expect(triggered.supersededCount).toBe(2);
    const memory = createFsFromVolume(new Volume());
    const off = new ToolOutputMaskingService({
      store: createFileToolOutputStore({ fs: memory as unknown as StoreFileSystem }),
      telemetry: () => {},
      _internal: { tuning: { supersededReasons: [] } },
    });
    const { host } = setup({
      toolProtectionThreshold: 100_000,
      minPrunableTokensThreshold: 100_000,
    });
    const result = await off.mask(history(), host, { cacheLikelyCold: true });
    expect(result.maskedCount).toBe(0);
    expect(result.supersededCount).toBe(0);
  });
});
