/**
 * A baseline scored on another CPU kind (docs/baselines.md#a-baseline-from-another-cpu-kind): fp32
 * rounding may swap a near-tie there, so such flips are named and not counted; every other flip counts.
 */
import { NEAR_TIE_MARGIN } from '../../core/evaluate/argmax.ts'

/** The two CPU kinds when the baseline was scored on another kind than this run (both known), else `undefined`. */
export function otherCpuKind(baseline: { readonly cpu?: string | undefined }, current: { readonly cpu?: string | undefined }): { baseline: string; now: string } | undefined {
  return baseline.cpu !== undefined && current.cpu !== undefined && baseline.cpu !== current.cpu ? { baseline: baseline.cpu, now: current.cpu } : undefined
}

/**
 * How many near-tie flips the gate names without counting: 1% of the paired decisions, at least 2.
 * Why a cap: the marks come from a reviewed but editable file, and a scorer can tie on purpose; fp32
 * rounding between CPU kinds (under 1e-5) swaps only the rare pick within that of a tie (the trained
 * example models have none in 136 decisions), so more flips than this are not rounding, and 1% hides
 * at most a tenth of the default detectable drop.
 */
export function nearTieAllowance(paired: number): number {
  return Math.max(2, Math.floor(paired / 100))
}

/** Whether a gate across CPU kinds saw more near-tie flips than rounding explains: then it fails. */
export function tooManyNearTieFlips(cpus: { baseline: string; now: string } | undefined, flips: readonly string[], paired: number): boolean {
  return cpus !== undefined && flips.length > nearTieAllowance(paired)
}

/** The gate's sentence on a baseline from another CPU kind: which flips it named and did not count, or why it counted none. */
export function nearTieNote(cpus: { baseline: string; now: string } | undefined, flips: readonly string[], paired: number): string {
  if (!cpus) return ''
  const shown = flips.slice(0, 5).map((id) => JSON.stringify(id)).join(', ')
  const more = flips.length > 5 ? `, and ${flips.length - 5} more` : ''
  const head = `; the baseline was scored on ${cpus.baseline}, this run on ${cpus.now}: `
  if (flips.length === 0) return `${head}no decision flipped at a near-tie`
  const flipped = `${flips.length} decision${flips.length === 1 ? '' : 's'} flipped at a near-tie (top two within ${NEAR_TIE_MARGIN} under some ordering, which rounding on another CPU can swap)`
  if (tooManyNearTieFlips(cpus, flips, paired))
    return (
      `${head}${flipped}: ${shown}${more}; that is more than rounding explains (at most ${nearTieAllowance(paired)} of ${paired} paired decisions), ` +
      'so the baseline gate fails: near-tie marks that do not hold, or a scorer that picks at ties. Refresh the baseline on this CPU kind and review it'
    )
  return `${head}${flipped} ${flips.length === 1 ? 'was' : 'were'} named and not counted: ${shown}${more}`
}
