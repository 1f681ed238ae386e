/**
 * Manifest entries a scorer reports about its own run (the HTTP scorer's requests per
 * endpoint, `manifestEntries()`): the keys are fixed when the scorer is handed over, the
 * values read when the evaluator builds the manifest at the end of the run.
 */

/** `base` plus the scorer's live entries (getters), with every getter of `base` kept as a getter. */
export function withScorerManifest(base: Record<string, unknown>, score: unknown): Record<string, unknown> {
  const out = Object.defineProperties({}, Object.getOwnPropertyDescriptors(base)) as Record<string, unknown>
  const entries = (score as { manifestEntries?: unknown } | undefined)?.manifestEntries
  if (typeof entries !== 'function') return out
  const read = () => entries.call(score) as Record<string, unknown>
  for (const key of Object.keys(read()))
    if (!Object.hasOwn(out, key)) Object.defineProperty(out, key, { get: () => read()[key], enumerable: true, configurable: true })
  return out
}
