/** What a result says about a run that could stop early. */
import type { RateBounds } from '../math/confidence-sequence.ts'

/** A threshold's sequential verdict. */
export type SequentialVerdict = 'pass' | 'fail' | 'undecided'

/** The baseline gate's paired counts at the looks (what a stopped run's baseline line reads). */
export interface LookPairs {
  /** Decisions (or, in a stratified order, draws) paired with the baseline. */
  readonly paired: number
  /** Of them, scored under several orderings both times. */
  readonly comparable: number
  /** Consistent at baseline, not now. */
  readonly worse: number
  /** Inconsistent at baseline, consistent now. */
  readonly better: number
  /** Right under every ordering at baseline, not now. */
  readonly strictWorse: number
  /** Right under every ordering now, not at baseline. */
  readonly strictBetter: number
  /** Comparable pairs consistent at baseline. */
  readonly baselineConsistent: number
}

/** What a run that could stop early says about it (`result.stopEarly`). */
export interface StopEarlyResult {
  /** Level of the bounds. */
  alpha: number
  /** Labelled decisions scored (failed ones included) before the run ended. */
  scored: number
  /** Labelled decisions in the run. */
  total: number
  /** Whether the run ended before every decision was scored. */
  stopped: boolean
  /** Each threshold's sequential verdict at the last look; `undecided` ones were decided by the full set (or not at all, when the run stopped). */
  verdicts: Record<string, SequentialVerdict>
  /** Each per-decision-rate threshold's anytime-valid bounds at the last look. */
  bounds: Record<string, RateBounds>
  /** The baseline gate's sequential verdict at the last look, when the looks decided it too (a paired McNemar e-process). */
  baseline?: SequentialVerdict
  /**
   * The paired counts that verdict was read from. In a stratified order they count draws, each
   * paired with a chance in proportion to its cell's size, so they weigh the set as a whole.
   */
  baselinePairs?: LookPairs
}
