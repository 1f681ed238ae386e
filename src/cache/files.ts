/** Small synchronous file helpers with the durability the cache needs. */
import { closeSync, fsyncSync, openSync, renameSync, rmSync, writeSync } from 'node:fs'
import { tempName } from './layout.ts'

/** Write `data` to `path` atomically: a temp file beside it, fsynced, then renamed over it. */
export function writeFileAtomic(path: string, data: string | Buffer): void {
  const temp = tempName(path)
  try {
    const fd = openSync(temp, 'wx')
    try {
      writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data)
      fsyncSync(fd)
    } finally {
      closeSync(fd)
    }
    renameSync(temp, path)
  } catch (error) {
    rmSync(temp, { force: true })
    throw error
  }
}

/** Whether a process with this pid exists (a pid may be reused: callers treat `true` as "maybe alive"). */
export function processAlive(pid: number): boolean {
  if (pid === process.pid) return true
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}
