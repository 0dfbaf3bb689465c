import { describe, expect, it } from 'vitest';
import { ToolOutputMaskingService, type Content } from '@toolmask/core';
import { DecisionLog, decisionsOfPass } from './decision-log.js';
import { outputKey } from './output-key.js';

/** An entry whose one output counts how often its response is written as JSON (hashed). */
function countingEntry(): { content: Content; written: () => number } {
  let written = 0;
  const response = {
    output: 'x'.repeat(100),
    toJSON() {
      written++;
      return { output: this.output };
    },
  };
  const content = {
    role: 'user',
    parts: [{ functionResponse: { name: 'run_shell_command', id: 'c1', response } }],
  } as Content;
  return { content, written: () => written };
}

describe('DecisionLog.apply', () => {
  it('hashes no output while nothing is decided (a cold request: issue 30)', () => {
    const log = new DecisionLog(new ToolOutputMaskingService());
    const { content, written } = countingEntry();
    expect(log.apply(content, 0)).toBe(content);
    expect(written()).toBe(0);
  });

  it('hashes no output whose tool and call id no decision has (a known conversation: issue 30)', () => {
    const log = new DecisionLog(new ToolOutputMaskingService());
    const other = countingEntry();
    const otherResponse = other.content.parts?.[0]?.functionResponse ?? {};
    log.remember({
      kind: 'kept',
      key: outputKey({ ...otherResponse, id: 'c0' }),
      toolName: 'run_shell_command',
      callId: 'c0',
      at: 0,
    });
    const { content, written } = countingEntry();
    expect(log.apply(content, 0)).toBe(content);
    expect(written()).toBe(0);
  });

  it('applies a masked record by its key once there is one', () => {
    const log = new DecisionLog(new ToolOutputMaskingService());
    const { content, written } = countingEntry();
    const functionResponse = content.parts?.[0]?.functionResponse ?? {};
    log.remember({
      kind: 'masked',
      key: outputKey(functionResponse),
      toolName: 'run_shell_command',
      callId: 'c1',
      response: { output: 'snippet' },
      filePath: '/tmp/x.txt',
      bytes: 100,
      tokensBefore: 30,
      tokensAfter: 5,
      outputsAfter: 0,
      at: 0,
    });
    expect(written()).toBe(1);
    const applied = log.apply(content, 0);
    expect(applied.parts?.[0]?.functionResponse?.response).toEqual({ output: 'snippet' });
  });
});

describe('DecisionLog.index', () => {
  it('leaves the decisions it has not reached yet in use while it gives the loop a turn', async () => {
    const log = new DecisionLog(new ToolOutputMaskingService());
    const entry = (id: string, output: string): Content => ({
      role: 'user',
      parts: [{ functionResponse: { name: 'run_shell_command', id, response: { output } } }],
    });
    const kept = entry('k1', 'kept whole');
    const masked = entry('m1', 'y'.repeat(200));
    const keyOf = (content: Content) => outputKey(content.parts?.[0]?.functionResponse ?? {});
    log.use({ kind: 'kept', key: keyOf(kept), toolName: 'run_shell_command', callId: 'k1', at: 0 });
    log.use({
      kind: 'masked',
      key: keyOf(masked),
      toolName: 'run_shell_command',
      callId: 'm1',
      response: { output: 'snippet' },
      filePath: '/tmp/m1.txt',
      bytes: 200,
      tokensBefore: 60,
      tokensAfter: 5,
      outputsAfter: 0,
      at: 0,
    });
    // A pauser due after every record: `index` stops after the first (the kept one) until let go.
    let resume = () => {};
    const pause = Object.assign(() => new Promise<void>((resolve) => (resume = resolve)), {
      due: () => true,
    });
    const indexing = log.index(pause);
    // Meanwhile (the conversation's next request, a countTokens): the masked decision is known.
    expect(log.hasMasked).toBe(true);
    expect(log.apply(masked, 0).parts?.[0]?.functionResponse?.response).toEqual({
      output: 'snippet',
    });
    resume();
    await indexing;
    expect(log.apply(masked, 0).parts?.[0]?.functionResponse?.response).toEqual({
      output: 'snippet',
    });
  });
});

describe('decisionsOfPass', () => {
  it('reads no entry of a pass that decided nothing (issue 30)', async () => {
    let reads = 0;
    const entry = (): Content => ({
      role: 'user',
      get parts() {
        reads++;
        return [{ functionResponse: { name: 'run_shell_command', id: 'c', response: {} } }];
      },
    });
    const before = [entry(), entry(), entry()];
    const result = { changedIndices: [], offloaded: [], keptWhole: [] };
    const pause = Object.assign(async () => undefined, { due: () => false });
    expect(await decisionsOfPass({ before, after: before, result }, 0, pause)).toEqual([]);
    expect(reads).toBe(0);
  });
});
