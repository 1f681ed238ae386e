/**
 * `sceptic cache clear --scorer DESCRIPTION | --older-than DAYS`: which entries to remove.
 * The removal itself is {@link compact}'s (closed segments only, rewritten atomically).
 */
import { readFileSync, statSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { compact, readScorers } from './admin.ts'
import { listSegments, segmentsDir } from './layout.ts'
import { decodeSegment, type CacheEntry } from './segment.ts'

/** Entries to remove: all must hold. */
export interface CacheSelection {
  /** Entries of ONNX scorers over this model directory. */
  readonly model?: string
  /** Entries of the scorer whose description (the label `cache stats` lists) is exactly this. */
  readonly scorer?: string
  /** Entries last written more than this many days ago (by their segment file's time). */
  readonly olderThanDays?: number
}

/** The predicate an entry must meet to be removed, given the cache at `dir` and the time `now` (ms). */
export function selectEntries(dir: string, selection: CacheSelection, now = Date.now()): (entry: CacheEntry) => boolean {
  const scorers = readScorers(dir)
  const model = selection.model === undefined ? undefined : resolve(selection.model)
  const ids = (match: (kind: string, label: string) => boolean) => new Set([...scorers].filter(([, info]) => match(info.kind, info.label)).map(([id]) => id))
  const byModel = model === undefined ? undefined : ids((kind, label) => kind === 'onnx' && resolve(label) === model)
  const byScorer = selection.scorer === undefined ? undefined : ids((_, label) => label === selection.scorer)
  const fresh = selection.olderThanDays === undefined ? undefined : keysWrittenSince(dir, now - selection.olderThanDays * 86_400_000)
  return (entry) =>
    (byModel === undefined || byModel.has(entry.scorer)) &&
    (byScorer === undefined || byScorer.has(entry.scorer)) &&
    (fresh === undefined || !fresh.has(entry.key))
}

/** Keys held by a segment written at or after `since` (ms): an entry written again recently is not old. */
function keysWrittenSince(dir: string, since: number): Set<string> {
  const keys = new Set<string>()
  for (const name of listSegments(dir)) {
    const path = join(segmentsDir(dir), name)
    try {
      if (statSync(path).mtimeMs < since) continue
      for (const entry of decodeSegment(readFileSync(path)).entries) keys.add(entry.key)
    } catch {
      // gone meanwhile: nothing fresh in it
    }
  }
  return keys
}

/** Remove the selected entries; returns the entries removed and the live segments left alone. */
export function clearSelected(dir: string, selection: CacheSelection): { removed: number; skippedLive: number } {
  const remove = selectEntries(dir, selection)
  const { dropped, skippedLive } = compact(dir, (entry) => !remove(entry))
  return { removed: dropped, skippedLive }
}
