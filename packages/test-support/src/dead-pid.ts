/** The pid of a process that has exited (for files whose writer must look gone). */
import { spawn } from 'node:child_process';

export async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', ''], { stdio: 'ignore' });
  await new Promise((resolve) => child.on('exit', resolve));
  return child.pid!;
}
