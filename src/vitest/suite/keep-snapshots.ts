/**
 * `-u` never deletes a snapshot because an earlier assertion in the same test failed.
 * Vitest's `-u` removes every stored snapshot of the file that no test checked during the
 * run; a snapshot assertion that never ran, because an assertion before it threw, counts
 * as unchecked, so the letter-distribution snapshot of a failing callback would be
 * deleted. Vitest keeps the snapshots of skipped tests; this does the same for a test
 * that failed.
 */
import { expect } from 'vitest'

/** The part of Vitest's snapshot state this uses. */
interface SnapshotStateLike {
  markSnapshotsAsCheckedForTest(testName: string): void
}

/** Run `body`; if it throws, keep the running test's stored snapshots, then rethrow. */
export async function keepingSnapshotsOnFailure(body: () => unknown): Promise<void> {
  try {
    await body()
  } catch (error) {
    const state = expect.getState() as { snapshotState?: SnapshotStateLike; currentTestName?: string }
    if (state.currentTestName && typeof state.snapshotState?.markSnapshotsAsCheckedForTest === 'function')
      state.snapshotState.markSnapshotsAsCheckedForTest(state.currentTestName)
    throw error
  }
}
