/**
 * File digests for scorer identities, remembered beside the cache in `digests/` by the one
 * rule of src/core/support/file-digest.ts (keyed on the file's stat, ctime included).
 */
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { fileDigest as digestOf, memoName } from '../core/support/file-digest.ts'
import { digestsDir } from './layout.ts'
import { claimCacheDir } from './marker.ts'

/** Digest recorded for a file that does not exist (an optional file such as `tokenizer_config.json`). */
export const ABSENT = 'absent'

/**
 * The sha256 of `path` (or {@link ABSENT}). With a cache `dir` the digest is looked
 * up in and stored to `dir/digests/` keyed on the file's identity and stat; a stale
 * or unreadable memo is recomputed, never trusted. `write: false` never writes.
 */
export async function fileDigest(path: string, dir: string | undefined, write = true): Promise<string> {
  if (dir === undefined) return (await digestOf(path)) ?? ABSENT
  const folder = digestsDir(dir)
  const beforeWrite = () => {
    claimCacheDir(dir)
    mkdirSync(folder, { recursive: true })
  }
  return (await digestOf(path, { file: join(folder, `${memoName(path)}.json`), write, beforeWrite })) ?? ABSENT
}
