/**
 * A file's sha256, remembered in a memo file keyed on the file's path, device, inode, size,
 * mtime and ctime (ns): a 2 GB model is read once, not on every run. ctime cannot be set back
 * by a tool (unlike mtime), so an edit that puts the mtime back still re-hashes. One rule for
 * the score cache's file digests and the packed-weights key, with a synchronous and an
 * asynchronous face (the bytes are hashed the same way; only the reading differs).
 */
import { createHash } from 'node:crypto'
import { closeSync, createReadStream, openSync, readFileSync, readSync, statSync, type BigIntStats } from 'node:fs'
import { resolve } from 'node:path'
import { writeFileAtomicSync } from './files.ts'

const BLOCK = 4 * 2 ** 20
const SHA256 = /^[0-9a-f]{64}$/

/** Where and how a digest is remembered. */
export interface DigestMemo {
  /** The memo file (see {@link memoName}). */
  readonly file: string
  /** Remember only files larger than this many bytes; smaller ones are hashed every time. Default 0. */
  readonly above?: number
  /** Store a computed digest. Default true. */
  readonly write?: boolean
  /** Before a memo is stored (make its folder); a throw skips the store. */
  readonly beforeWrite?: () => void
  /** After the memo served a digest (`stored` false) or was stored (true): mark it used, prune old ones; a throw is ignored. */
  readonly used?: (stored: boolean) => void
}

/** The memo's file name stem for `path`: 32 hex of its absolute path. */
export function memoName(path: string): string {
  return createHash('sha256').update(resolve(path)).digest('hex').slice(0, 32)
}

/** sha256 of a file's bytes, hex, streamed. */
export function hashFile(path: string): Promise<string> {
  return new Promise((done, fail) => {
    const hash = createHash('sha256')
    createReadStream(path, { highWaterMark: BLOCK })
      .on('data', (chunk) => hash.update(chunk))
      .on('error', fail)
      .on('end', () => done(hash.digest('hex')))
  })
}

/** sha256 of a file's bytes, hex, read in blocks on this thread. */
export function hashFileSync(path: string): string {
  const hash = createHash('sha256')
  const fd = openSync(path, 'r')
  try {
    const block = Buffer.allocUnsafe(BLOCK)
    for (let read; (read = readSync(fd, block, 0, BLOCK, null)) > 0; ) hash.update(block.subarray(0, read))
    return hash.digest('hex')
  } finally {
    closeSync(fd)
  }
}

/** The sha256 of `path`, from `memo` when its stat still matches, else hashed (and remembered); `undefined` when it is no regular file. */
export async function fileDigest(path: string, memo?: DigestMemo): Promise<string | undefined> {
  const looked = recall(path, memo)
  return looked.kind === 'hash' ? remember(looked, memo, await hashFile(looked.path)) : looked.digest
}

/** {@link fileDigest} on this thread. */
export function fileDigestSync(path: string, memo?: DigestMemo): string | undefined {
  const looked = recall(path, memo)
  return looked.kind === 'hash' ? remember(looked, memo, hashFileSync(looked.path)) : looked.digest
}

type Looked = { readonly kind: 'known'; readonly digest: string | undefined } | { readonly kind: 'hash'; readonly path: string; readonly stat: BigIntStats; readonly identity: Record<string, string> | undefined }

/** The remembered digest when the memo's stat matches the file's; else what hashing needs. */
function recall(path: string, memo: DigestMemo | undefined): Looked {
  const absolute = resolve(path)
  let stat: BigIntStats
  try {
    stat = statSync(absolute, { bigint: true })
  } catch {
    return { kind: 'known', digest: undefined }
  }
  if (!stat.isFile()) return { kind: 'known', digest: undefined }
  if (!memo || stat.size <= BigInt(memo.above ?? 0)) return { kind: 'hash', path: absolute, stat, identity: undefined }
  const identity = { path: absolute, dev: String(stat.dev), ino: String(stat.ino), size: String(stat.size), mtimeNs: String(stat.mtimeNs), ctimeNs: String(stat.ctimeNs) }
  try {
    const saved = JSON.parse(readFileSync(memo.file, 'utf8')) as Record<string, unknown>
    if (Object.entries(identity).every(([k, v]) => saved[k] === v) && typeof saved.sha256 === 'string' && SHA256.test(saved.sha256)) {
      quietly(() => memo.used?.(false))
      return { kind: 'known', digest: saved.sha256 }
    }
  } catch {
    // no memo yet, or an unreadable one: hash
  }
  return { kind: 'hash', path: absolute, stat, identity }
}

/** Store `sha256` in the memo unless the file changed while it was hashed; returns it. */
function remember(looked: Extract<Looked, { kind: 'hash' }>, memo: DigestMemo | undefined, sha256: string): string {
  if (!memo || !looked.identity || memo.write === false) return sha256
  const { stat } = looked
  const after = statSync(looked.path, { bigint: true })
  // A file rewritten while it was hashed must not be remembered under the new stat.
  if (after.mtimeNs !== stat.mtimeNs || after.ctimeNs !== stat.ctimeNs || after.size !== stat.size || after.ino !== stat.ino) return sha256
  quietly(() => {
    memo.beforeWrite?.()
    // No fsync: a memo lost in a crash (or torn: unreadable) costs one re-hash.
    writeFileAtomicSync(memo.file, JSON.stringify({ ...looked.identity, sha256 }) + '\n', { fsync: false })
    quietly(() => memo.used?.(true))
  })
  return sha256
}

/** Run `step`; a file system that refuses it (read-only, full, no permission) only costs a re-hash next time. */
function quietly(step: () => void): void {
  try {
    step()
  } catch {
    // a read-only or full disk: the digest still stands
  }
}
