/**
 * `clientOf` on the user agents the real binaries sent to a loopback fake (claude 2.1.328 headless
 * and interactive, codex 0.169.0 `exec` and its terminal UI, opencode 1.18.33 `run`, gemini 0.61.0,
 * qwen 0.24.4), and on agents that only look alike.
 */
import { describe, expect, it } from 'vitest';
import { clientOf } from './usage-record.js';

describe('clientOf', () => {
  it.each([
    ['GeminiCLI-tui/0.61.0/gemini-2.5-flash (linux; x64; terminal)', 'gemini-cli'],
    ['QwenCode/0.24.4 (linux; x64)', 'qwen-code'],
    ['claude-cli/2.1.328 (external, sdk-cli)', 'claude-code'],
    ['claude-cli/2.1.328 (external, cli)', 'claude-code'],
    ['codex_exec/0.169.0 (Debian 12.0.0; x86_64) unknown (codex_exec; 0.169.0)', 'codex'],
    ['codex-tui/0.169.0 (Debian 12.0.0; x86_64) xterm-256color (codex-tui; 0.169.0)', 'codex'],
    ['opencode/1.18.33 ai-sdk/provider-utils/4.0.23 runtime/bun/1.3.14', 'opencode'],
  ])('%s is %s', (userAgent, client) => {
    expect(clientOf(userAgent)).toBe(client);
  });

  it.each([
    undefined,
    '',
    'Bun/1.4.4', // claude's reachability probe (HEAD /api/hello), not a model request
    'curl/8.5.0',
    'my-claude-cli/1.0',
    'codexproxy/2.0',
    'opencodex/1.0',
  ])('%s is other', (userAgent) => {
    expect(clientOf(userAgent)).toBe('other');
  });
});
