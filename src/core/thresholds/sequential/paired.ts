/**
 * The baseline gate at the looks of a run that may stop early: each scored decision paired
 * with its baseline flags (same id, same content), the paired McNemar counts, and the verdict
 * two anytime-valid e-processes allow on them (../../math/sequential-mcnemar.ts):
 * - `fail`: order consistency or circular accuracy regressed (e ≥ 1/α that the drop is > 0);
 * - `pass`: neither dropped by half the detectable drop or more (e ≥ 1/α for both, against a drop ≥ it);
 * - `undecided` otherwise. Both depend on the counts only, so the looks and the gate read
 *   the same verdict from the same decisions.
 */
import { mcnemarEValue, mcnemarNotWorseEValue } from '../../math/sequential-mcnemar.ts'
import { isConsistent } from '../../metrics/headline.ts'
import type { DecisionRecord } from '../../result/record.ts'
import type { LookPairs, SequentialVerdict } from '../../result/stop-early.ts'

export type { SequentialVerdict }

/** A decision's flags, at baseline or now. */
export interface PairFlags {
  /** Same pick under every ordering; `null` when it was scored under one ordering. */
  readonly consistent: boolean | null
  /** The gold option picked under every ordering. */
  readonly strict: boolean
}

/** The baseline gate as the looks decide it. */
export interface BaselineLooks {
  /** A scored decision's flags at baseline, or `undefined` when it has no pair there (new, or its content changed). */
  readonly pair: (record: DecisionRecord) => PairFlags | undefined
  /** The gate's level. */
  readonly alpha: number
  /** The drop (of order consistency, of circular accuracy) the gate must catch, in (0, 1). */
  readonly detectableDrop: number
}

/** The paired counts the gate reads. */
export type PairedCounts = Omit<LookPairs, 'baselineConsistent'>

/** The verdict on paired counts, with its e-values. */
export interface PairedVerdict {
  readonly verdict: SequentialVerdict
  /** E-value that order consistency dropped. */
  readonly eValue: number
  /** E-value that circular accuracy dropped. */
  readonly strictEValue: number
  /** E-value that order consistency did not drop by {@link passMargin} or more. */
  readonly notWorseEValue: number
  /** The same for circular accuracy. */
  readonly strictNotWorseEValue: number
}

/** A decision's flags now, by the baseline's rule. */
export function pairFlags(record: Pick<DecisionRecord, 'picks' | 'gold'>): PairFlags {
  return {
    consistent: record.picks.length > 1 ? isConsistent(record.picks) : null,
    strict: record.picks.length > 0 && record.picks.every((pick) => pick === record.gold),
  }
}

/** Running paired counts. */
export class PairedTally implements LookPairs {
  paired = 0
  comparable = 0
  worse = 0
  better = 0
  strictWorse = 0
  strictBetter = 0
  baselineConsistent = 0
  add(before: PairFlags, now: PairFlags): void {
    this.paired++
    if (before.consistent !== null && now.consistent !== null) {
      this.comparable++
      if (before.consistent) this.baselineConsistent++
      if (before.consistent && !now.consistent) this.worse++
      else if (!before.consistent && now.consistent) this.better++
    }
    if (before.strict && !now.strict) this.strictWorse++
    else if (!before.strict && now.strict) this.strictBetter++
  }
}

/**
 * The drop a pass must rule out: half the detectable drop. A drop of the detectable drop then
 * passes far less often than α, and so does one a little below it (bench:stop: an 8-point drop
 * passed 4.5% of runs with the whole detectable drop as margin, 0% with half), for ~2% more
 * decisions when nothing changed.
 */
export function passMargin(detectableDrop: number): number {
  return detectableDrop / 2
}

/** The gate's anytime-valid verdict on paired counts at level `alpha`. */
export function pairedVerdict(counts: PairedCounts, alpha: number, detectableDrop: number): PairedVerdict {
  const eValue = mcnemarEValue(counts.worse, counts.better)
  const strictEValue = mcnemarEValue(counts.strictWorse, counts.strictBetter)
  const margin = passMargin(detectableDrop)
  const notWorseEValue = mcnemarNotWorseEValue(counts.worse, counts.better, counts.comparable, margin)
  const strictNotWorseEValue = mcnemarNotWorseEValue(counts.strictWorse, counts.strictBetter, counts.paired, margin)
  const limit = 1 / alpha
  const verdict: SequentialVerdict =
    eValue >= limit || strictEValue >= limit ? 'fail' : notWorseEValue >= limit && strictNotWorseEValue >= limit ? 'pass' : 'undecided'
  return { verdict, eValue, strictEValue, notWorseEValue, strictNotWorseEValue }
}
