import { describe, expect, it } from 'vitest';
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
