/**
 * The temporary directories of the letter head made at startup (startup-readout.ts): made
 * under the OS temp directory, removed by the scorer's close() or at process exit. A process
 * killed by a signal runs no exit handler, so each new process first removes the copies left
 * by dead processes of this host: the directory name carries the host and the process id
 * (`sceptic-readout-<host>-<pid>-XXXXXX`), and a copy is removed only when that process is gone.
 */
import { mkdtempSync, readdirSync } from 'node:fs'
import { removeOwnTreeSync } from '../../../core/support/files.ts'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hostTag, processAlive } from '../../../core/support/process-identity.ts'

const PREFIX = 'sceptic-readout-'

// Directories of this process not yet removed.
const mine = new Set<string>()
let swept = false

/** A new temporary directory for this process, removed by {@link removeTemporary} or at exit. */
export function temporaryDir(): string {
  if (!swept) {
    swept = true
    removeStale(tmpdir())
  }
  if (mine.size === 0) process.on('exit', removeAll)
  const dir = mkdtempSync(join(tmpdir(), `${stem(process.pid)}`))
  mine.add(dir)
  return dir
}

/** Remove a directory made by {@link temporaryDir}. Idempotent. */
export function removeTemporary(dir: string): void {
  if (!mine.delete(dir)) return
  removeOwnTreeSync(dir)
  if (mine.size === 0) process.off('exit', removeAll)
}

/** Remove the copies in `root` left by processes of this host that no longer run; returns their names. */
export function removeStale(root: string): string[] {
  const removed: string[] = []
  let names: string[]
  try {
    names = readdirSync(root)
  } catch {
    return removed
  }
  const prefix = `${PREFIX}${hostTag()}-`
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(/^(\d+)-[^-]+$/.exec(name.slice(prefix.length))?.[1])
    if (!Number.isInteger(pid) || pid === process.pid || processAlive(pid)) continue
    removeOwnTreeSync(join(root, name))
    removed.push(name)
  }
  return removed
}

/** The start of the directory names of process `pid` on this host: `sceptic-readout-<host>-<pid>-`. */
export function stem(pid: number): string {
  return `${PREFIX}${hostTag()}-${pid}-`
}

function removeAll(): void {
  for (const dir of [...mine]) removeTemporary(dir)
}
