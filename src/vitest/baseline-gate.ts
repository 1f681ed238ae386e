/**
 * The baseline gate of a `describeDecisions` suite (docs/vitest.md#baselines): when the
 * baseline is written, refreshed or compared, and the cases where it must fail because
 * it could not check anything (one ordering scored, a write refused under CI).
 * The write rules follow Vitest's snapshot rules (docs/design.md#vitest-mechanics-the-code-relies-on):
 * `-u` (update mode `all`) rewrites; a missing baseline is written locally (`new`); under
 * CI nothing is ever written, not even with `-u`, because a gate that compares a run
 * with itself passes without having checked anything.
 */
import { expect } from 'vitest'
import type { EvalResult } from '../core/index.ts'
import {
  baselineFromResult,
  compareWithBaseline,
  readBaseline,
  writeBaseline,
  type BaselineGateOptions,
  type BaselineOutcome,
} from './baseline.ts'
import { escapeControl } from '../core/escape.ts'
import { notWrittenHint } from './missing-record.ts'
import { percent } from './format.ts'

/** Where the gate runs and what it may do. */
export interface BaselineGateContext {
  /** Absolute baseline file of the suite. */
  path: string
  /** The file as the report shows it (relative to the root when inside it). */
  file: string
  /** Vitest's snapshot update mode for this run. */
  mode: 'all' | 'new' | 'none'
  /** Whether the run is under CI (see {@link underCI}): baselines are never written then. */
  ci: boolean
  /** The paired test's settings. */
  gate: BaselineGateOptions
}

/** Why a baseline gate cannot run with one ordering; the test fails with it. */
export const ONE_ORDERING_MESSAGE =
  'the baseline gate needs more than one ordering (debias is "none"), so it checked nothing; ' +
  'use debias "cyclic" (or another multi-ordering mode), or baseline: false to opt out of the gate for this suite'

/**
 * Whether the process runs under CI: `CI` set to anything but `''`, `0` or `false`
 * (GitHub Actions, GitLab, Buildkite, CircleCI and most others set `CI=true`).
 */
export function underCI(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase()
  return value !== undefined && value !== '' && value !== '0' && value !== 'false'
}

/** Vitest's snapshot update mode, as seen by the running test; the plugin's value, then CI, as fallbacks. */
export function updateMode(pluginMode: string | undefined): 'all' | 'new' | 'none' {
  const state = expect.getState() as { snapshotState?: { snapshotUpdateState?: string } }
  const mode = state.snapshotState?.snapshotUpdateState ?? pluginMode
  if (mode === 'all' || mode === 'new' || mode === 'none') return mode
  return underCI() ? 'none' : 'new'
}

/** The one-ordering outcome (no file is read or written). */
export function oneOrderingOutcome(file: string): BaselineOutcome {
  return { status: 'one-ordering', file, pass: false, message: ONE_ORDERING_MESSAGE, orderConsistency: null }
}

/** Run the gate: write, refresh or compare, failing closed whenever nothing could be compared. */
export async function runBaselineGate(suite: string, result: EvalResult, { path, file, mode, ci, gate }: BaselineGateContext): Promise<BaselineOutcome> {
  const current = baselineFromResult(suite, result)
  const oc = percent(result.orderConsistency ?? 0)
  const notUnderCI = notWrittenHint('baseline', true)
  if (mode === 'all') {
    if (ci) return { status: 'not-written-in-ci', file, pass: false, message: `baseline ${file} was not refreshed: ${notUnderCI}`, orderConsistency: result.orderConsistency }
    await writeBaseline(path, current)
    return { status: 'updated', file, pass: true, message: `baseline ${file} refreshed (vitest -u): order consistency ${oc}`, orderConsistency: result.orderConsistency }
  }
  const stored = await readBaseline(path)
  if (!stored) {
    if (mode === 'none' || ci) {
      const why = notWrittenHint('baseline', ci)
      return { status: 'missing', file, pass: false, message: `no baseline at ${file}, and ${why}`, orderConsistency: result.orderConsistency }
    }
    await writeBaseline(path, current)
    return { status: 'written', file, pass: true, message: `baseline ${file} written: order consistency ${oc}; commit it`, orderConsistency: result.orderConsistency }
  }
  // Two suite names with one slug share a file: never compare a suite with another's baseline.
  if (stored.suite !== suite)
    return {
      status: 'other-suite',
      file,
      pass: false,
      message:
        `baseline ${file} belongs to suite "${escapeControl(stored.suite)}", not "${escapeControl(suite)}": their names give the same file name. ` +
        'If two suites share it, rename one (names are compared by letters and digits, ignoring case); if this suite was renamed, refresh the baseline with `vitest -u`.',
      orderConsistency: result.orderConsistency,
    }
  return { file, ...compareWithBaseline(stored, current, gate) }
}
