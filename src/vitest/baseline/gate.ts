/**
 * The baseline gate of a `describeDecisions` suite (docs/baselines.md#baselines): when the
 * baseline is written, refreshed or compared, and the cases where it must fail because
 * it could not check anything (one ordering scored, a write refused under CI).
 * The write rules follow Vitest's snapshot rules (docs/design.md#vitest-mechanics-the-code-relies-on):
 * `-u` (update mode `all`) rewrites; a missing baseline is written locally (`new`); under
 * CI nothing is ever written, not even with `-u`, because a gate that compares a run
 * with itself passes without having checked anything.
 */
import { expect } from 'vitest'
import type { EvalResult } from '../../core/index.ts'
import { baselineFromResult, readBaseline, writeBaseline, type BaselineGateOptions, type BaselineOutcome } from './file.ts'
import { decideBaseline } from './decision.ts'

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

/** Run the gate: write, refresh or compare, failing closed whenever nothing could be compared (the rule: baseline-decision.ts). */
export async function runBaselineGate(suite: string, result: EvalResult, { path, file, mode, ci, gate }: BaselineGateContext): Promise<BaselineOutcome> {
  const current = baselineFromResult(suite, result)
  // Under `-u` the stored file is not read: a refresh replaces it whatever it holds.
  const stored = mode === 'all' ? undefined : await readBaseline(path)
  const { outcome, write } = decideBaseline(suite, stored, current, { file, mode, ci, gate, partial: result.stopEarly?.stopped ? result.stopEarly : undefined })
  if (write) await writeBaseline(path, write)
  return outcome
}
