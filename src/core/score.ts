import type { Criterion } from './decisions.ts'

/**
 * One thing to score: a state and a criterion whose options are already in the
 * order to present. `prompt` is the exact text (see `buildPrompt`); a scorer
 * may use it as is or build its own from `state` and `criterion`.
 */
export interface ScoreRequest {
  /** The evidence the model reads. `"N/A"` for calibrated mode's content-free requests. */
  readonly state: string
  /** The criterion with its options in presentation order: slot 0 is letter A. */
  readonly criterion: Criterion
  /** The default prompt text for this request. */
  readonly prompt: string
}

/**
 * The one seam between evaluation and a model. Returns one probability vector per
 * request, in order, each as long as that request's options and indexed by slot.
 * Vectors need not sum to 1 (they are renormalised) but must be finite and ≥ 0.
 */
export type ScoreFn = (requests: readonly ScoreRequest[]) => number[][] | Promise<number[][]>
