import { describe, expect, it, vi } from 'vitest';
import { namedIdentifiers, sourceReadPreview } from './sourceRead.js';

const limits = { maxLineChars: 80, lineBudgetChars: 400 };

/** A Python module of `classes` classes of `methods` methods, each with a body of statements. */
function module(classes: number, methods: number): string[] {
  const lines = ['import os', 'from typing import Any', ''];
  for (let c = 0; c < classes; c++) {
    lines.push(`class Widget${c}(Base):`, `    """Widget number ${c}, documented at length."""`);
    for (let m = 0; m < methods; m++) {
      lines.push(
        `    def method_${c}_${m}(self, value: Any) -> Any:`,
        `        total_${m} = self.compute(value, ${m})`,
        `        if total_${m} > self.limit:`,
        `            return self.fallback(total_${m})`,
        `        return total_${m}`,
        '',
      );
    }
  }
  return lines;
}

describe('namedIdentifiers', () => {
  it("takes code-like names from the turn's text and the command's quoted patterns", () => {
    const names = namedIdentifiers({
      turnText: 'THOUGHT: `Collector.add` calls `self.can_fast_delete`; the fastDelete path.',
      args: { command: 'grep -n "def related_objects" django/db/models/deletion.py' },
    });
    expect([...names]).toEqual(
      expect.arrayContaining([
        'Collector',
        'add',
        'can_fast_delete',
        'fastDelete',
        'related_objects',
      ]),
    );
    expect(names.has('self')).toBe(false);
    expect(names.has('def')).toBe(false);
    expect(namedIdentifiers(undefined).size).toBe(0);
  });
});

describe('sourceReadPreview', () => {
  it('keeps signatures spread over the file and numbers every kept line', () => {
    const lines = module(6, 4);
    const preview = sourceReadPreview(lines, undefined, limits);
    const shown = preview.split('\n');
    expect(shown[0]).toMatch(/lines omitted; kept lines numbered/);
    for (const line of shown.slice(1)) expect(line).toMatch(/^\d+: /);
    const signatures = shown.filter((line) => /: (class| {4}def) /.test(line));
    expect(signatures.length).toBeGreaterThan(1);
    // Spread: the first signature kept and one from the second half of the file.
    const numbers = signatures.map((line) => Number(line.split(':')[0]));
    expect(Math.min(...numbers)).toBeLessThan(lines.length / 4);
    expect(Math.max(...numbers)).toBeGreaterThan(lines.length / 2);
    expect(shown.slice(1).join('\n').length + 1).toBeLessThanOrEqual(limits.lineBudgetChars);
  });

  it('shows more of the region the model named than of the rest', () => {
    const lines = module(6, 4);
    const named = sourceReadPreview(lines, { turnText: 'Let me look at `method_4_2`.' }, limits);
    const unnamed = sourceReadPreview(lines, undefined, limits);
    const fromRegion = (preview: string) =>
      preview.split('\n').filter((line) => /_2\b|method_4_2/.test(line) && /total_2/.test(line));
    const start = lines.indexOf('    def method_4_2(self, value: Any) -> Any:') + 1;
    const inRegion = (preview: string) =>
      preview
        .split('\n')
        .slice(1)
        .filter((line) => {
          const number = Number(line.split(':')[0]);
          return number >= start && number <= start + 20;
        }).length;
    expect(inRegion(named)).toBeGreaterThan(inRegion(unnamed));
    expect(fromRegion(named).length).toBeGreaterThan(0);
  });

  it("keeps an output's own numbers (nl -ba, cat -n)", () => {
    const lines = module(3, 3).map((line, index) => `${String(index + 101).padStart(6)}\t${line}`);
    const preview = sourceReadPreview(lines, undefined, limits).split('\n');
    expect(preview[1]).toMatch(/^10\d\t/);
    expect(preview.some((line) => line.startsWith('103\t'))).toBe(false); // a blank line
  });
});

describe('namedIdentifiers, bounded', () => {
  it('stops reading once it has MAX_NAMES names, and keeps the first ones', () => {
    const turnText = Array.from({ length: 200 }, (_, index) => `name_${index}`).join(' ');
    const names = namedIdentifiers({
      turnText,
      args: { command: "grep 'late_name' x" },
    });
    expect(names.size).toBe(64);
    expect([...names].slice(0, 2)).toEqual(['name_0', 'name_1']);
    expect(names.has('late_name')).toBe(false);
  });
});

describe('namedIdentifiers, once per turn', () => {
  // Counted by what each expression scan reads (turnWords.ts scans with `matchAll`), not by
  // mocking turnWords: the unit lane shares its modules between files (isolate: false), so a
  // module mock may never reach the sourceRead.js another file loaded first.
  it("reads a turn's text once for all the outputs of that turn", () => {
    const turnText = 'THOUGHT: `Widget.render_once` and the fastPath of `draw_all`, read once.';
    const command = "grep -n 'def paint' w.py";
    const scans = vi.spyOn(String.prototype, 'matchAll');
    const scansOf = (text: string) =>
      scans.mock.contexts.filter((subject) => String(subject) === text).length;
    try {
      const first = namedIdentifiers({ turnText, args: { command: 'cat widget.py' } });
      const turnScans = scansOf(turnText);
      const second = namedIdentifiers({ turnText, args: { command } });
      // The second output of the turn scans only its own command's quoted patterns.
      expect(turnScans).toBeGreaterThan(0);
      expect(scansOf(turnText)).toBe(turnScans);
      expect(scansOf(command)).toBe(1);
      expect([...first]).toEqual(['Widget', 'render_once', 'draw_all', 'fastPath']);
      expect([...second]).toEqual(['Widget', 'render_once', 'draw_all', 'fastPath', 'paint']);
    } finally {
      scans.mockRestore();
    }
  });
});

describe("sourceReadPreview, the turn's names only when asked for (issue 30)", () => {
  /** A call whose turn text counts how often it is read. */
  const countingCall = () => {
    let reads = 0;
    const call = {
      args: { command: 'grep -rn paint src' },
      get turnText() {
        reads++;
        return 'THOUGHT: `paint_all` draws every widget.';
      },
    };
    return { call, reads: () => reads };
  };
  const searchLines = Array.from(
    { length: 300 },
    (_, index) => `src/widgets/module_${index}.py:${index + 10}:    self.paint_all(canvas, index)`,
  );

  it("reads no turn text for lines that declare nothing (a search's, a data file's)", () => {
    const { call, reads } = countingCall();
    sourceReadPreview(searchLines, call, limits);
    expect(reads()).toBe(0);
  });

  it('reads it once a line declares something, and the preview is the same either way', () => {
    const { call, reads } = countingCall();
    const code = module(6, 4);
    const preview = sourceReadPreview(code, call, limits);
    expect(reads()).toBe(1);
    expect(preview).toBe(
      sourceReadPreview(code, { args: call.args, turnText: call.turnText }, limits),
    );
  });
});

describe('sourceReadPreview, the named declaration', () => {
  /** module(6, 4) with the declaration of method_4_2 written as `declaration`. */
  const lines = (declaration: string) =>
    module(6, 4).map((line) =>
      line === '    def method_4_2(self, value: Any) -> Any:' ? declaration : line,
    );
  // The region counts when naming the name changes what the preview shows.
  const region = (declaration: string, name: string) =>
    sourceReadPreview(lines(declaration), { turnText: `Look at \`${name}\`.` }, limits) !==
    sourceReadPreview(lines(declaration), undefined, limits);

  it('counts the region of a declared name, the name whole', () => {
    expect(region('    def method_4_2(self, value: Any) -> Any:', 'method_4_2')).toBe(true);
    expect(region('export async function method_4_2(value) {', 'method_4_2')).toBe(true);
    expect(region('pub fn  $method_4_2(value) {', '$method_4_2')).toBe(true);
    expect(region('def method_4_2$x(self, value):', 'method_4_2')).toBe(true);
    expect(region('def method_4_2x(self, value):', 'method_4_2')).toBe(false);
    expect(region('default method_4_2(self, value):', 'method_4_2')).toBe(false);
  });
});

describe('sourceReadPreview, names looked up only when a declaration may be one (issue 30)', () => {
  /** The region's lines count twice: a region shows in which lines a small budget keeps. */
  const preview = (turnText: string, command: string) =>
    sourceReadPreview(module(30, 3), { turnText, args: { command } }, limits);

  it('finds the named region whether the turn or the command names it, after many unnamed declarations', () => {
    const unnamed = preview('THOUGHT: look at the file.', 'cat widgets.py');
    const inTurn = preview('THOUGHT: `method_27_1` is wrong.', 'cat widgets.py');
    const inCommand = preview('THOUGHT: look.', "sed -n '/def method_27_1/,/return/p' widgets.py");
    expect(inTurn).not.toBe(unnamed);
    expect(inCommand).toBe(inTurn);
  });

  it('does not take a name for a longer declared name it begins', () => {
    const partial = preview('THOUGHT: `method_27` is wrong.', 'cat widgets.py');
    expect(partial).toBe(preview('THOUGHT: look at the file.', 'cat widgets.py'));
  });
});
