/**
 * What a `describeDecisions` suite leaves in Vitest task meta.
 * Meta is JSON, travels from the test worker to the main process, survives blob
 * files and `--merge-reports` (docs/design.md#vitest-mechanics-the-code-relies-on), and test-level meta is what
 * Vitest's `json` reporter writes. The reporter builds the whole report from it.
 */
import type { DecisionRecord, EvalResultJson } from '../core/index.ts'
import { THRESHOLD_KEYS } from '../core/thresholds/metrics.ts'
import type { Threshold } from '../core/thresholds/verdict.ts'
import type { BaselineOutcome } from './baseline/file.ts'

/** Most records kept in suite meta (about 150 bytes each in a blob file). */
export const META_RECORDS_LIMIT = 5000

/** The meta key every sceptic entry lives under: `task.meta.sceptic`. */
export const META_KEY = 'sceptic'

/**
 * What a suite tests, one named test each: a number is a lower bound
 * (`balancedAccuracy ≥ 0.7`), `{ min?, max? }` a range (`slotSensitivityGap ≤ 0.1`).
 */
export interface Thresholds {
  /** Balanced accuracy, in [0, 1]. */
  balancedAccuracy?: Threshold
  /** Order consistency, in [0, 1] (needs a debias mode with more than one ordering). */
  orderConsistency?: Threshold
  /** Plain accuracy, in [0, 1]. */
  accuracy?: Threshold
  /** Every criterion's balanced accuracy (the worst one is checked), in [0, 1]. */
  perCriterion?: Threshold
  /** Any other built-in metric (see `THRESHOLD_KEYS`), or a custom metric by the name given in the suite's `metrics` option. */
  [metric: string]: Threshold | undefined
}

export { THRESHOLD_KEYS }

/** Suite meta: `suite.meta.sceptic`, set once scoring is done (or failed). */
export interface ScepticSuiteMeta {
  /** Meta layout version. */
  schema: 1
  /** The suite name given to `describeDecisions`. */
  suite: string
  /** The thresholds the suite tests. */
  thresholds: Thresholds
  /** The suite's `maxFailureRate` (default 0): the one gate's failure-rate rule. */
  maxFailureRate?: number
  /** The metrics and manifest (no per-decision records); absent when scoring failed. */
  result?: EvalResultJson
  /**
   * The per-decision records, for the reporter's HTML page (reliability diagram),
   * when there are at most {@link META_RECORDS_LIMIT}: meta travels through blob files.
   */
  records?: DecisionRecord[]
  /** The files the suite read (data file, baseline), absolute: the reporter writes no report over them. */
  inputs?: string[]
  /** The folders the tool keeps for the suite (its score cache), absolute: the reporter writes no report into them. */
  kept?: string[]
  /** Why scoring failed, in one line; absent on success. */
  error?: string
  /** The baseline gate's outcome, when the suite has a baseline. */
  baseline?: BaselineOutcome
  /**
   * The names of the tests the suite declared (thresholds, baseline gate, callback), so a
   * report can tell a check that never reached the task tree from one that ran: a missing
   * check reads as not run, never as passed. Absent under decision shards, whose checks the
   * merge decides.
   */
  checks?: string[]
  /**
   * This shard's part, when the suite splits its decisions (`shard: 'decisions'`) under
   * `vitest --shard`: what `vitest --merge-reports` reassembles the suite from.
   */
  shard?: SuiteShardMeta
  /** Set by `vitest --merge-reports`: how many shard parts the result was recomputed from. */
  mergedFrom?: number
}

/** A suite's part in one shard (suite meta `shard`). */
export interface SuiteShardMeta {
  /** Which part, 1 ≤ index ≤ count. */
  index: number
  /** How many parts (Vitest's shard count). */
  count: number
  /** The part in the `sceptic merge` part-file format (JSONL: header, decisions, answers); absent when scoring failed. */
  part?: string
  /** The suite's `statistics` option, for the merged evaluation (JSON only). */
  statistics?: unknown
  /** The suite's `maxFailureRate` (default 0), checked once on the merged result. */
  maxFailureRate: number
}

/** What a test deferred to the merge carries (test meta `deferred`). */
export interface DeferredCheck {
  /** The test's name in an unsharded run (`balancedAccuracy ≥ 0.8`). */
  name: string
  /** Baseline gate only: where the baseline lives and how to compare (the merge reads it, never writes it). */
  baseline?: { path: string; file: string; alpha: number; detectableDrop: number }
}

/** Test meta: `task.meta.sceptic` on every test of a suite, so per-test reporters (json) carry the numbers. */
export interface ScepticTestMeta {
  /** The suite name. */
  suite: string
  /** Which check this test is: a threshold key, `baseline` or `callback`. */
  check: string
  /** The threshold (a lower bound or `{ min?, max? }`), for a threshold test. */
  bound?: Threshold
  /** The measured value, for a threshold test. */
  value?: number | null
  /** The metrics and manifest, as in the suite meta. */
  result?: EvalResultJson
  /** Set on a test that a decision shard skipped: `vitest --merge-reports` decides it on the whole. */
  deferred?: DeferredCheck
}

/** Read `meta.sceptic` from any task meta object, or `undefined`. */
export function readSuiteMeta(meta: unknown): ScepticSuiteMeta | undefined {
  const value = (meta as Record<string, unknown> | undefined)?.[META_KEY] as ScepticSuiteMeta | undefined
  return value && value.schema === 1 && typeof value.suite === 'string' ? value : undefined
}

/** Write `meta.sceptic` on a task meta object (Vitest's `TaskMeta` is an open record). */
export function writeMeta(meta: object, value: ScepticSuiteMeta | ScepticTestMeta): void {
  ;(meta as Record<string, unknown>)[META_KEY] = value
}
