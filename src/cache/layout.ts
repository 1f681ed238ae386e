/** Where things live inside a cache directory (docs/cache.md, "Store"). */
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { hostTag, writerMayRun } from '../core/support/process-identity.ts'

/** Segment files: `DIR/segments/*.seg`. */
export const segmentsDir = (dir: string): string => join(dir, 'segments')
/** One JSON file per scorer id (what it was, for `cache stats` and `cache clear --model`). */
export const scorersDir = (dir: string): string => join(dir, 'scorers')
/** Memoised file digests, one JSON file per hashed path. */
export const digestsDir = (dir: string): string => join(dir, 'digests')

/** Suffix of a complete segment. Anything else in `segments/` (a compaction's temp file) is not read. */
export const SEGMENT_SUFFIX = '.seg'

/** The complete segments' file names, sorted; none when the folder cannot be read. */
export function listSegments(dir: string): string[] {
  try {
    return readdirSync(segmentsDir(dir))
      .filter((name) => name.endsWith(SEGMENT_SUFFIX))
      .sort()
  } catch {
    return []
  }
}

/**
 * A fresh, unique segment name: `<time>-<pid>-<random>-<host>.seg`. The writer's pid and
 * host tell a repair or a compaction whether the writer may still be appending.
 */
export function newSegmentName(): string {
  return `${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}-${hostTag()}${SEGMENT_SUFFIX}`
}

/** A name for a compaction's output: `<time>-c-<random>.seg`, no writer (it is complete when renamed in). */
export function compactedSegmentName(): string {
  return `${Date.now().toString(36)}-c-${randomBytes(4).toString('hex')}${SEGMENT_SUFFIX}`
}

/** The writer of a segment from its name (host absent in names written before it was recorded), or `undefined` for a compacted or foreign name. */
export function segmentWriter(name: string): { readonly pid: number; readonly host: string | undefined } | undefined {
  const match = /^[0-9a-z]+-(\d+)-[0-9a-f]+(?:-([A-Za-z0-9._]+))?\.seg$/.exec(name)
  return match ? { pid: Number(match[1]), host: match[2] } : undefined
}

/**
 * Whether the writer of segment `name` may still be appending to it: its process runs on
 * this host, or it ran on another host, whose processes cannot be seen. `false` for a
 * compacted or foreign name (no writer).
 */
export function segmentWriterMayRun(name: string): boolean {
  const writer = segmentWriter(name)
  return writer !== undefined && writerMayRun(writer.host, writer.pid)
}

/** A temp file name beside `path` for write-then-rename (`<path>.tmp-<pid>-<random>`). */
export { tempName } from '../core/support/files.ts'
