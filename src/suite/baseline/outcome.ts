/** What the baseline gate decided, as the report and the failure message read it. */
import type { SequentialVerdict } from '../../core/thresholds/sequential/paired.ts'
import type { PowerCheck } from '../../core/statistics/regression-gate.ts'

/** How the gate ended. */
export type BaselineStatus =
  /** Compared, no significant drop. */
  | 'pass'
  /** Compared, order consistency or circular accuracy dropped by more than chance allows. */
  | 'regressed'
  /** No baseline yet; one was written (local run). */
  | 'written'
  /** `vitest -u`: the baseline was rewritten from this run. */
  | 'updated'
  /** No baseline, and baselines are not written in this mode (CI). */
  | 'missing'
  /** The baseline was recorded with another scorer setup (debias mode or scorer); nothing can be paired. */
  | 'setup-changed'
  /** No decision of this run matches one of the baseline's (id and fingerprint): nothing was compared. */
  | 'unpaired'
  /** Only one ordering was scored (debias `none`): there is no order consistency to gate. */
  | 'one-ordering'
  /** Under CI a baseline would have been (re)written (`vitest -u`); it was not, and nothing was compared. */
  | 'not-written-in-ci'
  /** The baseline file belongs to another suite whose name has the same slug; nothing was compared. */
  | 'other-suite'

/** The gate's outcome, stored in suite meta for the report. */
export interface BaselineOutcome {
  /** How the gate ended. */
  status: BaselineStatus
  /** The baseline file, relative to the Vitest root. */
  file: string
  /** Whether the named test `… > order consistency vs baseline` passed. */
  pass: boolean
  /** One plain sentence for the report and the failure message. */
  message: string
  /** Order consistency at baseline, when a baseline was read. */
  baselineOrderConsistency?: number | null
  /** Order consistency now. */
  orderConsistency?: number | null
  /** Decisions consistent at baseline and not now. */
  worse?: number
  /** Decisions inconsistent at baseline and consistent now. */
  better?: number
  /** Decisions paired with the baseline (same id, same fingerprint). */
  paired?: number
  /** Paired decisions scored under several orderings both times: the ones whose order consistency can be compared. */
  comparable?: number
  /** Decisions whose content changed since the baseline (same id, other fingerprint): not paired. */
  changed?: number
  /** Decisions not in the baseline: not paired. */
  added?: number
  /** Baseline decisions no longer scored. */
  removed?: number
  /** One-sided exact McNemar p-value. */
  p?: number
  /** Circular accuracy at baseline, when a baseline was read. */
  baselineCircularAccuracy?: number | null
  /** Circular accuracy now. */
  circularAccuracy?: number | null
  /** Decisions right under every ordering at baseline and not now. */
  strictWorse?: number
  /** Decisions right under every ordering now and not at baseline. */
  strictBetter?: number
  /** One-sided exact McNemar p-value that strict correctness dropped. */
  strictP?: number
  /** The baseline's CPU kind and this run's, when they differ. */
  cpus?: { baseline: string; now: string }
  /** Paired decisions whose flags flipped at a near-tie between CPU kinds: named, not counted (past the allowance, the gate fails). */
  nearTieFlips?: string[]
  /** Significance level used. */
  alpha?: number
  /** What this set can detect at all. */
  power?: PowerCheck
  /** A run that stopped early: the sequential McNemar e-value that order consistency regressed (regressed at ≥ 1/alpha). */
  eValue?: number
  /** The same for circular accuracy. */
  strictEValue?: number
  /** A run that stopped early: the sequential test's verdict (`pass`: neither dropped by the detectable drop or more). */
  sequential?: SequentialVerdict
}
