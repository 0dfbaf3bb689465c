import { createHash } from 'node:crypto';
import * as path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  hashText,
  isOutputOfCall,
  outputFileName,
  parseOutputFileName,
  sanitizeNameComponent,
  sessionDirectory,
  sessionFolderName,
  sessionIdOfFolder,
} from './outputLayout.js';

describe('output file names', () => {
  it('are content-addressed and sanitized', () => {
    const a = outputFileName('run_shell_command', 'call-1', 'hello');
    expect(a).toMatch(/^run_shell_command\.call-1\.[0-9a-f]{16}\.txt$/);
    expect(outputFileName('run_shell_command', 'call-1', 'hello')).toBe(a);
    expect(outputFileName('run_shell_command', 'call-1', 'hello!')).not.toBe(a);
  });

  it.each([
    ['../../etc/passwd'],
    ['/absolute/path'],
    ['a\u0000b'],
    ['x'.repeat(10_000)],
    ['CON'],
    ['..'],
    [''],
  ])('cannot leave the folder for the id %j', (callId) => {
    const name = outputFileName('tool', callId, 'text');
    expect(name).toBe(path.basename(name));
    expect(name).not.toContain('..');
    expect(name).not.toContain('\u0000');
    expect(name.startsWith('.')).toBe(false);
    expect(name.length).toBeLessThan(140);
  });

  it('never names a Windows device, whatever the extension', () => {
    for (const device of ['CON', 'nul', 'Com1', 'LPT9', 'aux', 'PRN']) {
      const name = outputFileName(device, device, 'text');
      expect(name.split('.')[0]?.toUpperCase()).not.toBe(device.toUpperCase());
    }
  });

  it('keeps non-string names safe and never empty', () => {
    expect(sanitizeNameComponent(42, 'fallback')).toBe('fallback');
    expect(sanitizeNameComponent('///', 'fallback')).toBe('_');
    expect(sessionDirectory('/p', '../x')).toBe(path.join('/p', 'tool-outputs', 'session-_x'));
  });

  it('sanitize a name as the three expressions do, clean names kept as they are (property)', () => {
    const byExpressions = (text: string, fallback: string) => {
      const cleaned = text
        .replace(/[^A-Za-z0-9_-]+/g, '_')
        .slice(0, 48)
        .replace(/_+/g, '_');
      if (cleaned.length === 0) return fallback;
      return /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i.test(cleaned) ? `${cleaned}_` : cleaned;
    };
    const names = fc.oneof(
      fc.string(),
      fc.stringMatching(/^[A-Za-z0-9_-]{0,60}$/),
      fc.constantFrom('', '_', '__', 'a__b', 'a_b', 'x'.repeat(48), 'x'.repeat(49), 'nul', 'LPT1'),
    );
    fc.assert(
      fc.property(names, (name) => {
        expect(sanitizeNameComponent(name, 'f')).toBe(byExpressions(name, 'f'));
      }),
    );
  });

  it('hash the UTF-8 text, a lone surrogate as U+FFFD, as a SHA-256 object does', () => {
    for (const text of ['', 'hello', 'a\ud800b', '\udc00', `${'x'.repeat(70_000)}\ud83d\ude00`]) {
      expect(hashText(text)).toBe(createHash('sha256').update(text, 'utf8').digest('hex'));
    }
  });

  it('parse back into tool, call id and hash, whatever the tool and call id (property)', () => {
    fc.assert(
      fc.property(fc.string(), fc.string(), fc.string(), (tool, callId, text) => {
        const name = outputFileName(tool, callId, text);
        const parsed = parseOutputFileName(name);
        expect(parsed).toEqual({
          tool: sanitizeNameComponent(tool, 'tool'),
          callId: sanitizeNameComponent(callId, 'call'),
          hash: expect.stringMatching(/^[0-9a-f]{16}$/),
        });
        expect(isOutputOfCall(name, callId)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it('keeps tool names and call ids with underscores apart', () => {
    const name = outputFileName('run_shell_command', 'astropy__astropy-14369#0', 'x');
    expect(parseOutputFileName(name)).toMatchObject({
      tool: 'run_shell_command',
      callId: 'astropy_astropy-14369_0',
    });
    expect(isOutputOfCall(name, 'astropy__astropy-14369#0')).toBe(true);
    expect(isOutputOfCall(name, 'astropy-14369#0')).toBe(false);
  });

  it("finds a call by the id the model saw: core keeps '<tool>__<id>', sends '<id>'", () => {
    const name = outputFileName('run_shell_command', 'run_shell_command__call-1', 'x');
    expect(isOutputOfCall(name, 'call-1')).toBe(true);
    expect(isOutputOfCall(name, 'run_shell_command__call-1')).toBe(true);
    expect(isOutputOfCall(name, 'call-2')).toBe(false);
    expect(
      isOutputOfCall(outputFileName('read_file', 'run_shell_command__call-1', 'x'), 'call-1'),
    ).toBe(false);
  });

  it('parse nothing else', () => {
    for (const other of [
      'run_shell_command_call-1_0123456789abcdef.txt', // an older toolmask name
      'read_file_c1_k3j9x.txt', // gemini-cli's own
      '.run_shell_command.c.0123456789abcdef.txt.1.ab.tmp',
      'a.b.0123456789ABCDEF.txt',
      'a.b.c.0123456789abcdef.txt',
    ]) {
      expect(parseOutputFileName(other), other).toBeUndefined();
    }
  });
});

describe('session folders', () => {
  it('round-trip a sanitized session id', () => {
    fc.assert(
      fc.property(fc.string(), (sessionId) => {
        expect(sessionIdOfFolder(sessionFolderName(sessionId))).toBe(
          sanitizeNameComponent(sessionId, 'unknown'),
        );
      }),
    );
    expect(sessionIdOfFolder('session-')).toBeUndefined();
    expect(sessionIdOfFolder('other')).toBeUndefined();
  });
});
