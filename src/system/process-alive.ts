/**
 * Whether a process of this host still runs (signal 0 probes without sending anything).
 * EPERM means it exists but belongs to another user (the service's `clawbox` user seen
 * from an admin's shell): alive.
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
