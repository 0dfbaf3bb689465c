/**
 * JSON with comments, as gemini-cli reads settings.json: `//` and `/* *\/` comments and trailing
 * commas are allowed. They are blanked out (strings left intact, line and column positions kept)
 * and the rest goes to JSON.parse, so its error positions still point into the original text.
 */

/** End index (exclusive) of the string literal that starts at `start` (a `"`). */
function stringEnd(text: string, start: number): number {
  let end = start + 1;
  while (end < text.length && text[end] !== '"') end += text[end] === '\\' ? 2 : 1;
  return Math.min(end + 1, text.length);
}

function blankComments(text: string): string {
  let out = '';
  let index = 0;
  while (index < text.length) {
    const char = text[index] as string;
    const next = text[index + 1];
    if (char === '"') {
      const end = stringEnd(text, index);
      out += text.slice(index, end);
      index = end;
    } else if (char === '/' && (next === '/' || next === '*')) {
      const close = next === '/' ? text.indexOf('\n', index) : text.indexOf('*/', index + 2);
      const end = close === -1 ? text.length : next === '/' ? close : close + 2;
      out += text.slice(index, end).replace(/[^\n]/g, ' ');
      index = end;
    } else {
      out += char;
      index++;
    }
  }
  return out;
}

function blankTrailingCommas(text: string): string {
  const chars = text.split('');
  let index = 0;
  while (index < text.length) {
    const char = text[index];
    if (char === '"') {
      index = stringEnd(text, index);
      continue;
    }
    if (char === ',') {
      let ahead = index + 1;
      while (ahead < text.length && /\s/.test(text[ahead] as string)) ahead++;
      if (text[ahead] === '}' || text[ahead] === ']') chars[index] = ' ';
    }
    index++;
  }
  return chars.join('');
}

export function parseJsonc(text: string): unknown {
  return JSON.parse(blankTrailingCommas(blankComments(text)));
}
