import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { processMarker, processesMarked } from './marked-processes.js';

describe('processesMarked', () => {
  it('finds a detached grandchild by the marker it inherited, and nothing once it is gone', async () => {
    const marker = processMarker();
    // A shell that leaves a detached sleep behind, as a daemon would: its argv names nothing.
    const shell = spawn('sh', ['-c', 'sleep 30 & echo $!'], {
      env: { ...process.env, ...marker },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    const pid = Number(
      await new Promise<string>((resolve) =>
        shell.stdout.once('data', (data) => resolve(`${data}`)),
      ),
    );
    try {
      // `$!` is printed as soon as the child is forked: it may still be the shell for a moment
      // before it becomes `sleep` (a loaded machine), so it is looked for until it has.
      const found = () =>
        processesMarked(marker).some((line) => line.startsWith(`${pid} sleep 30`));
      for (let tries = 0; tries < 50 && !found(); tries++) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      expect(found()).toBe(true);
      expect(processesMarked(processMarker())).toEqual([]);
    } finally {
      process.kill(pid, 'SIGKILL');
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(processesMarked(marker)).toEqual([]);
  });
});
