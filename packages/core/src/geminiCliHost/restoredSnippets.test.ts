import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RestoredSnippets } from './restoredSnippets.js';
import type { Content, MaskingHost } from '../services/maskingTypes.js';
import { ToolOutputMaskingService } from '../services/toolOutputMaskingService.js';
import { formatMaskedSnippet } from '../services/maskedSnippet.js';
import { resolveToolOutputMaskingConfig } from '../config/toolOutputMaskingSettings.js';

let root: string;
let host: MaskingHost;
let file: string;

beforeEach(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'toolmask-restored-')));
  const folder = path.join(root, 'tool-outputs', 'session-s');
  fs.mkdirSync(folder, { recursive: true });
  file = path.join(folder, 'run_shell_command.c1.0123456789abcdef.txt');
  fs.writeFileSync(file, 'x'.repeat(5_000));
  // Every limit at its lowest: anything counted and not masked already would be masked now.
  const config = resolveToolOutputMaskingConfig({
    toolProtectionThreshold: 0,
    minPrunableTokensThreshold: 0,
    maxOutputTokens: 1,
    protectLatestTurn: false,
  });
  host = {
    getToolOutputMaskingConfig: async () => config,
    getSessionId: () => 's',
    storage: { getProjectTempDir: () => root },
  };
});

afterEach(() => fs.rmSync(root, { recursive: true, force: true }));

function outsideFile(): string {
  const outside = path.join(root, 'elsewhere.txt');
  fs.writeFileSync(outside, 'y');
  return outside;
}

const snippetOf = (filePath: string, bytes: number, preview = 'x…') =>
  formatMaskedSnippet({ lines: 1, bytes, filePath, preview });

function historyOf(...outputs: string[]): Content[] {
  return outputs.map((output, i) => ({
    role: 'user',
    parts: [{ functionResponse: { id: `r${i}`, name: 'run_shell_command', response: { output } } }],
  }));
}

describe('snippets a resumed history brings back', () => {
  it('are recorded as the service’s own when provably ours: never counted, never masked again', async () => {
    const service = new ToolOutputMaskingService({ telemetry: () => undefined });
    const history = historyOf(
      snippetOf(file, 5_000, 'a preview\nwith lines\nthat a second mask would shorten'),
    );
    new RestoredSnippets(service, () => root).inspect({}, history);
    const result = await service.mask(history, host);
    expect(result.newHistory).toBe(history);
    expect(result.tokensBefore).toBe(0);
  });

  it.each([
    ['a wrong size', () => snippetOf(file, 4_999)],
    ['a file outside the tool-outputs folder', () => snippetOf(outsideFile(), 1)],
    [
      'a missing file',
      () => snippetOf(path.join(path.dirname(file), 'gone.c2.0123456789abcdef.txt'), 5),
    ],
    [
      'a text longer than any snippet toolmask writes',
      () => snippetOf(file, 5_000, 'z'.repeat(40_000)),
    ],
  ])(
    'a lookalike with %s is an ordinary output, counted at its real size',
    async (_what, output) => {
      const service = new ToolOutputMaskingService({ telemetry: () => undefined });
      const history = historyOf(output());
      new RestoredSnippets(service, () => root).inspect({}, history);
      const result = await service.mask(history, host);
      expect(result.tokensBefore).toBeGreaterThan(0);
    },
  );
});
