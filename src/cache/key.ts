/**
 * Cache keys (docs/cache.md, "Key"). A scorer id digests everything that decides the
 * scorer's output (file digests, settings); a request key digests the scorer id and
 * everything of the request the scorer may read (prompt, state, the criterion with
 * its options in presented order, option count, letters, epoch). Keys are sha256: they cannot leak what they hash.
 */
import { createHash } from 'node:crypto'
import pkg from '../../package.json' with { type: 'json' }
import { canonicalJson } from '../core/decisions/fingerprint.ts'
import { LETTERS } from '../core/decisions/schema.ts'
import type { CacheIdentity, ScoreRequest } from '../core/scorer/contract.ts'
import { fileDigest } from './digest.ts'
import { SCORER_ID_BYTES } from './segment.ts'

export type { CacheIdentity }

/**
 * The scorer id: a hex sha256 prefix of this package's version (a new release may read
 * models differently), the identity's kind, settings and file digests (the paths
 * themselves are not part of it: a copied model shares its entries).
 */
export async function scorerId(identity: CacheIdentity, dir: string | undefined, writeMemo = true): Promise<string> {
  const files: Record<string, string> = {}
  for (const [role, path] of Object.entries(identity.files ?? {}).sort(([a], [b]) => (a < b ? -1 : 1)))
    files[role] = await fileDigest(path, dir, writeMemo)
  const text = canonicalJson({ format: 1, version: pkg.version, kind: identity.kind, settings: identity.settings ?? null, files })
  return createHash('sha256').update(text).digest('hex').slice(0, SCORER_ID_BYTES * 2)
}

/**
 * The request key: sha256 over the scorer id and the request's fields, each
 * length-prefixed (unambiguous without escaping), as a latin1 string of 32 bytes.
 */
export function requestKey(scorer: string, request: ScoreRequest): string {
  const n = request.criterion.options.length
  // The whole criterion (key, question, option ids and texts in presented order): a scorer may read any of it.
  const criterion = JSON.stringify(request.criterion)
  const fields = [scorer, request.prompt, request.state, criterion, String(n), LETTERS.slice(0, n), String(request.epoch ?? 0)]
  let text = ''
  for (const field of fields) text += `${field.length}:${field}`
  return createHash('sha256').update(text).digest().toString('latin1')
}
