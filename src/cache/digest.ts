/**
 * File digests for scorer identities, memoised beside the cache per (path, device,
 * inode, size, mtime and ctime in ns), so a 2 GB model is read once, not on every
 * run. ctime cannot be set back by a tool (unlike mtime), so an edit that restores
 * the mtime still re-hashes.
 */
import { createHash } from 'node:crypto'
import { createReadStream, mkdirSync, readFileSync, statSync, type BigIntStats } from 'node:fs'
import { join, resolve } from 'node:path'
import { writeFileAtomic } from './files.ts'
import { digestsDir } from './layout.ts'
import { claimCacheDir } from './marker.ts'

/** Digest recorded for a file that does not exist (an optional file such as `tokenizer_config.json`). */
export const ABSENT = 'absent'

/** sha256 of a file's bytes, hex, streamed. */
export function hashFile(path: string): Promise<string> {
  return new Promise((done, fail) => {
    const hash = createHash('sha256')
    createReadStream(path, { highWaterMark: 1 << 22 })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', fail)
      .on('end', () => done(hash.digest('hex')))
  })
}

/**
 * The sha256 of `path` (or {@link ABSENT}). With a cache `dir` the digest is looked
 * up in and stored to `dir/digests/` keyed on the file's identity and stat; a stale
 * or unreadable memo is recomputed, never trusted. `write: false` never writes.
 */
export async function fileDigest(path: string, dir: string | undefined, write = true): Promise<string> {
  const absolute = resolve(path)
  let stat: BigIntStats | undefined
  try {
    stat = statSync(absolute, { bigint: true })
  } catch {
    return ABSENT
  }
  if (!stat || !stat.isFile()) return ABSENT
  const identity = { path: absolute, dev: String(stat.dev), ino: String(stat.ino), size: String(stat.size), mtimeNs: String(stat.mtimeNs), ctimeNs: String(stat.ctimeNs) }
  const memo = dir ? join(digestsDir(dir), createHash('sha256').update(absolute).digest('hex').slice(0, 32) + '.json') : undefined
  if (memo) {
    try {
      const saved = JSON.parse(readFileSync(memo, 'utf8')) as Record<string, unknown>
      if (Object.entries(identity).every(([k, v]) => saved[k] === v) && typeof saved.sha256 === 'string' && /^[0-9a-f]{64}$/.test(saved.sha256))
        return saved.sha256
    } catch {
      // no memo yet, or an unreadable one: recompute
    }
  }
  const sha256 = await hashFile(absolute)
  // A file rewritten while it was hashed must not be memoised under the new stat.
  const after = statSync(absolute, { bigint: true })
  const unchanged = after.mtimeNs === stat.mtimeNs && after.ctimeNs === stat.ctimeNs && after.size === stat.size && after.ino === stat.ino
  if (memo && write && unchanged) {
    try {
      claimCacheDir(dir!)
      mkdirSync(digestsDir(dir!), { recursive: true })
      writeFileAtomic(memo, JSON.stringify({ ...identity, sha256 }) + '\n')
    } catch {
      // a read-only or full disk only costs a re-hash next time
    }
  }
  return sha256
}
