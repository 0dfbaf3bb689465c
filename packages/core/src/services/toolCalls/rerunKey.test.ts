import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { rerunKeyOf, shellRerunKey } from './rerunKey.js';

describe('shellRerunKey (issue 30)', () => {
  it('is rerunKeyOf of the command and directory, whatever they hold (property)', () => {
    fc.assert(
      fc.property(
        fc.constantFrom('run_shell_command', 'Bash', 'shell_command', 'x"y\u0000'),
        fc.oneof(fc.string({ maxLength: 80 }), fc.string({ minLength: 500, maxLength: 700 })),
        fc.option(fc.string({ maxLength: 30 }), { nil: null }),
        (name, command, directory) => {
          expect(shellRerunKey(name, command, directory)).toBe(
            rerunKeyOf(name, { command, directory }),
          );
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('hashes a long key as rerunKeyOf does', () => {
    const command = `cat <<'EOF' > f.py\n${'x = 1\n'.repeat(200)}EOF`;
    expect(shellRerunKey('bash', command, '/testbed')).toMatch(/^#[0-9a-f]{64}$/);
    expect(shellRerunKey('bash', 'ls "a b"', null)).toBe(
      'bash\u0000{"command":"ls \\"a b\\"","directory":null}',
    );
  });
});
