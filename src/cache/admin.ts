/**
 * Looking after a cache directory: statistics, clearing (all of it, or one model's
 * entries) and compaction of many small segments into one (docs/cache.md).
 * Only files of the cache's own layout are ever removed, and only in a folder that is a
 * cache (its CACHEDIR.TAG, see marker.ts).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { removeEmptyFolderSync, removeFileSync } from '../core/support/files.ts'
import { writeFileAtomic } from './files.ts'
import { cacheFiles, checkCacheDir, isCacheFileName } from './marker.ts'
import { compactedSegmentName, digestsDir, listSegments, scorersDir, segmentsDir, segmentWriterMayRun } from './layout.ts'
import { decodeSegment, encodeHeader, encodeRecord, type CacheEntry } from './segment.ts'
import type { ScorerInfo } from './scorer-info.ts'

/** What `sceptic cache stats` prints. */
export interface CacheStats {
  /** The cache directory (absolute). */
  readonly dir: string
  /** Distinct cached vectors. */
  readonly entries: number
  /** Bytes of all segment files. */
  readonly bytes: number
  /** Segment files. */
  readonly segments: number
  /** Per scorer id: what it is and how many entries it holds, most entries first. */
  readonly scorers: readonly (ScorerInfo & { readonly id: string; readonly entries: number })[]
  /** One line per unreadable segment or torn tail. */
  readonly warnings: readonly string[]
}

/** What each scorer id stands for (ids without a readable file are left out). */
export function readScorers(dir: string): Map<string, ScorerInfo> {
  const out = new Map<string, ScorerInfo>()
  let names: string[] = []
  try {
    names = readdirSync(scorersDir(dir))
  } catch {
    return out
  }
  for (const name of names) {
    const match = /^([0-9a-f]{32})\.json$/.exec(name)
    if (!match) continue
    try {
      const info = JSON.parse(readFileSync(join(scorersDir(dir), name), 'utf8')) as Partial<ScorerInfo>
      if (typeof info.kind === 'string' && typeof info.label === 'string') out.set(match[1]!, { kind: info.kind, label: info.label })
    } catch {
      // unreadable: its entries count under an unknown scorer
    }
  }
  return out
}

/** Read every segment: entries by file, and warnings. */
function readAll(dir: string): { files: { name: string; entries: CacheEntry[]; bytes: number; ours: boolean }[]; warnings: string[] } {
  const files: { name: string; entries: CacheEntry[]; bytes: number; ours: boolean }[] = []
  const warnings: string[] = []
  for (const name of listSegments(dir)) {
    const path = join(segmentsDir(dir), name)
    let bytes: Buffer
    try {
      bytes = readFileSync(path)
    } catch {
      continue
    }
    const decoded = decodeSegment(bytes)
    if (decoded.problem) warnings.push(`vitest-sceptic cache: ${path}: ${decoded.problem}`)
    files.push({ name, entries: decoded.entries, bytes: bytes.length, ours: decoded.ours })
  }
  return { files, warnings }
}

/** Entries, size and models of a cache directory. */
export function cacheStats(dir: string): CacheStats {
  const { files, warnings } = readAll(dir)
  const keys = new Set<string>()
  const perScorer = new Map<string, Set<string>>()
  for (const file of files)
    for (const entry of file.entries) {
      keys.add(entry.key)
      let set = perScorer.get(entry.scorer)
      if (!set) perScorer.set(entry.scorer, (set = new Set()))
      set.add(entry.key)
    }
  const known = readScorers(dir)
  const scorers = [...perScorer]
    .map(([id, set]) => ({ id, entries: set.size, ...(known.get(id) ?? { kind: 'unknown', label: '(no description)' }) }))
    .sort((a, b) => b.entries - a.entries || (a.id < b.id ? -1 : 1))
  return { dir, entries: keys.size, bytes: files.reduce((sum, f) => sum + f.bytes, 0), segments: files.length, scorers, warnings }
}

/**
 * Rewrite every closed segment of this format (its writer is gone) into one, keeping the entries
 * `keep` accepts, once each: written to a temp file, fsynced, renamed into place,
 * and only then are the old segments removed. Segments of live writers are left alone.
 * Returns the entries dropped and the segments merged.
 */
export function compact(dir: string, keep: (entry: CacheEntry) => boolean = () => true): { dropped: number; merged: number; skippedLive: number } {
  if (checkCacheDir(dir, 'nothing was compacted') === 'missing') return { dropped: 0, merged: 0, skippedLive: 0 }
  const { files } = readAll(dir)
  // Only segments of this format, named as the cache names them, whose writer is gone: a foreign file or a newer version's segment is never touched.
  const closed = files.filter((file) => file.ours && isCacheFileName('segments', file.name) && !segmentWriterMayRun(file.name))
  const seen = new Set<string>()
  const kept: Buffer[] = [encodeHeader()]
  let dropped = 0
  for (const file of closed)
    for (const entry of file.entries) {
      if (seen.has(entry.key)) continue
      seen.add(entry.key)
      if (keep(entry)) kept.push(encodeRecord(entry))
      else dropped++
    }
  if (closed.length > 0) {
    if (kept.length > 1) writeFileAtomic(join(segmentsDir(dir), compactedSegmentName()), Buffer.concat(kept))
    for (const file of closed) removeFileSync(join(segmentsDir(dir), file.name))
  }
  return { dropped, merged: closed.length, skippedLive: files.length - closed.length }
}

/**
 * `sceptic cache clear`: remove the whole cache (the files of its segments, scorer notes
 * and digest memos named as the cache names them; nothing else, and the marker stays),
 * or with `model` only the entries of ONNX scorers over that model directory. A folder
 * that is not a cache is a ConfigError, and nothing is removed. Returns the entries removed.
 */
export function clearCache(dir: string, options: { model?: string } = {}): { removed: number; skippedLive: number } {
  if (checkCacheDir(dir, 'nothing removed') === 'missing') return { removed: 0, skippedLive: 0 }
  if (options.model === undefined) {
    const before = cacheStats(dir).entries
    for (const file of cacheFiles(dir)) removeFileSync(file)
    for (const sub of [segmentsDir(dir), scorersDir(dir), digestsDir(dir)]) removeEmptyFolderSync(sub)
    return { removed: before, skippedLive: 0 }
  }
  const model = resolve(options.model)
  const ids = new Set([...readScorers(dir)].filter(([, info]) => info.kind === 'onnx' && resolve(info.label) === model).map(([id]) => id))
  const { dropped, skippedLive } = compact(dir, (entry) => !ids.has(entry.scorer))
  return { removed: dropped, skippedLive }
}

/** Whether `dir` looks like a cache (has a segments folder). */
export function isCacheDir(dir: string): boolean {
  try {
    return statSync(segmentsDir(dir)).isDirectory()
  } catch {
    return false
  }
}
