/** Where things live inside a cache directory (docs/cache.md, "Store"). */
import { randomBytes } from 'node:crypto'
import { join } from 'node:path'

/** Segment files: `DIR/segments/*.seg`. */
export const segmentsDir = (dir: string): string => join(dir, 'segments')
/** One JSON file per scorer id (what it was, for `cache stats` and `cache clear --model`). */
export const scorersDir = (dir: string): string => join(dir, 'scorers')
/** Memoised file digests, one JSON file per hashed path. */
export const digestsDir = (dir: string): string => join(dir, 'digests')

/** Suffix of a complete segment. Anything else in `segments/` (a compaction's temp file) is not read. */
export const SEGMENT_SUFFIX = '.seg'

/** A fresh, unique segment name: `<time>-<pid>-<random>.seg`; the pid tells compaction whether its writer may still be alive. */
export function newSegmentName(): string {
  return `${Date.now().toString(36)}-${process.pid}-${randomBytes(4).toString('hex')}${SEGMENT_SUFFIX}`
}

/** The writer's pid from a segment name, or `undefined` for a compacted or foreign name. */
export function segmentPid(name: string): number | undefined {
  const match = /^[0-9a-z]+-(\d+)-[0-9a-f]+\.seg$/.exec(name)
  return match ? Number(match[1]) : undefined
}

/** A temp file name beside `path` for write-then-rename. */
export function tempName(path: string): string {
  return `${path}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`
}
