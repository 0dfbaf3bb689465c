/**
 * Processes left behind by a run, found by what they inherited rather than by their command line:
 * a test gives the process it starts a marker variable, every descendant inherits it (a client's
 * shell, a daemon it starts, an MCP server), and after the run no process may still carry it.
 * Arguments would miss them: a daemon's command line names nothing of the test. Linux (/proc).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';

export const PROCESS_MARKER_VARIABLE = 'TOOLMASK_TEST_PROCESS_MARKER';

/** A fresh marker, to put in the environment of the process a test starts. */
export function processMarker(): { [PROCESS_MARKER_VARIABLE]: string } {
  return { [PROCESS_MARKER_VARIABLE]: randomBytes(8).toString('hex') };
}

/** The pids and command lines of the live processes whose environment holds `marker`. */
export function processesMarked(marker: { [PROCESS_MARKER_VARIABLE]: string }): string[] {
  const needle = `${PROCESS_MARKER_VARIABLE}=${marker[PROCESS_MARKER_VARIABLE]}\0`;
  const found: string[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').includes(needle)) continue;
      const args = readFileSync(`/proc/${entry}/cmdline`, 'latin1').split('\0').join(' ');
      found.push(`${entry} ${args.trim()}`);
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}
