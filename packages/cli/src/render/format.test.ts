import { describe, expect, it, vi } from 'vitest';
import {
  formatAge,
  formatBytes,
  formatChange,
  formatInteger,
  formatMilliseconds,
} from './format.js';
import { renderTextTable } from './text-table.js';

describe('number formats', () => {
  it('uses thousands separators', () => {
    expect(formatInteger(1234567.4)).toBe('1,234,567');
    expect(formatMilliseconds(9.64)).toBe('9.6 ms');
    expect(formatMilliseconds(12345.6)).toBe('12,346 ms');
    expect(formatChange(74, 100)).toBe('-26.0%');
    expect(formatChange(100, 0)).toBe('');
    expect(formatBytes(1536)).toBe('1.5 KiB');
    expect(formatAge(3 * 86_400_000 + 5)).toBe('3d');
    expect(formatAge(90_000)).toBe('1m');
  });

  it('right-aligns numbers in text tables, ignoring color codes', () => {
    const table = renderTextTable([
      ['', '\u001b[36mnone\u001b[0m'],
      ['requests', '5,036'],
      ['cache breaks', '0'],
    ]);
    const ansi = new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g');
    expect(table.replace(ansi, '')).toBe(
      ['               none', 'requests      5,036', 'cache breaks      0'].join('\n'),
    );
  });
});

describe('loading the number formats', () => {
  it('starts no Intl.NumberFormat until a number is formatted (ICU is ~30 ms of start-up)', async () => {
    const Original = Intl.NumberFormat;
    let made = 0;
    const Counting = class extends Original {
      constructor(...args: ConstructorParameters<typeof Original>) {
        super(...args);
        made += 1;
      }
    };
    Object.defineProperty(Intl, 'NumberFormat', {
      value: Counting,
      configurable: true,
      writable: true,
    });
    try {
      vi.resetModules();
      const fresh = await import('./format.js');
      expect(made).toBe(0);
      expect(fresh.formatInteger(1234)).toBe('1,234');
      expect(fresh.formatInteger(5678)).toBe('5,678');
      expect(made).toBe(1);
    } finally {
      Object.defineProperty(Intl, 'NumberFormat', {
        value: Original,
        configurable: true,
        writable: true,
      });
    }
  });
});
