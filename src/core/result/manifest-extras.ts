/** Extra manifest entries a caller may add, and the computed ones they may not overwrite. */
import { dict } from '../support/dict.ts'
import { ConfigError } from '../support/errors.ts'
import type { Manifest } from './result.ts'

/**
 * Manifest entries the evaluation computes itself. The `manifest` option may add
 * entries (model path, batch size, …) but never set one of these: a caller's
 * `fingerprint` or `decisions` would make two different runs look comparable.
 */
export const COMPUTED_MANIFEST_KEYS: readonly string[] = Object.freeze([
  'debias',
  'orderingsScored',
  'forwardPasses',
  'decisions',
  'unlabelledSkipped',
  'failed',
  'failedByReason',
  'flagged',
  'tied',
  'epochs',
  'reducer',
  'fingerprint',
  'recordsFingerprint',
  'chance',
  'seed',
  'versions',
  'cpu',
  'started',
  'seconds',
  'scorer',
  'average',
  'pride',
  'circularChance',
  'cache',
])

/** Refuse, before any scoring, extra manifest entries that name a computed one. */
export function checkManifestExtras(extras: Readonly<Record<string, unknown>> | undefined): void {
  if (extras === undefined) return
  if (typeof extras !== 'object' || extras === null || Array.isArray(extras))
    throw new ConfigError(`manifest must be an object of extra entries, got ${Array.isArray(extras) ? 'an array' : typeof extras}`)
  const clash = Object.keys(extras).filter((key) => COMPUTED_MANIFEST_KEYS.includes(key))
  if (clash.length > 0)
    throw new ConfigError(
      `manifest entr${clash.length === 1 ? 'y' : 'ies'} ${clash.map((key) => JSON.stringify(key)).join(', ')} ` +
        `${clash.length === 1 ? 'is' : 'are'} computed by the evaluation and cannot be set; name the extra entry differently`,
    )
}

/** The computed manifest with the caller's extra entries added beside it; computed entries always win. */
export function withManifestExtras(computed: Manifest, extras: Readonly<Record<string, unknown>> | undefined): Manifest {
  return Object.assign(dict<unknown>(Object.entries(extras ?? {})), computed) as Manifest
}
