/**
 * How the evaluator learns what a score cache did during one run, without knowing
 * anything about caches: a caching scorer carries a counter under {@link CACHE_COUNTS}.
 */

/** Requests a score cache answered (`hits`) and passed on to the scorer (`misses`). */
export interface CacheCounts {
  /** Requests answered from the cache, without calling the scorer. */
  hits: number
  /** Requests the cache passed to the scorer (scored now, and stored when valid). */
  misses: number
}

/** Property under which a caching scorer exposes its running {@link CacheCounts}. */
export const CACHE_COUNTS: unique symbol = Symbol.for('vitest-sceptic.cacheCounts') as never

/** The running counts of a caching scorer, copied; `undefined` for any other scorer. */
export function readCacheCounts(score: unknown): CacheCounts | undefined {
  const counts = (score as { [CACHE_COUNTS]?: CacheCounts } | null | undefined)?.[CACHE_COUNTS]
  return counts ? { hits: counts.hits, misses: counts.misses } : undefined
}

/** What a caching scorer did since `before` (from {@link readCacheCounts}); `undefined` when it is not one. */
export function cacheCountsSince(score: unknown, before: CacheCounts | undefined): CacheCounts | undefined {
  const now = readCacheCounts(score)
  if (!now || !before) return undefined
  return { hits: now.hits - before.hits, misses: now.misses - before.misses }
}

/** The report's cache line: `4,812 hits, 188 scored` (thousands separated, locale-independent). */
export function formatCacheCounts(counts: CacheCounts): string {
  const n = (value: number) => value.toLocaleString('en-US')
  return `${n(counts.hits)} hit${counts.hits === 1 ? '' : 's'}, ${n(counts.misses)} scored`
}
