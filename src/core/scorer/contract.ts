/** The scorer contract: requests, context, failures and flags (docs/design.md#contracts). */
import type { Criterion } from '../decisions/schema.ts'

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
  /**
   * 0-based epoch index when each request is scored several times (`epochs > 1`).
   * A caching scorer must include it in its cache key, or epochs collapse into one.
   */
  readonly epoch?: number
}

/** What the evaluator passes to every scorer call beside the requests. */
export interface ScoreContext {
  /**
   * Aborts when the run is cancelled or times out. A scorer should stop its in-flight work
   * (pass it to `fetch`) and reject; the evaluator, which always passes it, stops waiting at once either way.
   */
  readonly signal: AbortSignal
}

/**
 * The seam between evaluation and a model. Returns one probability vector per
 * request, in order, each as long as that request's options and indexed by slot.
 * Vectors need not sum to 1 (they are renormalised) but must be finite and ≥ 0.
 * The second argument carries the run's {@link ScoreContext.signal}; a scorer may ignore it.
 */
export type ScoreFn = (requests: readonly ScoreRequest[], context?: ScoreContext) => number[][] | Promise<number[][]>

/** Why one request could not be scored (recall_guard's failure buckets; `refusal`: the model declined to answer). */
export const FAILURE_REASONS = ['timeout', 'no_logprobs', 'parse_failure', 'http_error', 'too_long', 'refusal', 'error'] as const
/** One of {@link FAILURE_REASONS}. */
export type FailureReason = (typeof FAILURE_REASONS)[number]

/**
 * A request that failed after the scorer's own retries. Its decision is counted as
 * failed, not scored, and the report says how many failed and why.
 */
export interface ScoreFailure {
  /** The failure bucket. */
  readonly failure: FailureReason
  /** What happened, for the report and logs. Must hold no secret. */
  readonly message: string
}

/**
 * A vector with what the scorer knows beside it: the slot it answered (a model that
 * generated its answer) and flags (e.g. `missing_logprobs` when some letters were floored).
 */
export interface ScoredOutcome {
  /** The probability vector, as for {@link ScoreFn}. */
  readonly probabilities: readonly number[]
  /**
   * The 0-based slot the scorer picked. It must be an integer in range and a maximal slot of
   * `probabilities` (within a relative 1e-12 of the maximum), else a `ScorerError`. The
   * evaluator uses it as this ordering's pick instead of reading one off the vector.
   */
  readonly pick?: number
  /** Short flag names recorded on the decision's record. */
  readonly flags?: readonly string[]
}

/** A {@link ScoredOutcome} (the earlier name, from when flags were all it carried). */
export type FlaggedScore = ScoredOutcome

/** What a {@link FallibleScoreFn} may return for one request. */
export type ScoreOutcome = readonly number[] | ScoreFailure | ScoredOutcome

/**
 * A scorer that may fail per request (remote endpoints, sampled generation): a
 * vector, a {@link ScoredOutcome} or a {@link ScoreFailure} for each request, in order.
 * Every {@link ScoreFn} is one.
 */
export type FallibleScoreFn = (
  requests: readonly ScoreRequest[],
  context?: ScoreContext,
) => readonly ScoreOutcome[] | Promise<readonly ScoreOutcome[]>

/** Build a {@link ScoreFailure}. */
export function scoreFailure(failure: FailureReason, message: string): ScoreFailure {
  return { failure, message }
}

/** Whether an outcome is a {@link ScoreFailure}. */
export function isScoreFailure(outcome: unknown): outcome is ScoreFailure {
  return typeof outcome === 'object' && outcome !== null && 'failure' in outcome && typeof (outcome as ScoreFailure).failure === 'string'
}

/** Whether an outcome is a {@link ScoredOutcome} (an object with `probabilities`, not a bare vector). */
export function isScoredOutcome(outcome: unknown): outcome is ScoredOutcome {
  return typeof outcome === 'object' && outcome !== null && !Array.isArray(outcome) && !ArrayBuffer.isView(outcome) && 'probabilities' in outcome
}

/** {@link isScoredOutcome} under its earlier name. */
export function isFlaggedScore(outcome: unknown): outcome is ScoredOutcome {
  return isScoredOutcome(outcome)
}

/**
 * What makes a scorer's vectors what they are. ONNX and HTTP scorers of this package
 * carry one as `cacheIdentity`; a user ScoreFn opts in with a string `cacheKey`.
 * Must never hold a secret (an API key): it is hashed, and its `label` is stored.
 */
export interface CacheIdentity {
  /** Scorer kind: `onnx`, `http`, `user`. */
  readonly kind: string
  /** Human label stored beside the cache (model directory, model at URL, module); not part of the key. */
  readonly label: string
  /** Files whose bytes decide the output, by role (`model`, `tokenizer`, …), absolute paths; a missing file counts as absent. */
  readonly files?: Readonly<Record<string, string>>
  /** JSON settings that decide the output (sampling parameters, dtype, template, …). */
  readonly settings?: unknown
  /**
   * The vectors come from a process the key cannot digest (a server that may load new
   * weights under the same model name): its cache hits are spot-checked live
   * (docs/cache.md, "Remote scorers: hits re-checked live"). Not part of the key. Default `false`.
   */
  readonly remote?: boolean
  /**
   * The scorer samples (e.g. `generate` mode at a temperature above 0): two calls may
   * rightly differ, so hits are never re-checked live. Not part of the key. Default `false`.
   */
  readonly sampled?: boolean
}
