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

/**
 * Create `path` holding `head`, open for appending, without a moment where it exists
 * without `head`: written under a temp name (which readers skip), fsynced, then renamed
 * in. Another process reading the folder meanwhile sees no file or the whole head.
 * Returns the open file descriptor.
 */
export function createWithHead(path: string, head: Buffer): number {
  const temp = tempName(path)
  const fd = openSync(temp, 'wx')
  try {
    writeSync(fd, head)
    fsyncSync(fd)
    renameSync(temp, path)
    return fd
  } catch (error) {
    closeSync(fd)
    rmSync(temp, { force: true })
    throw error
  }
}
