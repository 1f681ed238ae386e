/**
 * The score cache's store (docs/cache.md, "Store"): append-only segments, one per writing
 * process, so concurrent workers never share a file; one fsynced write per batch, so a
 * SIGKILL loses at most the batch being written.
 */
import { close as closeFd, existsSync, truncateSync, fdatasync, mkdirSync, readFileSync } from 'node:fs'
import { promisify } from 'node:util'
import { join } from 'node:path'
import { compact } from './admin.ts'
import { claimCacheDir } from './marker.ts'
import { createWithHead, writeFileAtomic, writeFully } from './files.ts'
import type { ScorerInfo } from './scorer-info.ts'
import { listSegments, newSegmentName, scorersDir, segmentsDir, segmentWriterMayRun } from './layout.ts'
import type { CacheMode } from './mode.ts'
import { decodeSegment, encodeHeader, encodeRecord, HEADER_BYTES, usableVector, type CacheEntry, type DecodedSegment } from './segment.ts'

export { CACHE_MODES, type CacheMode } from './mode.ts'

/** Options of {@link CacheStore}. */
export interface CacheStoreOptions {
  /** `read-write` (default) or `read-only`; an `off` cache is never opened. */
  readonly mode?: Exclude<CacheMode, 'off'>
  /** Where one-line warnings go (a bad segment, a failed write). Default `console.warn`. */
  readonly onWarning?: (message: string) => void
}

const fdatasyncAsync = promisify(fdatasync)
const closeAsync = promisify(closeFd)

/** Segments beyond which a read-write open first compacts the closed ones into one. */
export const COMPACT_ABOVE = 64

/**
 * Cut a torn tail off a segment whose writer is gone (it was killed mid-write), so the
 * next run does not warn again. Returns what to add to the warning. A segment of a
 * live writer, a foreign file or a newer version's file is never changed.
 */
function repair(path: string, name: string, decoded: DecodedSegment, allowed: boolean): string {
  if (!allowed || !decoded.ours || decoded.end < HEADER_BYTES || segmentWriterMayRun(name)) return ''
  try {
    truncateSync(path, decoded.end)
    return '; the torn tail was cut off'
  } catch {
    return ''
  }
}

/**
 * Whether a segment's problem is only a record its writer is still appending: a segment of
 * this format whose writer is alive. One write is not atomic for a reader, so a reader can
 * see part of it; that is not a torn record, and the writer completes it.
 */
function beingWritten(name: string, decoded: DecodedSegment): boolean {
  return decoded.ours && segmentWriterMayRun(name)
}

/** Read every segment in `dir`: complete entries, and one warning per bad file (not for a live writer's unfinished record). */
export function readSegments(dir: string, warn: (message: string) => void, options: { repair?: boolean } = {}): { entries: CacheEntry[]; files: string[] } {
  const folder = segmentsDir(dir)
  const entries: CacheEntry[] = []
  const files: string[] = []
  for (const name of listSegments(dir)) {
    const path = join(folder, name)
    let bytes: Buffer
    try {
      bytes = readFileSync(path)
    } catch {
      continue // removed by a compaction since the listing: its entries live in the compacted segment
    }
    const decoded = decodeSegment(bytes)
    if (decoded.problem && !beingWritten(name, decoded)) warn(`vitest-sceptic cache: ${path}: ${decoded.problem}${repair(path, name, decoded, options.repair === true)}`)
    let unusable = 0
    for (const entry of decoded.entries) {
      if (usableVector(entry.vector)) entries.push(entry)
      else unusable++
    }
    if (unusable > 0)
      warn(`vitest-sceptic cache: ${path}: ${unusable} record${unusable === 1 ? '' : 's'} with an unusable vector (NaN, infinite, negative or all zero) ignored; their requests are scored again`)
    files.push(path)
  }
  return { entries, files }
}

/** A cache directory opened by one process. Loads lazily; writes to its own segment. */
export class CacheStore {
  /** The cache directory (absolute). */
  readonly dir: string
  /** `read-write` or `read-only`. Becomes `read-only` after a failed write (warned once). */
  mode: Exclude<CacheMode, 'off'>
  private readonly warn: (message: string) => void
  private entries: Map<string, CacheEntry> | undefined
  private fd: number | undefined
  private readonly scorersKnown = new Set<string>()
  private pending: Promise<void> = Promise.resolve()

  constructor(dir: string, options: CacheStoreOptions = {}) {
    this.dir = dir
    this.mode = options.mode ?? 'read-write'
    this.warn = options.onWarning ?? ((message) => console.warn(message))
  }

  /** The entry under `key`, if any complete record holds it. */
  get(key: string): CacheEntry | undefined {
    return this.load().get(key)
  }

  /** Entries loaded (and added by this process). */
  get size(): number {
    return this.load().size
  }

  /**
   * Add entries: served at once, and appended with an fsync off the main thread so the
   * scorer's next call does not wait for the disk. Resolves when durable; never rejects
   * (a failed write warns once and turns writing off).
   */
  put(entries: readonly CacheEntry[]): Promise<void> {
    const map = this.load()
    for (const entry of entries) if (!map.has(entry.key)) map.set(entry.key, entry)
    if (this.mode !== 'read-write' || entries.length === 0) return this.pending
    const bytes = Buffer.concat(entries.map(encodeRecord))
    this.pending = this.pending.then(async () => {
      if (this.mode !== 'read-write') return
      try {
        const fd = this.segment()
        await writeFully(fd, bytes, segmentsDir(this.dir))
        await fdatasyncAsync(fd)
      } catch (error) {
        this.disableWrites(error)
      }
    })
    return this.pending
  }

  /** Resolves when every queued write is durable. */
  flush(): Promise<void> {
    return this.pending
  }

  /** Record what a scorer id stands for (once per id; atomic, so concurrent writers agree). */
  registerScorer(id: string, info: ScorerInfo): void {
    if (this.mode !== 'read-write' || this.scorersKnown.has(id)) return
    this.scorersKnown.add(id)
    const path = join(scorersDir(this.dir), `${id}.json`)
    try {
      if (existsSync(path)) return
      claimCacheDir(this.dir)
      mkdirSync(scorersDir(this.dir), { recursive: true })
      writeFileAtomic(path, JSON.stringify({ kind: info.kind, label: info.label }) + '\n')
    } catch (error) {
      this.disableWrites(error)
    }
  }

  /** Finish queued writes and close this process's segment. Later `put`s open a new one. */
  close(): Promise<void> {
    this.pending = this.pending.then(async () => {
      if (this.fd === undefined) return
      const fd = this.fd
      this.fd = undefined
      await closeAsync(fd).catch(() => undefined)
    })
    return this.pending
  }

  private load(): Map<string, CacheEntry> {
    if (this.entries) return this.entries
    // Every run of every worker adds a segment; past a bound, merge the closed ones first.
    if (this.mode === 'read-write' && listSegments(this.dir).length > COMPACT_ABOVE) {
      try {
        compact(this.dir)
      } catch (error) {
        this.warn(`vitest-sceptic cache: could not compact ${this.dir} (${(error as Error)?.message ?? String(error)}); reading it as it is`)
      }
    }
    const map = new Map<string, CacheEntry>()
    for (const entry of readSegments(this.dir, this.warn, { repair: this.mode === 'read-write' }).entries) if (!map.has(entry.key)) map.set(entry.key, entry)
    this.entries = map
    return map
  }

  private segment(): number {
    if (this.fd !== undefined) return this.fd
    claimCacheDir(this.dir)
    mkdirSync(segmentsDir(this.dir), { recursive: true })
    // Never visible without its header: a process opening the cache meanwhile warned of a foreign file.
    const fd = createWithHead(join(segmentsDir(this.dir), newSegmentName()), encodeHeader())
    this.fd = fd
    return fd
  }

  private disableWrites(error: unknown): void {
    this.mode = 'read-only'
    this.warn(`vitest-sceptic cache: cannot write to ${this.dir} (${(error as Error)?.message ?? String(error)}); reading only from now on`)
  }
}
