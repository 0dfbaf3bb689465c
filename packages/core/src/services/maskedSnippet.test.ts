import { describe, expect, it } from 'vitest';
import { formatMaskedSnippet, isMaskedResponse, parseMaskedSnippet } from './maskedSnippet.js';

const fields = {
  lines: 120,
  bytes: 4096,
  filePath: '/tmp/p/tool-outputs/session-s/run_shell_command_call-1_0123456789abcdef.txt',
  preview: 'Output:\nfirst\n[... 118 of 120 lines omitted ...]\nlast',
};

describe('masked snippets', () => {
  it('round-trips the header fields and ends with the closing tag', () => {
    const snippet = formatMaskedSnippet(fields);
    expect(snippet.startsWith('<tool_output_masked lines="120" bytes="4096" file="/tmp/')).toBe(
      true,
    );
    expect(snippet.endsWith('</tool_output_masked>')).toBe(true);
    expect(parseMaskedSnippet(snippet)).toEqual({
      lines: 120,
      bytes: 4096,
      filePath: fields.filePath,
    });
  });

  it('escapes attribute values so odd names cannot break the header', () => {
    const snippet = formatMaskedSnippet({
      ...fields,
      filePath: '/x/"q"<b>\n.txt',
    });
    expect(parseMaskedSnippet(snippet)?.filePath).toBe('/x/"q"<b> .txt');
    expect(snippet.split('\n')[0]).not.toContain('\n');
  });

  it('is structural: an output that merely quotes the tag is not masked', () => {
    const quoting = `const tag = '<tool_output_masked>';\n// ... </tool_output_masked>`;
    expect(isMaskedResponse({ output: quoting })).toBe(false);
    expect(
      isMaskedResponse({
        output: `<tool_output_masked>\nold gemini-cli style\n</tool_output_masked>`,
      }),
    ).toBe(false);
    const snippet = formatMaskedSnippet(fields);
    expect(isMaskedResponse({ output: snippet })).toBe(true);
    // Extra keys, or text after the closing tag, are not our shape.
    expect(isMaskedResponse({ output: snippet, extra: 1 })).toBe(false);
    expect(isMaskedResponse({ output: `${snippet}\nmore` })).toBe(false);
    expect(isMaskedResponse(null)).toBe(false);
    expect(isMaskedResponse(snippet)).toBe(false);
  });
});
