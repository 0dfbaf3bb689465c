import { describe, expect, it } from 'vitest';
import type { Content } from '../maskingTypes.js';
import { callFacts } from '../toolCalls/callFacts.js';
import { SupersededOutputs, findSupersededOutputs } from './supersededOutputs.js';
import type { SupersededView, Supersession } from './supersession.js';

/** One call and its output, as a model turn and a user turn. */
interface Step {
  name: string;
  args: Record<string, unknown>;
  /** The output's response. @default { output: 'ok' } */
  response?: Record<string, unknown>;
  /** Leave the output out of the history (the call is still pending). */
  pending?: boolean;
  id?: string;
}

function historyOf(...steps: Step[]): Content[] {
  const contents: Content[] = [{ role: 'user', parts: [{ text: 'fix the bug' }] }];
  steps.forEach((step, index) => {
    const id = step.id ?? `c${index}`;
    contents.push({
      role: 'model',
      parts: [{ functionCall: { id, name: step.name, args: step.args } }],
    });
    if (step.pending) return;
    contents.push({
      role: 'user',
      parts: [
        {
          functionResponse: { id, name: step.name, response: step.response ?? { output: 'ok' } },
        },
      ],
    });
  });
  return contents;
}

/** Index in `historyOf(...)` of step `index`'s output. */
const outputAt = (index: number) => 2 + 2 * index;

/** The supersession of step `index`'s output. */
function of(view: SupersededView, index: number): Supersession | undefined {
  return view.partsOf(outputAt(index))?.get(0);
}

function supersededSteps(view: SupersededView): number[] {
  return view.entries.map((contentIndex) => (contentIndex - 2) / 2);
}

const shell = (command: string, extra: Record<string, unknown> = {}): Step => ({
  name: 'run_shell_command',
  args: { command, ...extra },
  response: { output: `Output: lines of ${command}` },
});

describe('findSupersededOutputs: the three reasons', () => {
  it('rerun: the same tool with the same arguments (key order and description aside)', () => {
    const view = findSupersededOutputs(
      historyOf(
        { name: 'grep_search', args: { pattern: 'x', path: 'src' } },
        { name: 'grep_search', args: { pattern: 'x', path: 'lib' } },
        { name: 'grep_search', args: { path: 'src', pattern: 'x', description: 'again' } },
      ),
    );
    expect(supersededSteps(view)).toEqual([0]);
    expect(of(view, 0)).toEqual({
      reason: 'rerun',
      callContentIndex: 5,
      outputContentIndex: 6,
      callId: 'c2',
    });
  });

  it('rerun: a shell command with the same text in the same directory only', () => {
    const view = findSupersededOutputs(
      historyOf(
        shell('pytest tests/test_a.py'),
        shell('pytest tests/test_a.py', { dir_path: 'sub' }),
        shell('pytest  tests/test_a.py'),
        shell('pytest tests/test_a.py'),
      ),
    );
    expect(supersededSteps(view)).toEqual([0]);
    expect(of(view, 0)?.callId).toBe('c3');
  });

  it('read-again: a whole read covers any read of the file, a range read a range within it', () => {
    const view = findSupersededOutputs(
      historyOf(
        shell("sed -n '10,80p' src/a.py"), // 0: covered by 3 (5..100)
        shell('grep -n parse src/a.py'), // 1: a search, covered by the whole read 4 only
        shell("sed -n '1,200p' src/b.py"), // 2: never covered
        shell("nl -ba src/a.py | sed -n '5,100p'"), // 3: covered by 4
        shell('cat src/a.py'), // 4
        shell("sed -n '50,60p' src/b.py"), // 5: within 2, but later: covers nothing of 2
      ),
    );
    expect(supersededSteps(view)).toEqual([0, 1, 3]);
    expect(of(view, 0)).toMatchObject({ reason: 'read-again', callId: 'c3' });
    expect(of(view, 1)).toMatchObject({ reason: 'read-again', callId: 'c4' });
    expect(of(view, 3)).toMatchObject({ reason: 'read-again', callId: 'c4' });
  });

  it('edited: the file an output read was written or edited later', () => {
    const view = findSupersededOutputs(
      historyOf(
        shell('cat src/a.py'),
        shell('head -n 40 src/b.py'),
        shell('cat src/c.py'),
        shell("sed -i 's/old/new/' src/a.py"),
        shell("cat <<'EOF' > src/b.py\nprint('new')\nEOF"),
        shell('python - <<\'EOF\'\nopen("src/c.py", "w").write("x")\nEOF'),
      ),
    );
    // The Python script writes src/c.py too, but what a program writes is not guessed.
    expect(supersededSteps(view)).toEqual([0, 1]);
    expect(of(view, 0)).toMatchObject({ reason: 'edited', callId: 'c3' });
    expect(of(view, 1)).toMatchObject({ reason: 'edited', callId: 'c4' });
  });

  it('names the first call that superseded an output, which never changes afterwards', () => {
    const history = historyOf(shell('cat a.py'), shell('cat a.py'), shell('cat a.py'));
    const tracker = new SupersededOutputs();
    tracker.update(history.slice(0, 5));
    expect(of(tracker, 0)?.callId).toBe('c1');
    tracker.update(history);
    expect(of(tracker, 0)?.callId).toBe('c1');
    expect(of(tracker, 1)?.callId).toBe('c2');
  });

  it('counts only the reasons it is given', () => {
    const history = historyOf(
      shell('cat a.py'),
      shell("sed -i 's/x/y/' a.py"),
      shell('cat -n a.py'),
      shell('ls'),
      shell('ls'),
    );
    expect(supersededSteps(findSupersededOutputs(history))).toEqual([0, 3]);
    expect(of(findSupersededOutputs(history), 0)?.reason).toBe('edited');
    const noEdits = findSupersededOutputs(history, { reasons: ['rerun', 'read-again'] });
    expect(of(noEdits, 0)).toMatchObject({ reason: 'read-again', callId: 'c2' });
    expect(supersededSteps(findSupersededOutputs(history, { reasons: ['rerun'] }))).toEqual([3]);
  });
});

describe('findSupersededOutputs: the replacement must be visible and must have worked', () => {
  it('a later call whose output is not in the history supersedes nothing yet', () => {
    const view = findSupersededOutputs(
      historyOf(shell('cat a.py'), { ...shell('cat a.py'), pending: true }),
    );
    expect(view.entries).toEqual([]);
  });

  it('a read again that failed or was cut short covers nothing; a failed edit edits nothing', () => {
    const view = findSupersededOutputs(
      historyOf(
        shell('cat a.py'),
        {
          ...shell('cat -n a.py'),
          response: { output: 'Output: cat: a.py: Is a directory\nExit Code: 1' },
        },
        {
          ...shell('nl a.py'),
          response: { output: 'Output: <warning>\nThe output of your last command was too long.' },
        },
        { name: 'replace', args: { file_path: 'a.py' }, response: { error: 'no match' } },
        { name: 'read_file', args: { file_path: '/w/b.py' } },
        {
          name: 'Edit',
          args: { file_path: '/w/b.py' },
          response: { output: '<tool_use_error>String to replace not found in file.' },
        },
      ),
    );
    expect(view.entries).toEqual([]);
  });
});

describe('findSupersededOutputs: each host writes its tools its own way', () => {
  it('gemini-cli and qwen: read_file (start_line/end_line, or a 0-based offset), replace, write_file', () => {
    const view = findSupersededOutputs(
      historyOf(
        { name: 'read_file', args: { file_path: '/w/a.py', start_line: 10, end_line: 20 } },
        { name: 'read_file', args: { absolute_path: '/w/a.py', offset: 9, limit: 11 } }, // 10..20
        { name: 'read_file', args: { file_path: '/w/b.py' } },
        { name: 'write_file', args: { file_path: '/w/b.py', content: 'x' } },
        { name: 'read_many_files', args: { paths: ['/w/c.py'] } },
        { name: 'read_file', args: { file_path: '/w/c.py' } },
      ),
    );
    expect(of(view, 0)).toMatchObject({ reason: 'read-again', callId: 'c1' });
    expect(of(view, 2)).toMatchObject({ reason: 'edited', callId: 'c3' });
    expect(of(view, 4)).toMatchObject({ reason: 'read-again', callId: 'c5' });
    expect(supersededSteps(view)).toEqual([0, 2, 4]);
  });

  it('Claude Code: Read (1-based offset), Edit, MultiEdit, Write, Bash', () => {
    const view = findSupersededOutputs(
      historyOf(
        { name: 'Read', args: { file_path: '/w/a.py', offset: 10, limit: 11 } }, // 10..20
        { name: 'Read', args: { file_path: '/w/a.py', offset: 10, limit: 10 } }, // 10..19
        { name: 'Read', args: { file_path: '/w/b.py' } },
        { name: 'MultiEdit', args: { file_path: '/w/b.py', edits: [] } },
        { name: 'Bash', args: { command: 'cat /w/c.py', description: 'show c' } },
        { name: 'Write', args: { file_path: '/w/c.py', content: '' } },
        { name: 'Bash', args: { command: 'git status', description: 'one' } },
        { name: 'Bash', args: { command: 'git status', description: 'two' } },
        { name: 'Read', args: { file_path: '/w/d.py' } },
        { name: 'Edit', args: { file_path: '/w/d.py', old_string: 'a', new_string: 'b' } },
      ),
    );
    // 1 shows 10..19 and does not cover 0's 10..20.
    expect(supersededSteps(view)).toEqual([2, 4, 6, 8]);
    expect(of(view, 2)?.reason).toBe('edited');
    expect(of(view, 4)?.reason).toBe('edited');
    expect(of(view, 6)?.reason).toBe('rerun');
    expect(of(view, 8)?.reason).toBe('edited');
  });

  it('Codex: shell with an argv (bash -lc, a workdir) and apply_patch', () => {
    const patch = '*** Begin Patch\n*** Update File: src/b.py\n@@\n-x\n+y\n*** End Patch';
    const view = findSupersededOutputs(
      historyOf(
        {
          name: 'shell',
          args: { command: ['bash', '-lc', "sed -n '1,50p' src/a.py"], workdir: '/w' },
        },
        { name: 'shell', args: { command: ['cat', '/w/src/a.py'] } },
        { name: 'shell', args: { command: ['bash', '-lc', 'cat src/b.py'], workdir: '/w' } },
        { name: 'apply_patch', args: { input: patch.replace('src/b.py', '/w/src/b.py') } },
        { name: 'shell', args: { command: ['bash', '-lc', 'cat c.py'], workdir: '/w' } },
        {
          name: 'shell',
          args: {
            command: [
              'bash',
              '-lc',
              `apply_patch <<'EOF'\n${patch.replace('src/b.py', 'c.py')}\nEOF`,
            ],
            workdir: '/w',
          },
        },
      ),
    );
    expect(of(view, 0)).toMatchObject({ reason: 'read-again', callId: 'c1' });
    expect(of(view, 2)).toMatchObject({ reason: 'edited', callId: 'c3' });
    expect(of(view, 4)).toMatchObject({ reason: 'edited', callId: 'c5' });
    expect(supersededSteps(view)).toEqual([0, 2, 4]);
  });

  it('Codex through the Responses API: local_shell, shell_call commands, apply_patch_call', () => {
    const view = findSupersededOutputs(
      historyOf(
        { name: 'local_shell', args: { command: ['cat', 'a.py'], working_directory: '/w' } },
        { name: 'shell', args: { commands: ['cd /w', "sed -n '1,9p' a.py"] } },
        { name: 'exec_command', args: { cmd: 'cat /w/b.py' } },
        {
          name: 'apply_patch',
          args: { operation: { type: 'update_file', path: '/w/b.py', diff: '' } },
        },
      ),
    );
    expect(of(view, 1)).toBeUndefined();
    expect(of(view, 2)).toMatchObject({ reason: 'edited', callId: 'c3' });
    expect(supersededSteps(view)).toEqual([2]);
    expect(callFacts('shell', { commands: ['cd /w', "sed -n '1,9p' a.py"] }).reads).toEqual([
      { path: '/w/a.py', first: 1, last: 9, partial: false },
    ]);
    expect(
      callFacts('local_shell', { command: ['cat', 'a.py'], working_directory: '/w' }).reads,
    ).toEqual([{ path: '/w/a.py', first: 1, last: Infinity, partial: false }]);
  });

  it('OpenCode: read (0-based offset), edit, write, bash', () => {
    const view = findSupersededOutputs(
      historyOf(
        { name: 'read', args: { filePath: '/w/a.ts', offset: 0, limit: 30 } }, // 1..30
        { name: 'read', args: { filePath: '/w/a.ts' } },
        { name: 'read', args: { filePath: '/w/b.ts' } },
        { name: 'edit', args: { filePath: '/w/b.ts', oldString: 'a', newString: 'b' } },
        { name: 'bash', args: { command: 'npm test' } },
        { name: 'bash', args: { command: 'npm test' } },
      ),
    );
    expect(of(view, 0)?.reason).toBe('read-again');
    expect(of(view, 2)?.reason).toBe('edited');
    expect(of(view, 4)?.reason).toBe('rerun');
    expect(supersededSteps(view)).toEqual([0, 2, 4]);
  });

  it('mini-swe-agent and swe-agent shell habits', () => {
    const view = findSupersededOutputs(
      historyOf(
        shell("nl -ba django/db/models/deletion.py | sed -n '231,240p'"), // 0: covered by 1
        shell('nl -ba django/db/models/deletion.py | head -n 250 | tail -n 50'), // 1: 201..250
        shell('cd tests && head -n 50 runtests.py'), // 2: tests/runtests.py 1..50
        shell('cat tests/runtests.py'), // 3
        shell('git diff'), // 4: rerun by 7
        shell('cat setup.py'), // 5: edited by 6
        shell('git checkout setup.py\npytest -q'), // 6
        shell('git diff'), // 7
        shell('grep -rn parse src'), // 8: a folder search is no read
        shell('cat src/x.py'), // 9
      ),
    );
    expect(of(view, 0)).toMatchObject({ reason: 'read-again', callId: 'c1' });
    expect(of(view, 2)).toMatchObject({ reason: 'read-again', callId: 'c3' });
    expect(of(view, 4)).toMatchObject({ reason: 'rerun', callId: 'c7' });
    expect(of(view, 5)).toMatchObject({ reason: 'edited', callId: 'c6' });
    expect(supersededSteps(view)).toEqual([0, 2, 4, 5]);
  });

  it('a relative path is never matched to an absolute one, nor read after a cd it cannot follow', () => {
    const view = findSupersededOutputs(
      historyOf(
        shell('cat src/a.py'),
        shell('cat /testbed/src/a.py'),
        shell('cd "$ROOT" && cat b.py'),
        shell('cd "$ROOT" && cat b.py && echo done'),
        shell('cat b.py'),
      ),
    );
    expect(view.entries).toEqual([]);
  });
});

describe('SupersededOutputs between passes', () => {
  it('reads each call once, and a masked entry (same calls and outputs) changes nothing', () => {
    const history = historyOf(shell('cat a.py'), shell('ls'), shell('cat a.py'));
    const tracker = new SupersededOutputs();
    tracker.update(history.slice(0, 5));
    expect(tracker.parsedCalls).toBe(2);
    expect(tracker.followedEntries).toBe(5);
    expect(tracker.entries).toEqual([]);
    tracker.update(history);
    tracker.update(history);
    expect(tracker.parsedCalls).toBe(3);
    expect(tracker.followedEntries).toBe(7);
    expect(supersededSteps(tracker)).toEqual([0]);

    // A pass masked the first output: a new entry with a new response, the same id and name.
    const masked = history.slice();
    const entry = masked[outputAt(0)] as Content;
    masked[outputAt(0)] = {
      ...entry,
      parts: [
        {
          functionResponse: {
            ...entry.parts![0]!.functionResponse!,
            response: { output: '<tool_output_masked …>' },
          },
        },
      ],
    };
    const grown = [...masked, ...historyOf(shell('ls')).slice(1)];
    tracker.update(grown);
    expect(tracker.parsedCalls).toBe(4);
    expect(tracker.followedEntries).toBe(9);
    // The new `ls` (call id c0 again, at the end) supersedes step 1's.
    expect(supersededSteps(tracker)).toEqual([0, 1]);
    expect(tracker.partsOf(outputAt(1))?.get(0)?.reason).toBe('rerun');
  });

  it('lets go of released entries and goes on without starting over', () => {
    const history = historyOf(shell('cat a.py'), shell('cat a.py'));
    const tracker = new SupersededOutputs();
    tracker.update(history);
    tracker.release([outputAt(0), 99]);
    tracker.update(history);
    expect(tracker.followedEntries).toBe(history.length);
    expect(supersededSteps(tracker)).toEqual([0]);
  });

  it('starts over when an entry before the end changed, and forgets on reset', () => {
    const tracker = new SupersededOutputs();
    const history = historyOf(shell('cat a.py'), shell('cat a.py'));
    tracker.update(history);
    expect(supersededSteps(tracker)).toEqual([0]);
    const edited = historyOf(shell('cat a.py'), shell('cat b.py'));
    tracker.update(edited);
    expect(tracker.followedEntries).toBe(10);
    expect(tracker.entries).toEqual([]);
    tracker.update(history);
    expect(supersededSteps(tracker)).toEqual([0]);
    tracker.reset();
    expect(tracker.entries).toEqual([]);
  });

  it('a second copy of an output (a resumed gemini-cli history) is superseded with the first', () => {
    const history = historyOf(shell('cat a.py'), shell('cat a.py'));
    const copy = history[outputAt(0)] as Content;
    history.splice(outputAt(0) + 1, 0, { ...copy, parts: [...copy.parts!] });
    const view = findSupersededOutputs(history);
    expect(view.entries).toEqual([outputAt(0), outputAt(0) + 1]);
  });

  it('an unreadable part holds nothing and fails nothing', () => {
    const throwing = {
      get functionCall(): never {
        throw new Error('revoked');
      },
    };
    const history = historyOf(shell('cat a.py'), shell('cat a.py'));
    (history[1] as Content).parts!.push(throwing as never);
    expect(supersededSteps(findSupersededOutputs(history))).toEqual([0]);
  });
});
