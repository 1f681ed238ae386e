/**
 * The failure-rate rule of a run: metrics over a silently smaller set must not pass a
 * gate, so more failed decisions than `maxFailureRate` allows fail every check
 * (recall_guard counts failures per bucket for the same reason). Read by the one gate
 * (gate.ts) only.
 */
import { escapeControl } from '../core/support/escape.ts'
import type { EvalResultJson } from '../core/result/result.ts'
import { FAILURE_RATE_KEY } from '../core/thresholds/sequential/monitor.ts'

/** Slack for the ratio of two small integers against a rate the user wrote. */
const RATE_EPSILON = 1e-12

/** The failure message when more of `result`'s labelled decisions failed than `maxFailureRate` (in [0, 1]) allows, else `undefined`. */
export function failureRateProblem(name: string, result: Pick<EvalResultJson, 'n' | 'failed' | 'manifest'>, maxFailureRate: number): string | undefined {
  const failed = result.failed ?? 0
  if (failed === 0) return undefined
  const labelled = result.n + failed
  if (failed / labelled <= maxFailureRate + RATE_EPSILON) return undefined
  const reasons = Object.entries(result.manifest.failedByReason ?? {})
    .map(([reason, count]) => `${escapeControl(reason)} ${count}`)
    .join(', ')
  return (
    `"${name}": ${failed} of ${labelled} labelled decisions failed to score (${reasons}); maxFailureRate is ${maxFailureRate}. ` +
    'The metrics cover only the decisions that scored.'
  )
}

/**
 * Why a run that stopped early has no failure-rate verdict, or `undefined`. Above 0 the rate is
 * decided at the looks by an anytime-valid bound; a stop before that bound met `maxFailureRate`
 * saw only a sample, whose rate may pass where the full run's fails. At 0 a stop reads the failures seen.
 */
export function failureRateUndecided(result: Pick<EvalResultJson, 'stopEarly'>, maxFailureRate: number): string | undefined {
  const stop = result.stopEarly
  if (!stop?.stopped || maxFailureRate === 0 || stop.verdicts[FAILURE_RATE_KEY] === 'pass') return undefined
  const bounds = stop.bounds[FAILURE_RATE_KEY]
  const between = bounds ? ` (anytime-valid bounds ${bounds.lower.toFixed(3)}–${bounds.upper.toFixed(3)})` : ''
  return `the run stopped early (${stop.scored} of ${stop.total} decisions scored) before its failure rate was shown ≤ ${maxFailureRate}${between}`
}
