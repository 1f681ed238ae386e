/**
 * One request with retries and failover: try its decision's endpoints in order, attempt,
 * back off (doubling, or as the server's `Retry-After` says), and end as a vector, a
 * flagged vector (`missing_logprobs`) or a counted failure; never a throw for a
 * per-request problem.
 */
import { scoreFailure, type ScoreOutcome, type ScoreRequest } from '../../core/scorer/contract.ts'
import { attemptOnce, type AttemptFailure } from './attempt.ts'
import { sleep } from './concurrency.ts'
import { choose, MAX_ENDPOINT_BACKOFF_MS, type Endpoint } from './endpoints.ts'
import type { LetterIds } from './letter-ids.ts'
import type { RequestStats } from './stats.ts'
import type { Scrubber } from './scrub.ts'
import type { HttpSettings } from './settings.ts'

/** Score `request` (see the module comment) on the first of `ranked` in service, asking for exactly `letters` when given; `stats` is updated in place. */
export async function scoreOne(
  settings: HttpSettings,
  scrubber: Scrubber,
  stats: RequestStats,
  request: ScoreRequest,
  signal: AbortSignal | undefined,
  ranked: readonly Endpoint[],
  letters?: LetterIds,
): Promise<ScoreOutcome> {
  let last: AttemptFailure = { reason: 'error', message: 'not attempted' }
  let retryAfter: number | undefined
  let refused = 0
  for (let attempt = 0; attempt <= settings.retries; attempt++) {
    if (attempt > 0) {
      stats.retries++
      // Doubling stops at the cap, as an endpoint's does: 2^attempt would pass setTimeout's limit (read as 1 ms).
      await sleep(retryAfter ?? Math.min(settings.backoffMs * 2 ** (attempt - 1), MAX_ENDPOINT_BACKOFF_MS), signal)
    }
    signal?.throwIfAborted()
    stats.attempts++
    const chosen = choose(ranked, Date.now())
    chosen.endpoint.counts.requests++
    if (chosen.failover) chosen.endpoint.counts.failovers++
    const result = await attemptOnce(settings, scrubber, chosen.endpoint, request, signal, letters)
    if (result.kind === 'scored') {
      if (result.readout) stats.readouts[result.readout]++
      if (result.missing.length === 0) return result.probabilities
      stats.missingLogprobs++
      return { probabilities: result.probabilities, flags: ['missing_logprobs'] }
    }
    last = result.failure
    retryAfter = result.kind === 'retry' ? result.retryAfter : undefined
    if (result.kind === 'give-up') break
    // A refused connection is a server that is down, not busy: fail fast unless asked to wait (several endpoints fail over instead).
    if (result.kind === 'retry' && result.refused && !settings.several && ++refused > settings.connectRetries) break
  }
  stats.failures[last.reason] = (stats.failures[last.reason] ?? 0) + 1
  return scoreFailure(last.reason, last.message)
}
