import { describe, expect, it } from 'vitest';
import { wrapText } from './wrap-text.js';

describe('wrapText', () => {
  it('wraps at word boundaries and indents the lines after the first', () => {
    expect(wrapText('one two three four five', 9, '  ')).toEqual([
      'one two',
      '  three',
      '  four',
      '  five',
    ]);
    expect(wrapText('short', 80)).toEqual(['short']);
    expect(wrapText('averyveryverylongword next', 5)).toEqual(['averyveryverylongword', 'next']);
  });
});
