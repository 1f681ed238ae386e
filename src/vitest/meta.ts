/**
 * What a `describeDecisions` suite leaves in Vitest task meta (issue 3, "Must hold" 7).
 * Meta is JSON, travels from the test worker to the main process, survives blob
 * files and `--merge-reports` (research notes §1, §7), and test-level meta is what
 * Vitest's `json` reporter writes. The reporter builds the whole report from it.
 */
import type { DecisionRecord, EvalResultJson } from '../core/index.ts'
import type { BaselineOutcome } from './baseline.ts'

/** Most records kept in suite meta (about 150 bytes each in a blob file). */
export const META_RECORDS_LIMIT = 5000

/** The meta key every sceptic entry lives under: `task.meta.sceptic`. */
export const META_KEY = 'sceptic'

/** Lower bounds a suite tests, one named test each (`balancedAccuracy ≥ 0.7`). */
export interface Thresholds {
  /** Lower bound on balanced accuracy. */
  balancedAccuracy?: number
  /** Lower bound on order consistency (needs a debias mode with more than one ordering). */
  orderConsistency?: number
  /** Lower bound on plain accuracy. */
  accuracy?: number
  /** Lower bound on every criterion's balanced accuracy. */
  perCriterion?: number
  /** Lower bound on a custom metric, by the name given in the suite's `metrics` option. */
  [customMetric: string]: number | undefined
}

/** The metric names a threshold can bound, in the order their tests are declared. */
export const THRESHOLD_KEYS = ['balancedAccuracy', 'orderConsistency', 'accuracy', 'perCriterion'] as const

/** Suite meta: `suite.meta.sceptic`, set once scoring is done (or failed). */
export interface ScepticSuiteMeta {
  /** Meta layout version. */
  schema: 1
  /** The suite name given to `describeDecisions`. */
  suite: string
  /** The thresholds the suite tests. */
  thresholds: Thresholds
  /** The metrics and manifest (no per-decision records); absent when scoring failed. */
  result?: EvalResultJson
  /**
   * The per-decision records, for the reporter's HTML page (reliability diagram),
   * when there are at most {@link META_RECORDS_LIMIT}: meta travels through blob files.
   */
  records?: DecisionRecord[]
  /** Why scoring failed, in one line; absent on success. */
  error?: string
  /** The baseline gate's outcome, when the suite has a baseline. */
  baseline?: BaselineOutcome
}

/** Test meta: `task.meta.sceptic` on every test of a suite, so per-test reporters (json) carry the numbers. */
export interface ScepticTestMeta {
  /** The suite name. */
  suite: string
  /** Which check this test is: a threshold key, `baseline` or `callback`. */
  check: string
  /** The bound, for a threshold test. */
  bound?: number
  /** The measured value, for a threshold test. */
  value?: number | null
  /** The metrics and manifest, as in the suite meta. */
  result?: EvalResultJson
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
