/**
 * Re-score a sample of a run's cache hits live and compare them with the cached vectors
 * (docs/cache.md, "Remote scorers: hits re-checked live").
 */
import type { FallibleScoreFn, ScoreOutcome, ScoreRequest } from '../core/scorer/contract.ts'
import { compareHits, staleCacheError } from './verify.ts'

/** One sampled hit: the request and what the cache answered. */
export interface SampledHit {
  readonly request: ScoreRequest
  readonly cached: ScoreOutcome
}

/** The number of hits re-checked; throws a ScorerError when any differs beyond the tolerance. */
export async function checkHits(score: FallibleScoreFn, sample: readonly SampledHit[], label: string, rest: readonly unknown[]): Promise<number> {
  if (sample.length === 0) return 0
  const live = await (score as (r: readonly ScoreRequest[], ...more: unknown[]) => unknown)(
    sample.map((hit) => hit.request),
    ...rest,
  )
  // A scorer that breaks its contract on the re-check counts as differing on every request.
  const outcomes = Array.isArray(live) && live.length === sample.length ? (live as ScoreOutcome[]) : sample.map(() => ({ failure: 'error' }) as never)
  const outcome = compareHits(
    sample.map((hit) => hit.cached),
    outcomes,
  )
  if (outcome.differing > 0) throw staleCacheError(outcome, label)
  return sample.length
}
