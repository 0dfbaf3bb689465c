import { describe, expect, it } from 'vitest';
import {
  formatMaskedSnippet,
  isMaskedResponse,
  parseMaskedSnippet,
  readBackHint,
  searchToolNameBeside,
} from './maskedSnippet.js';

const fields = {
  lines: 120,
  bytes: 4096,
  filePath: '/tmp/p/tool-outputs/session-s/run_shell_command_call-1_0123456789abcdef.txt',
  preview: 'Output:\nfirst\n[... 118 of 120 lines omitted ...]\nlast',
};

describe('masked snippets', () => {
  it('closes with the read-back tool alone, or with the search beside it when the host offers it', () => {
    expect(formatMaskedSnippet(fields).split('\n').at(-2)).toBe(
      'Full output: read_tool_output(file, offset, limit, pattern).',
    );
    const withSearch = formatMaskedSnippet(fields, 'read_tool_output', 'search_tool_outputs');
    expect(withSearch.split('\n').at(-2)).toBe(
      'Full output: read_tool_output(file, offset, limit, pattern) or search_tool_outputs(query).',
    );
    expect(parseMaskedSnippet(withSearch)?.filePath).toBe(fields.filePath);
    expect(
      readBackHint('mcp__toolmask__read_tool_output', 'mcp__toolmask__search_tool_outputs'),
    ).toBe(
      'Full output: mcp__toolmask__read_tool_output(file, offset, limit, pattern) or mcp__toolmask__search_tool_outputs(query).',
    );
  });

  it("names the search with the read-back tool's prefix, and none beside a tool named otherwise", () => {
    expect(searchToolNameBeside('read_tool_output')).toBe('search_tool_outputs');
    expect(searchToolNameBeside('mcp_toolmask_read_tool_output')).toBe(
      'mcp_toolmask_search_tool_outputs',
    );
    expect(searchToolNameBeside('toolmask_read_tool_output')).toBe('toolmask_search_tool_outputs');
    expect(searchToolNameBeside('fetch_saved_output')).toBeUndefined();
  });

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

  it('puts a superseded note on its own line before the preview, and still parses', () => {
    const note = 'Superseded: this file was read again later (call c9).';
    const snippet = formatMaskedSnippet({ ...fields, note: `${note}\n</tool_output_masked>` });
    const lines = snippet.split('\n');
    expect(lines[1]).toBe(`${note} </tool_output_masked>`);
    expect(lines[2]).toBe('Output:');
    expect(parseMaskedSnippet(snippet)).toEqual({
      lines: 120,
      bytes: 4096,
      filePath: fields.filePath,
    });
    expect(isMaskedResponse({ output: formatMaskedSnippet({ ...fields, note }) })).toBe(true);
  });

  it('escapes only what would break the header, and every path round-trips', () => {
    const filePath = '/x/"q"<b>\n&amp;\r.txt';
    const snippet = formatMaskedSnippet({ ...fields, filePath });
    expect(snippet.split('\n')[0]).toBe(
      '<tool_output_masked lines="120" bytes="4096" file="/x/&quot;q&quot;<b>&#10;&amp;amp;&#13;.txt">',
    );
    expect(parseMaskedSnippet(snippet)?.filePath).toBe(filePath);
  });

  it('writes &, <, spaces and non-ASCII as they are, so the model copies a path that works', () => {
    const filePath = '/home/R&D <team>/Données 😀/tool-outputs/session-s/x.c.0123456789abcdef.txt';
    const snippet = formatMaskedSnippet({ ...fields, filePath });
    expect(snippet.split('\n')[0]).toContain(`file="${filePath}">`);
    expect(parseMaskedSnippet(snippet)?.filePath).toBe(filePath);
  });

  it('reads the file attribute of older snippets, which escaped every &, < and >', () => {
    const old = `<tool_output_masked lines="1" bytes="2" file="/a&amp;b/&lt;c&gt;/&quot;d&quot;.txt">\nx\n</tool_output_masked>`;
    expect(parseMaskedSnippet(old)?.filePath).toBe('/a&b/<c>/"d".txt');
  });

  it('never holds a lone surrogate, even when the tool wrote one (issue 15, item 4)', () => {
    const snippet = formatMaskedSnippet({ ...fields, preview: 'half \ud83d of an emoji' });
    expect((snippet as unknown as { isWellFormed(): boolean }).isWellFormed()).toBe(true);
    expect(snippet).toContain('half \ufffd of an emoji');
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
