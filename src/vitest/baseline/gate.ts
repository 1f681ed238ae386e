/**
 * The baseline gate's update mode under Vitest (docs/baselines.md#baselines); the gate itself
 * is the suite's (src/suite/baseline/run-gate.ts). The write rules follow Vitest's snapshot rules (docs/design.md#vitest-mechanics-the-code-relies-on):
 * `-u` (update mode `all`) rewrites; a missing baseline is written locally (`new`); under
 * CI nothing is ever written, not even with `-u`, because a gate that compares a run
 * with itself passes without having checked anything.
 */
import { expect } from 'vitest'
import { underCI } from '../../suite/baseline/run-gate.ts'

/** Vitest's snapshot update mode, as seen by the running test; the plugin's value, then CI, as fallbacks. */
export function updateMode(pluginMode: string | undefined): 'all' | 'new' | 'none' {
  const state = expect.getState() as { snapshotState?: { snapshotUpdateState?: string } }
  const mode = state.snapshotState?.snapshotUpdateState ?? pluginMode
  if (mode === 'all' || mode === 'new' || mode === 'none') return mode
  return underCI() ? 'none' : 'new'
}
