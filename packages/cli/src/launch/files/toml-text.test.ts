import { describe, expect, it } from 'vitest';
import { scanToml, stringValue, TomlScanError, type TomlPair } from './toml-scanner.js';
import { removeTopLevel, setTopLevel } from './toml-text.js';

const TRICKY = `# a [not.a.table] in a comment
name = "a = [b]" # c
"quoted.key" = 'lit # not a comment'
dotted.key = 1979-05-27 07:32:00Z
multi = """
[fake.header]
key = "x"
""" # end
lines = [
  "one", # comment
  ['two'],
]
inline = { a = 1, b = { c = "}" } }

[[servers]]
url = '''raw \\no escape'''

[a."b.c".d]
x = true
`;

describe('the TOML scanner and text edits', () => {
  it('scans headers and pairs, never taking a string, comment or array for one', () => {
    const statements = scanToml(TRICKY);
    const shown = statements.map((statement) =>
      statement.kind === 'pair'
        ? `${statement.table.join('.')}|${statement.key.join('.')}=${TRICKY.slice(statement.valueStart, statement.valueEnd)}`
        : `${statement.kind} ${JSON.stringify(statement.path)}`,
    );
    expect(shown).toEqual([
      '|name="a = [b]"',
      "|quoted.key='lit # not a comment'",
      '|dotted.key=1979-05-27 07:32:00Z',
      '|multi="""\n[fake.header]\nkey = "x"\n"""',
      `|lines=[\n  "one", # comment\n  ['two'],\n]`,
      '|inline={ a = 1, b = { c = "}" } }',
      'array-table ["servers"]',
      "servers|url='''raw \\no escape'''",
      'table ["a","b.c","d"]',
      'a.b.c.d|x=true',
    ]);
    expect((statements[1] as TomlPair).key).toEqual(['quoted.key']);
  });

  it('refuses what it cannot follow, with the line', () => {
    expect(() => scanToml('a = "open\n')).toThrow(TomlScanError);
    expect(() => scanToml('x = 1\n[table\n')).toThrow(/line 2: expected \] after a table name/);
    expect(() => scanToml('a = [1, 2\n')).toThrow(TomlScanError);
    expect(() => scanToml('just words\n')).toThrow(/expected = after a key/);
  });

  it('reads plain strings only', () => {
    expect(stringValue('"a\\tb"')).toBe('a\tb');
    expect(stringValue("'C:\\path'")).toBe('C:\\path');
    expect(stringValue('"""x"""')).toBeUndefined();
    expect(stringValue('42')).toBeUndefined();
  });

  it('sets a top-level key in place or after the last one, and removes it again to the byte', () => {
    const text = '# c\nmodel = "m"  # mine\n\n[t]\nk = 1\n';
    const added = setTopLevel(text, 'model_provider', '"toolmask"');
    expect(added).toBe('# c\nmodel = "m"  # mine\nmodel_provider = "toolmask"\n\n[t]\nk = 1\n');
    expect(removeTopLevel(added, 'model_provider')).toBe(text);
    expect(setTopLevel(text, 'model', '"other"')).toBe(
      '# c\nmodel = "other"  # mine\n\n[t]\nk = 1\n',
    );
    // No top-level key: before the first table. No line break at the end: one is added first.
    expect(setTopLevel('[t]\nk = 1\n', 'p', '"x"')).toBe('p = "x"\n[t]\nk = 1\n');
    expect(setTopLevel('a = 1', 'p', '"x"')).toBe('a = 1\np = "x"\n');
  });
});
