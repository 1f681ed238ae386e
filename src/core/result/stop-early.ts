/** What a result says about a run that could stop early. */
import type { RateBounds } from '../math/confidence-sequence.ts'

/** A threshold's sequential verdict. */
export type SequentialVerdict = 'pass' | 'fail' | 'undecided'

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
}
