/**
 * The baseline gate as any test runner runs it (docs/baselines.md#baselines): write, refresh or
 * compare, and fail closed when nothing could be compared. No runner import: the Vitest face
 * (gate.ts) and the Jest face both call it with their runner's update mode.
 */
import type { EvalResult } from '../../core/index.ts'
import { baselineFromResult, readBaseline, writeBaseline, type BaselineGateOptions, type BaselineOutcome } from './file.ts'
import { decideBaseline } from './decision.ts'

/** Default significance level of the baseline gate (docs/baselines.md#baselines). */
export const DEFAULT_ALPHA = 0.05
/** Default drop the baseline gate should detect: 10 percentage points of order consistency. */
export const DEFAULT_DETECTABLE_DROP = 0.1

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
