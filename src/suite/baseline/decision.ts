/**
 * The baseline gate's decision, pure: given the stored baseline (or none), this run's and
 * the run's circumstances, what the gate concludes and whether the baseline is to be
 * written. One implementation for the local gate (baseline-gate.ts) and for the merge of
 * decision shards (decision-shard-merge.ts), so a merged run is gated exactly as an
 * unsharded one, the "belongs to another suite" guard included.
 */
import { escapeControl } from '../../core/support/escape.ts'
import { compareWithBaseline, type BaselineFile, type BaselineGateOptions, type BaselineOutcome } from './file.ts'
import { percent } from '../assertions/format.ts'
import { notWrittenHint } from './missing-record.ts'
import { compareSequentially } from './sequential.ts'
import type { StopEarlyResult } from '../../core/result/stop-early.ts'

/** The circumstances of one gate. */
export interface BaselineCircumstances {
  /** The baseline file as the report shows it. */
  readonly file: string
  /** Vitest's snapshot update mode for this run. */
  readonly mode: 'all' | 'new' | 'none'
  /** Whether the run is under CI: baselines are never written then. */
  readonly ci: boolean
  /** The paired test's settings. */
  readonly gate: BaselineGateOptions
  /** Why this run never writes a baseline (the merge), said when none is stored; `undefined`: it may write. */
  readonly neverWrites?: string
  /** A run that stopped early: it is compared sequentially and never writes a baseline. */
  readonly partial?: StopEarlyResult | undefined
}

/** What the gate concluded, and the baseline to write when it writes one. */
export interface BaselineDecisionOutcome {
  readonly outcome: BaselineOutcome
  readonly write?: BaselineFile
}

const NOT_UNDER_CI = notWrittenHint('baseline', true)

/** Decide the gate of suite `suite`: `stored` is the baseline read (`undefined`: none; not read under `-u`), `current` this run's. */
export function decideBaseline(suite: string, stored: BaselineFile | undefined, current: BaselineFile, c: BaselineCircumstances): BaselineDecisionOutcome {
  const { file, mode, ci, gate } = c
  const orderConsistency = current.orderConsistency
  const oc = percent(orderConsistency ?? 0)
  const writes = c.neverWrites === undefined
  const { partial } = c
  // Never a baseline from a partial run (describeDecisions scores everything when one would be written).
  const notFromPartial = `baseline ${file} was not written: the run stopped early (${partial?.scored} of ${partial?.total} decisions scored), and a baseline must come from the whole set; run without stopEarly`
  if (mode === 'all' && writes) {
    if (partial) return { outcome: { status: 'missing', file, pass: false, message: notFromPartial, orderConsistency } }
    if (ci) return { outcome: { status: 'not-written-in-ci', file, pass: false, message: `baseline ${file} was not refreshed: ${NOT_UNDER_CI}`, orderConsistency } }
    return { outcome: { status: 'updated', file, pass: true, message: `baseline ${file} refreshed (vitest -u): order consistency ${oc}`, orderConsistency }, write: current }
  }
  if (!stored) {
    if (!writes) return { outcome: { status: 'missing', file, pass: false, message: `no baseline at ${file}; ${c.neverWrites}`, orderConsistency } }
    if (mode === 'none' || ci) {
      const why = notWrittenHint('baseline', ci)
      return { outcome: { status: 'missing', file, pass: false, message: `no baseline at ${file}, and ${why}`, orderConsistency } }
    }
    if (partial) return { outcome: { status: 'missing', file, pass: false, message: notFromPartial, orderConsistency } }
    return { outcome: { status: 'written', file, pass: true, message: `baseline ${file} written: order consistency ${oc}; commit it`, orderConsistency }, write: current }
  }
  // Two suite names with one slug share a file: never compare a suite with another's baseline.
  if (stored.suite !== suite)
    return {
      outcome: {
        status: 'other-suite',
        file,
        pass: false,
        message:
          `baseline ${file} belongs to suite "${escapeControl(stored.suite)}", not "${escapeControl(suite)}": their names give the same file name. ` +
          'If two suites share it, rename one (names are compared by letters and digits, ignoring case); if this suite was renamed, refresh the baseline with `vitest -u`.',
        orderConsistency,
      },
    }
  return { outcome: { file, ...(partial ? compareSequentially(stored, current, gate, partial) : compareWithBaseline(stored, current, gate)) } }
}
