/**
 * The scorer manifest of a merged run (docs/scaling-out.md): what each part counted is summed,
 * where a part loaded its model from is kept per part, and every other entry is a setting that
 * must be equal in every part.
 */
import { DataError } from '../support/errors.ts'

/**
 * How a merge combines a scorer's manifest entry over the parts. `counters`: what each part
 * did (requests per endpoint, decision calls, questions, tokens, failures, tokens evaluated):
 * numbers summed, any other value must be equal. `per-part`: where a part loaded its model from
 * (the packed-weights folder, loaded or written): not a run setting, kept per part. Every other
 * entry is a setting and must be equal in every part.
 */
export const MANIFEST_MERGE: Readonly<Record<string, 'counters' | 'per-part'>> = {
  endpoints: 'counters',
  readouts: 'counters',
  decide: 'counters',
  tokensEvaluated: 'counters',
  minimumTokens: 'counters',
  prepackCache: 'per-part',
  prepacked: 'per-part',
}

/** A part's manifest without its counters and per-part entries: what must be equal in every part. */
export function manifestSettings(manifest: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(Object.entries(manifest).filter(([key]) => !Object.hasOwn(MANIFEST_MERGE, key)))
}

/** What a merge reads of one part: where it came from, which shard it is, its scorer manifest. */
export interface ManifestPart {
  readonly file: string
  readonly shard: { readonly index: number; readonly count: number }
  readonly manifest: Record<string, unknown>
}

/** Scorer manifest entries of the parts: settings kept, counters summed, per-part entries kept once when equal or else listed by part. */
export function mergeManifests(parts: readonly ManifestPart[]): Record<string, unknown> {
  const out = { ...parts[0]!.manifest }
  for (const [key, rule] of Object.entries(MANIFEST_MERGE)) {
    const given = parts.filter((p) => Object.hasOwn(p.manifest, key))
    if (given.length === 0) continue
    const values = given.map((p) => p.manifest[key])
    if (rule === 'counters') {
      out[key] = values.reduce((sum, value, i) => sumCounts(sum, value, key, given[i]!.file))
      continue
    }
    const same = values.every((value) => JSON.stringify(value) === JSON.stringify(values[0]))
    out[key] = same ? values[0] : given.map((p) => `${p.shard.index}/${p.shard.count}: ${typeof p.manifest[key] === 'string' ? p.manifest[key] : JSON.stringify(p.manifest[key])}`).join('; ')
  }
  return out
}

/** Deep sum of numeric leaves (keys in first-seen order); any other leaf must be equal (a counter entry's provider, model). */
function sumCounts(a: unknown, b: unknown, path: string, file: string): unknown {
  if (typeof a === 'number' && typeof b === 'number') return a + b
  if (a && b && typeof a === 'object' && typeof b === 'object' && !Array.isArray(a) && !Array.isArray(b)) {
    // Keys are endpoint URLs (data): defined, never assigned, so `__proto__` stays a plain key.
    const out: Record<string, unknown> = {}
    const put = (k: string, v: unknown) => Object.defineProperty(out, k, { value: v, enumerable: true, writable: true, configurable: true })
    for (const [k, v] of Object.entries(a as Record<string, unknown>)) put(k, v)
    for (const [k, v] of Object.entries(b as Record<string, unknown>)) put(k, Object.hasOwn(out, k) ? sumCounts(out[k], v, `${path}.${k}`, file) : v)
    return out
  }
  if (JSON.stringify(a) !== JSON.stringify(b))
    throw new DataError(`its manifest's ${path} ${JSON.stringify(b)} differs from another part's ${JSON.stringify(a)}: these parts are not from one run`, { file })
  return a
}
