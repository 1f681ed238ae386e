/**
 * Re-score a deterministic sample of one call's cache hits live and compare them with the
 * cached vectors (docs/cache.md, "Remote scorers: hits re-checked live").
 */
import type { FallibleScoreFn, ScoreOutcome, ScoreRequest } from '../core/score.ts'
import { compareHits, pickSample, staleCacheError } from './verify.ts'

/** One call's hits and what to re-check of them. */
export interface CheckHitsInput {
  /** The wrapped scorer (its calls count in its own stats, e.g. an openAIScorer's requests). */
  readonly score: FallibleScoreFn
  /** The call's requests. */
  readonly requests: readonly ScoreRequest[]
  /** The call's outcomes so far: the hits are filled in. */
  readonly out: readonly ScoreOutcome[]
  /** Indices of the call's misses (every other index is a hit). */
  readonly missing: readonly number[]
  /** Most hits to re-check (≥ 1). */
  readonly take: number
  /** The scorer's label, for the error. */
  readonly label: string
  /** Extra call arguments (the ScoreContext with its AbortSignal), passed through. */
  readonly rest: readonly unknown[]
}

/** The number of hits re-checked; throws a ScorerError when any differs beyond the tolerance. */
export async function checkHits({ score, requests, out, missing, take, label, rest }: CheckHitsInput): Promise<number> {
  const isMiss = new Set(missing)
  const hits = requests.map((_, i) => i).filter((i) => !isMiss.has(i))
  const sample = pickSample(hits, take)
  const live = await (score as (r: readonly ScoreRequest[], ...more: unknown[]) => unknown)(
    sample.map((i) => requests[i]!),
    ...rest,
  )
  // A scorer that breaks its contract on the re-check counts as differing on every request.
  const outcomes = Array.isArray(live) && live.length === sample.length ? (live as ScoreOutcome[]) : sample.map(() => ({ failure: 'error' }) as never)
  const outcome = compareHits(
    sample.map((i) => out[i]!),
    outcomes,
  )
  if (outcome.differing > 0) throw staleCacheError(outcome, label)
  return sample.length
}
