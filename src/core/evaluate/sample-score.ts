/** Per-decision scores handed, frozen, to custom metrics, and running those metrics. */
import { dict } from '../support/dict.ts'
import { ConfigError } from '../support/errors.ts'

/**
 * What a custom metric reads for one scored decision. Every object and array is
 * frozen (`Object.freeze`), so a metric cannot change what the next metric sees
 * (the third hazard of Inspect's IEBP014); writing to one throws a TypeError.
 */
export interface SampleScore {
  /** Decision id (or `#k`, its 1-based position among labelled rows). */
  readonly id: string
  readonly criterion: string
  /** Gold option id. */
  readonly gold: string
  /** Final predicted option id; `null` when the maximum is tied (no answer, counted wrong). */
  readonly prediction: string | null
  /**
   * The reduced score, a float in [0, 1]: the epoch reducer applied to the per-epoch
   * correctness. With one epoch and the default reducer it is 1 (right) or 0 (wrong).
   * Read it as a float: under `mean` a decision right in 2 of 3 epochs is 0.667.
   */
  readonly value: number
  /** Per-epoch correctness (1 or 0) before reduction, one per epoch. */
  readonly epochValues: readonly number[]
  /** Probability of the final prediction (of the tied maximum when tied), in [0, 1]. */
  readonly confidence: number
  /** Final probability per option id (sums to 1). */
  readonly probabilities: Readonly<Record<string, number>>
  /** Whether the pick was the same under every ordering; `null` with one ordering. */
  readonly consistent: boolean | null
  /** Flags the scorer raised on any of this decision's requests (e.g. `missing_logprobs`). */
  readonly flags: readonly string[]
}

/** A custom metric: the run's scored decisions in, one finite number out. */
export type CustomMetric = (scores: readonly SampleScore[]) => number

/** Freeze a sample score and everything it holds. */
export function freezeScore(score: SampleScore): SampleScore {
  Object.freeze(score.epochValues)
  Object.freeze(score.probabilities)
  Object.freeze(score.flags)
  return Object.freeze(score)
}

/**
 * Run custom metrics over frozen scores. A metric that throws (a write to a frozen
 * score included) or returns something other than a finite number is a
 * ConfigError naming it: a broken metric must fail loudly, not print NaN.
 */
export function runCustomMetrics(
  metrics: Readonly<Record<string, CustomMetric>> | undefined,
  scores: readonly SampleScore[],
): Record<string, number> {
  const out = dict<number>()
  if (!metrics) return out
  const frozen = Object.freeze([...scores])
  for (const [name, metric] of Object.entries(metrics)) {
    let value: unknown
    try {
      value = metric(frozen)
    } catch (error) {
      throw new ConfigError(`custom metric "${name}" threw: ${(error as Error)?.message ?? String(error)}`, { cause: error })
    }
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw new ConfigError(`custom metric "${name}" returned ${String(value)}; a metric must return a finite number`)
    out[name] = value
  }
  return out
}
