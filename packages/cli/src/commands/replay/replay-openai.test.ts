/**
 * `toolmask replay` on OpenAI-style transcripts (qwen-code's chat completions): a request body
 * `{ messages }` and a bare message array, compared with none and toolmask, priced with the
 * cached tokens the provider recorded where present.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { ReplayReport } from '../../render/replay-report.js';
import { runCliCaptured } from '../../test-data/run-cli.js';

const work = mkdtempSync(join(tmpdir(), 'toolmask-replay-openai-'));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Prompt tokens a provider would report for the first `messages` (4 characters a token). */
const wireTokens = (messages: readonly unknown[]) => Math.ceil(JSON.stringify(messages).length / 4);

/**
 * A qwen-code-like session: `calls` shell calls with 12,000-character outputs. Each answer carries
 * the usage of the request that produced it; the provider cached the whole previous request,
 * except `missedRequests`, where it reported nothing cached.
 */
function qwenSession(calls: number, missedRequests: ReadonlySet<number> = new Set()): unknown[] {
  const messages: unknown[] = [
    { role: 'system', content: 'You are Qwen Code, an interactive CLI agent.' },
    { role: 'user', content: [{ type: 'text', text: 'Find why the build fails.' }] },
  ];
  let previousPrompt = 0;
  for (let call = 0; call <= calls; call++) {
    const prompt = wireTokens(messages);
    const usage = {
      prompt_tokens: prompt,
      completion_tokens: 20,
      prompt_tokens_details: { cached_tokens: missedRequests.has(call) ? 0 : previousPrompt },
    };
    previousPrompt = prompt;
    if (call === calls) {
      messages.push({ role: 'assistant', content: 'The linker flag is missing.', usage });
      break;
    }
    const id = `call_${call}`;
    messages.push({
      role: 'assistant',
      content: '',
      reasoning_content: 'Look at the next log.',
      tool_calls: [
        {
          id,
          type: 'function',
          function: { name: 'run_shell_command', arguments: `{"command":"make step${call}"}` },
        },
      ],
      usage,
    });
    const lines = Array.from({ length: 300 }, (_, line) => `step${call} line ${line}: cc -c ok`);
    messages.push({ role: 'tool', tool_call_id: id, content: lines.join('\n').padEnd(12_000) });
  }
  return messages;
}

async function replayJson(file: string): Promise<ReplayReport> {
  const run = await runCliCaptured(['replay', '--json', '--strategies', 'none,toolmask', file]);
  expect(run.stderr).toBe('');
  expect(run.code).toBe(0);
  return JSON.parse(run.stdout) as ReplayReport;
}

describe('toolmask replay on OpenAI-style transcripts', () => {
  it('a request body: toolmask masks old tool messages; a long session bills less than none', async () => {
    // 80 calls: long enough that the cache breaks of masking pay for themselves. (At 20 calls
    // with a provider that caches everything, the same settings bill about 25% more than none.)
    const file = join(work, 'qwen-body.json');
    const body = { model: 'qwen3-coder-plus', stream: true, messages: qwenSession(80) };
    writeFileSync(file, JSON.stringify(body));
    const report = await replayJson(file);
    const [none, toolmask] = report.strategies;
    expect(none!.summary.requestCount).toBe(81);
    expect(toolmask!.summary.outputsMasked).toBeGreaterThan(0);
    expect(toolmask!.summary.peakContextTokens).toBeLessThan(none!.summary.peakContextTokens / 2);
    expect(toolmask!.summary.billedTokens).toBeLessThan(none!.summary.billedTokens);
    expect(report.pricing.recorded).toMatchObject({ requests: 81, pricedFromRecord: 81 });
  });

  it('prices the recorded cache misses as misses, for none and toolmask alike', async () => {
    const file = join(work, 'qwen-messages.json');
    writeFileSync(file, JSON.stringify(qwenSession(20, new Set([5, 12]))));
    const report = await replayJson(file);
    for (const strategy of report.strategies) {
      expect(strategy.requests[5]!.cachedTokens).toBe(0);
      expect(strategy.requests[12]!.cachedTokens).toBe(0);
      // The prefix model alone would have cached these requests' whole previous request.
      expect(strategy.requests[5]!.cacheCold).toBe(false);
    }
    const none = report.strategies[0]!.requests;
    // Elsewhere the provider cached all of the previous request: none is cached nearly all of
    // it (the record scaled to the estimator's units, capped at the previous request).
    for (const index of [2, 8, 19]) {
      expect(none[index]!.cachedTokens).toBeGreaterThan(0);
      expect(none[index]!.cachedTokens).toBeLessThanOrEqual(none[index - 1]!.contextTokens);
      expect(none[index]!.cachedTokens).toBeGreaterThan(0.9 * none[index - 1]!.contextTokens);
    }
  });

  it('the text output says what the provider recorded and how it was used', async () => {
    const file = join(work, 'qwen-text.json');
    writeFileSync(file, JSON.stringify(qwenSession(20)));
    const run = await runCliCaptured(['replay', '--no-chart', file]);
    expect(run.code).toBe(0);
    expect(run.stdout.replace(/\s+/g, ' ')).toMatch(
      /recorded usage: 21 requests carry the provider's usage, [\d,]+ prompt tokens \(the estimator counts [\d,]+ for the same requests\); 21 of them reported cached tokens/,
    );
  });

  it('a tool message whose call was never announced is named in a warning, and still plays', async () => {
    const file = join(work, 'qwen-orphan.json');
    const messages = qwenSession(20);
    messages.splice(3, 0, { role: 'tool', tool_call_id: 'nobody', content: 'stray' });
    writeFileSync(file, JSON.stringify(messages));
    const run = await runCliCaptured(['replay', '--json', file]);
    expect(run.code).toBe(0);
    expect(run.stderr).toMatch(/tool_call_id no assistant message announced/);
  });

  it('a message that is not a chat message: one line naming the file and the message, exit 2', async () => {
    const file = join(work, 'qwen-bad.json');
    writeFileSync(file, JSON.stringify({ messages: [{ role: 'user', content: 'x' }, 42] }));
    const run = await runCliCaptured(['replay', file]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe(
      `toolmask: ${file}: not an OpenAI-style transcript: message 1: expected an object with role system, developer, user, assistant or tool\n`,
    );
  });
});
