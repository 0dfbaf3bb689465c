/**
 * The run's terminal title: the title before it is pushed once, and put back when the run ends,
 * so that no title names a gateway that stopped with the run (issue 35).
 */
import { describe, expect, it } from 'vitest';
import { terminalTitle, titleSequence } from './terminal-title.js';

describe('terminalTitle', () => {
  it("pushes the old title once, sets the run's, and pops the old one back at the end", () => {
    const written: string[] = [];
    const title = terminalTitle((text) => written.push(text));
    title.set('toolmask claude · dashboard http://127.0.0.1:1');
    title.set('toolmask claude · upstream http://127.0.0.1:9 unreachable');
    title.restore();
    expect(written).toEqual([
      '\u001b[22;0t\u001b]0;toolmask claude · dashboard http://127.0.0.1:1\u0007',
      '\u001b]0;toolmask claude · upstream http://127.0.0.1:9 unreachable\u0007',
      // An empty title first: a terminal without a title stack keeps no stale address.
      '\u001b]0;\u0007\u001b[23;0t',
    ]);
  });

  it('puts nothing back when it set nothing, and strips control characters', () => {
    const written: string[] = [];
    terminalTitle((text) => written.push(text)).restore();
    expect(written).toEqual([]);
    expect(titleSequence('a\u0007b\u001b]c')).toBe('\u001b]0;ab]c\u0007');
  });
});
