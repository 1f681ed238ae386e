/**
 * A baseline scored on another CPU kind (docs/baselines.md#a-baseline-from-another-cpu-kind): fp32
 * rounding may swap a near-tie there, so such flips are named and not counted; every other flip counts.
 */
import { NEAR_TIE_MARGIN } from '../../core/evaluate/argmax.ts'

/** The two CPU kinds when the baseline was scored on another kind than this run (both known), else `undefined`. */
export function otherCpuKind(baseline: { readonly cpu?: string | undefined }, current: { readonly cpu?: string | undefined }): { baseline: string; now: string } | undefined {
  return baseline.cpu !== undefined && current.cpu !== undefined && baseline.cpu !== current.cpu ? { baseline: baseline.cpu, now: current.cpu } : undefined
}

/** The gate's sentence on a baseline from another CPU kind: which flips it named and did not count. */
export function nearTieNote(cpus: { baseline: string; now: string } | undefined, flips: readonly string[]): string {
  if (!cpus) return ''
  const shown = flips.slice(0, 5).map((id) => JSON.stringify(id)).join(', ')
  return (
    `; the baseline was scored on ${cpus.baseline}, this run on ${cpus.now}: ` +
    (flips.length === 0
      ? 'no decision flipped at a near-tie'
      : `${flips.length} decision${flips.length === 1 ? '' : 's'} that flipped at a near-tie (top two within ${NEAR_TIE_MARGIN} under some ordering, which rounding on another CPU can swap) ` +
        `${flips.length === 1 ? 'was' : 'were'} named and not counted: ${shown}${flips.length > 5 ? `, and ${flips.length - 5} more` : ''}`)
  )
}
