/**
 * How the evaluator learns what a score cache did during one run, without knowing
 * anything about caches: a caching scorer carries a counter under {@link CACHE_COUNTS}.
 */
import { thousands } from '../support/thousands.ts'

/** Requests a score cache answered (`hits`) and passed on to the scorer (`misses`). */
export interface CacheCounts {
  /** Requests answered from the cache, without calling the scorer. */
  hits: number
  /** Requests the cache passed to the scorer (scored now, and stored when valid). */
  misses: number
  /**
   * Hits re-scored live and found equal (remote scorers only, docs/cache.md "Remote
   * scorers"); absent for scorers whose hits are not re-checked. Optional: older JSON lacks it.
   */
  verified?: number
  /**
   * Why a remote scorer's hits were not re-checked: `sampled` (its answers are random
   * draws), `off` (the cache's `verify` set to 0). Absent otherwise.
   */
  verifySkipped?: 'sampled' | 'off'
}

/** Property under which a caching scorer exposes its running {@link CacheCounts}. */
export const CACHE_COUNTS: unique symbol = Symbol.for('vitest-sceptic.cacheCounts') as never

/**
 * Property under which a caching scorer exposes the check it makes once a run's scoring
 * is over (a remote scorer's live re-check of a sample of the whole run's hits). The
 * evaluator awaits it after the last call; it throws to fail the run.
 */
export const CACHE_SETTLE: unique symbol = Symbol.for('vitest-sceptic.cacheSettle') as never

/** Run a caching scorer's end-of-run check ({@link CACHE_SETTLE}); nothing for any other scorer. */
export async function settleCache(score: unknown, signal: AbortSignal): Promise<void> {
  const settle = (score as { [CACHE_SETTLE]?: (context: { signal: AbortSignal }) => Promise<void> } | null | undefined)?.[CACHE_SETTLE]
  if (typeof settle === 'function') await settle({ signal })
}

/** The running counts of a caching scorer, copied; `undefined` for any other scorer. */
export function readCacheCounts(score: unknown): CacheCounts | undefined {
  const counts = (score as { [CACHE_COUNTS]?: CacheCounts } | null | undefined)?.[CACHE_COUNTS]
  return counts ? copy(counts) : undefined
}

/** A copy keeping the optional fields only when present (JSON stays as before for other scorers). */
function copy(counts: CacheCounts, hits = counts.hits, misses = counts.misses, verified = counts.verified): CacheCounts {
  return {
    hits,
    misses,
    ...(verified !== undefined ? { verified } : {}),
    ...(counts.verifySkipped !== undefined ? { verifySkipped: counts.verifySkipped } : {}),
  }
}

/** What a caching scorer did since `before` (from {@link readCacheCounts}); `undefined` when it is not one. */
export function cacheCountsSince(score: unknown, before: CacheCounts | undefined): CacheCounts | undefined {
  const now = readCacheCounts(score)
  if (!now || !before) return undefined
  const verified = now.verified !== undefined ? now.verified - (before.verified ?? 0) : undefined
  return copy(now, now.hits - before.hits, now.misses - before.misses, verified)
}

/**
 * The report's cache line: `4,812 hits, 188 scored` (thousands separated, locale-independent),
 * and for a remote scorer with hits `, 8 re-checked live` or why they were not.
 */
export function formatCacheCounts(counts: CacheCounts): string {
  const line = `${thousands(counts.hits)} hit${counts.hits === 1 ? '' : 's'}, ${thousands(counts.misses)} scored`
  if (counts.hits === 0) return line
  if (counts.verifySkipped === 'sampled') return `${line}, hits not re-checked live (a sampling scorer)`
  if (counts.verifySkipped === 'off') return `${line}, hits not re-checked live (cache verify 0)`
  return counts.verified !== undefined ? `${line}, ${thousands(counts.verified)} re-checked live` : line
}
