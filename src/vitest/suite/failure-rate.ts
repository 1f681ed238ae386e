/**
 * The failure-rate rule of a suite (docs/vitest.md): metrics over a silently smaller set
 * must not pass a gate, so more failed decisions than `maxFailureRate` allows fail every
 * check (recall_guard counts failures per bucket for the same reason). One home for the
 * running suite and for the merge of decision shards.
 */
import { escapeControl } from '../../core/support/escape.ts'
import type { EvalResult } from '../../core/index.ts'

/** The failure message when more of `result`'s labelled decisions failed than `maxFailureRate` (in [0, 1]) allows, else `undefined`. */
export function failureRateProblem(name: string, result: Pick<EvalResult, 'n' | 'failed' | 'manifest'>, maxFailureRate: number): string | undefined {
  const failed = result.failed ?? 0
  if (failed === 0) return undefined
  const labelled = result.n + failed
  if (failed / labelled <= maxFailureRate + 1e-12) return undefined
  const reasons = Object.entries(result.manifest.failedByReason ?? {})
    .map(([reason, count]) => `${escapeControl(reason)} ${count}`)
    .join(', ')
  return (
    `"${name}": ${failed} of ${labelled} labelled decisions failed to score (${reasons}); maxFailureRate is ${maxFailureRate}. ` +
    'The metrics cover only the decisions that scored.'
  )
}
