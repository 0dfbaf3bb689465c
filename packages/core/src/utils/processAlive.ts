/**
 * Whether a process id names a live process, for files that record their writer's pid
 * (`gateway.json`, the launchers' one-run files under `<state>/launch/`): a file whose writer is
 * gone is stale. `EPERM` means the process exists but belongs to someone else: alive.
 */
export function isProcessAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as { code?: string }).code === 'EPERM';
  }
}
