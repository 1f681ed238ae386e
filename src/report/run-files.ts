/** One run the HTML report shows, and the core's readers of its files ({@link parseResultJson}, {@link parseRecordsJsonl}). */
import type { DecisionRecord, EvalResultJson } from '../core/result/result.ts'

export { parseRecordsJsonl, parseResultJson } from '../core/result/files.ts'

/** One run to report: its `--json-out` document and, optionally, its records. */
export interface ReportRun {
  /** The parsed `--json-out` document (extra keys, such as intervals, are read when present). */
  result: EvalResultJson
  /** The run's records (`--records-out`); the reliability diagram and the paired comparison need them. */
  records?: readonly DecisionRecord[] | null | undefined
  /** A name for the run, e.g. its file name. Default `run A` / `run B`. */
  label?: string | undefined
}
