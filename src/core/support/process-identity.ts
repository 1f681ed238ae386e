/**
 * A process's host and pid in file names (cache segments, temporary graph copies), so
 * another process can tell whether the writer may still run (its file is left alone).
 * A process of another host cannot be seen, so its files are always treated as live.
 */
import { hostname } from 'node:os'

/** The host name as it may appear in a file name: letters, digits, dots and underscores (others become `_`). */
export function hostTag(): string {
  return hostname().replace(/[^A-Za-z0-9._]/g, '_') || 'host'
}

/**
 * Whether a process with this id may be running on this host. Signal 0 checks without
 * sending; EPERM means it runs under another user. A pid may be reused, so `true` means
 * "maybe alive" and callers leave the file alone.
 */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Whether the writer named by `host` and `pid` may still run: always on another host, else {@link processAlive}. */
export function writerMayRun(host: string | undefined, pid: number): boolean {
  if (host !== undefined && host !== hostTag()) return true
  return processAlive(pid)
}
