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
import { underCI } from './run-gate.ts'

export { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP, ONE_ORDERING_MESSAGE, oneOrderingOutcome, runBaselineGate, underCI, type BaselineGateContext } from './run-gate.ts'

/** Vitest's snapshot update mode, as seen by the running test; the plugin's value, then CI, as fallbacks. */
export function updateMode(pluginMode: string | undefined): 'all' | 'new' | 'none' {
  const state = expect.getState() as { snapshotState?: { snapshotUpdateState?: string } }
  const mode = state.snapshotState?.snapshotUpdateState ?? pluginMode
  if (mode === 'all' || mode === 'new' || mode === 'none') return mode
  return underCI() ? 'none' : 'new'
}
