/** The shape of one evaluation's result (`EvalResult`, `Manifest`), its JSON and JSONL forms, and the schema readers check them with. */
import { z } from 'zod'
import type { CacheCounts } from '../scorer/cache-counts.ts'
import { dictSchema } from '../support/dict-schema.ts'
import { ManifestJsonExtraFields, RunJsonExtraFields } from './result-json.ts'
import { DecisionRecordSchema, type DecisionFailure, type DecisionRecord } from './record.ts'
import type { Statistics } from './statistics.ts'
import type { DebiasMode } from '../requests/orderings.ts'
import type { RobustnessPanel } from './robustness.ts'
import type { StopEarlyResult } from './stop-early.ts'

export { DecisionRecordSchema, type DecisionFailure, type DecisionRecord } from './record.ts'

/**
 * How a number was produced. Enough to reproduce it and to refuse comparing two
 * results computed on different data. Never holds an API key or other secret.
 */
export interface Manifest {
  debias: DebiasMode
  /** Orderings scored per decision (the most for any decision when option counts differ). */
  orderingsScored: number
  /** Scorer requests made: one per (decision, ordering), plus calibrated mode's content-free requests. */
  forwardPasses: number
  /**
   * Labelled decisions evaluated: `n` scored plus `failed` (a request failed after the
   * scorer's retries), plus `notScored` when the run stopped early. Unlabelled rows are not included (see `unlabelledSkipped`), so
   * `decisions + unlabelledSkipped` = rows given.
   */
  decisions: number
  /** Rows read without `answer_id`, skipped with a warning. */
  unlabelledSkipped: number
  /** Hash of the scored rows' canonical JSON (16 hex digits); equal fingerprints mean identical data. */
  fingerprint: string
  /**
   * Hash of the records' ids, criteria and gold answers in order (`recordsFingerprint`,
   * 16 hex digits): what `sceptic report` checks a records file against. Absent in
   * results written before it existed.
   */
  recordsFingerprint?: string
  /** Mean of 1/options over the labelled rows: what a uniform guesser scores on average. */
  chance: number
  /**
   * What a uniform random guesser scores on `circularAccuracy`: the mean of
   * (1/options)^orderings over the decisions scored under several orderings ((1/n)^n
   * under cyclic); `null` when there are none.
   */
  circularChance?: number | null
  /** Seed recorded for anything random (bootstrap, splits). */
  seed: number
  /** Runtime and package versions. */
  versions: { node: string; vitestSceptic: string }
  /**
   * The CPU kind that scored (`x86-64 AVX2`, `x86-64 AVX-512 VNNI`, `arm64 dot product`…) and its
   * model name: quantized kernels differ by kind (docs/onnx-models.md, "Which CPU"). Absent in
   * results written before 0.5.
   */
  cpu?: { kind: string; model: string }
  /** ISO 8601 UTC start time. */
  started: string
  /** Labelled decisions that could not be scored (a request failed after the scorer's retries). */
  failed: number
  /** Failed decisions by reason (`timeout`, `no_logprobs`, `parse_failure`, `http_error`, `too_long`, `refusal`, `error`). */
  failedByReason: Record<string, number>
  /** Scored decisions by flag the scorer raised (e.g. `missing_logprobs`). */
  flagged: Record<string, number>
  /**
   * Ties, which are no answer: `decisions` whose final maximum is tied (counted wrong) and
   * per-ordering `picks` that are tied (their letter split over the tied letters). Absent
   * in results written before ties were counted.
   */
  tied?: { decisions: number; picks: number }
  /** Times each (decision, ordering) was scored. */
  epochs: number
  /** Name of the epoch reducer (`mean`, `pass_at_2`, `at_least_3_ge_0.6`, …); `--reducer` and `reducer` accept it back. */
  reducer: string
  /** Wall-clock duration of the evaluation in seconds (3 decimals). */
  seconds: number
  /** The scorer's description (`scorerDescription`, else the scorer's `description`): a model, a module, or `(injected scorer)`. */
  scorer: string
  /** Model identifier, when a model was loaded. */
  model?: string
  /**
   * Labelled decisions never scored because the run stopped early (present only with
   * `stopEarly`): n + failed + unlabelledSkipped + notScored = rows read.
   */
  notScored?: number
  /** The thresholds the run was given (`evaluateWithScorer`'s `thresholds`, the CLI's `--threshold`). */
  thresholds?: Record<string, number | { min?: number | undefined; max?: number | undefined }>
  /** With thresholds: the failure-rate rule the run was gated with (largest share of labelled decisions that may fail to score). */
  maxFailureRate?: number
  /** What the score cache did in this run (present only when a cache was in use; see docs/cache.md). */
  cache?: CacheCounts
  /** Anything else the caller recorded (batch size, workers, …). */
  [extra: string]: unknown
}

/**
 * One evaluation, with everything needed to argue about it. JSON keys are exactly these names;
 * the order-robustness panel's keys are documented on {@link RobustnessPanel}.
 */
export interface EvalResult extends RobustnessPanel {
  /** Hits / n, in [0, 1]. Shown beside `manifest.chance`; reported for continuity, not trust. */
  accuracy: number
  /** Mean recall over the distinct gold answer ids, pooled across criteria, in [0, 1]. The headline. */
  balancedAccuracy: number
  /** Share of decisions with the same pick under every ordering; `null` when one ordering was scored. */
  orderConsistency: number | null
  /** Expected calibration error, 10 equal-width right-closed bins; `null` when nothing was scored. */
  ece: number | null
  /** Multi-class Brier score, not halved, in [0, 2]. */
  brier: number | null
  /** Balanced accuracy within each criterion key. */
  perCriterion: Record<string, number>
  /** Share of all per-ordering picks on each letter, A.. up to the widest criterion, zeros kept. */
  letterDistribution: Record<string, number>
  /** Labelled decisions scored (failed ones excluded): n + failed + unlabelled = rows read. */
  n: number
  /**
   * Mean of the decisions' reduced scores (the epoch reducer over per-epoch
   * correctness). Equals `accuracy` with one epoch and the default reducer.
   */
  score: number
  /** Custom metrics by name (see `EvaluateOptions.metrics`); empty when none were given. */
  metrics: Record<string, number>
  /** Labelled decisions that failed to score. */
  failed: number
  /** The failed decisions, input order. */
  failures: DecisionFailure[]
  /**
   * Gold classes and criteria none of whose decisions scored (every one failed): balanced
   * accuracy and the worst criterion leave them out, so their thresholds are not measured.
   * Absent when there are none.
   */
  unscored?: { goldClasses: string[]; criteria: string[] }
  /**
   * How far the headline numbers could move by chance, and what they must beat: 95%
   * intervals, chance and majority baselines, the minimum detectable difference, RStd,
   * ECE reliability and verdicts (see `computeStatistics` and docs/statistics.md). Absent
   * when evaluated with `statistics: false`.
   */
  statistics?: Statistics
  /** How the numbers were produced. */
  manifest: Manifest
  /**
   * Present when evaluated with `stopEarly`: the anytime-valid verdicts and bounds, and how
   * many decisions were scored. When `stopped`, every metric above is a point estimate
   * from the scored sample only (`n` decisions, records of those only).
   */
  stopEarly?: StopEarlyResult
  /** One record per labelled decision scored, input order. Not part of `--json-out`; see `--records-out`. */
  records: DecisionRecord[]
}

/** The `--json-out` document: every EvalResult field but `records`. */
export type EvalResultJson = Omit<EvalResult, 'records'>

/** The JSON document for `--json-out`: the metrics as top-level keys plus `manifest`. */
export function resultToJson(result: EvalResult): EvalResultJson {
  const { records: _records, ...json } = result
  return json
}

/** Records as JSONL text, one line per labelled decision, with a trailing newline. */
export function recordsToJsonl(records: readonly DecisionRecord[]): string {
  return records.map((record) => JSON.stringify(record)).join('\n') + (records.length > 0 ? '\n' : '')
}

const number = z.number({ error: 'must be a number' })
const numberOrNull = z.number({ error: 'must be a number or null' }).nullable()
const numbers = dictSchema(number)
/** A share in [0, 1] (`what` says what else it may be). */
const share = (what = 'a number') => z.number({ error: `must be ${what}` }).min(0, 'must be a share in [0, 1]').max(1, 'must be a share in [0, 1]')

/**
 * The manifest entries every reader relies on; the others pass through unchecked
 * (results written by earlier versions lack some of them).
 */
export const ManifestJsonSchema = z.looseObject({
  debias: z.string({ error: 'must be a string' }),
  /** Orderings scored per decision. */
  orderingsScored: z.int({ error: 'must be an integer' }),
  /** The other entries a report shows: optional, typed when present (result-json.ts). */
  ...ManifestJsonExtraFields,
  /** Mean of 1/options over the labelled rows. */
  chance: number,
  /** Rows read without `answer_id`; 0 in results written before it existed. */
  unlabelledSkipped: z.int({ error: 'must be an integer' }).default(0),
  /** Hash of the scored rows; `compare` refuses two results whose fingerprints differ. */
  fingerprint: z.string({ error: 'must be a string' }).optional(),
  /** Hash of the records' ids, criteria and gold answers; `sceptic report` checks records against it. */
  recordsFingerprint: z.string({ error: 'must be a string' }).optional(),
})

/**
 * A `--json-out` document ({@link EvalResultJson}) as every reader checks it: the
 * headline metrics and the manifest entries above; everything else (the robustness
 * panel, `statistics`, custom metrics) passes through and is read defensively by its
 * renderer, since results written by earlier versions lack it.
 */
export const EvalResultJsonSchema = z.looseObject({
  /** Hits / n. */
  accuracy: share(),
  /** Mean recall over the gold answer ids. */
  balancedAccuracy: share(),
  /** Share of decisions with the same pick under every ordering; `null` with one ordering. */
  orderConsistency: share('a number or null').nullable(),
  /** Expected calibration error; `null` when nothing was scored. */
  ece: numberOrNull,
  /** Multi-class Brier score; `null` when nothing was scored. */
  brier: numberOrNull,
  /** Labelled decisions scored. */
  n: z.int({ error: 'must be a non-negative integer' }).nonnegative('must be a non-negative integer'),
  /** Balanced accuracy per criterion key. */
  perCriterion: numbers,
  /** Share of picks per letter. */
  letterDistribution: numbers,
  /** How the numbers were produced. */
  manifest: ManifestJsonSchema,
  /** Statistics, stop-early verdicts, the robustness panel, failures: optional, typed when present (result-json.ts). */
  ...RunJsonExtraFields,
})

/** A whole {@link EvalResult} as JSON (`JSON.stringify(result)`): the `--json-out` document plus its `records`. */
export const EvalResultSchema = EvalResultJsonSchema.extend({
  /** One record per labelled decision, input order. */
  records: z.array(DecisionRecordSchema, { error: 'must be an array of records' }),
})
