/**
 * The sceptic's matchers. Every failure message prints the measured value, the
 * bound and the letters picked (docs/vitest.md#matchers): a number without the
 * letters behind it is how a position prior passes review.
 */
import type {} from 'vitest'
import type { MatcherResult as ExpectationResult, MatcherState } from 'vitest'
import { Snapshots } from 'vitest'
import { DEFAULT_LETTER_TOLERANCE, readOnlyUnderCI } from '../../suite/assertions/snapshot.ts'
import { letterDistributionAdapter } from './snapshot.ts'
import { underCI } from '../../suite/baseline/run-gate.ts'
import { scepticContext } from '../suite/context.ts'
import { notWrittenHint } from '../../suite/baseline/missing-record.ts'
import { checkLetterOptions } from '../../suite/assertions/options-schema.ts'
import {
  asDistribution,
  toHaveAccuracyAboveChance,
  toHaveBalancedAccuracy,
  toHaveOrderConsistency,
  toHavePerCriterionBalancedAccuracy,
  type LetterDistributionOptions,
  type ScepticMatchers,
} from '../../suite/assertions/result-matchers.ts'

export { toHaveAccuracyAboveChance, toHaveBalancedAccuracy, toHaveOrderConsistency, toHavePerCriterionBalancedAccuracy }
export type { AboveChanceOptions, AtLeast, LetterDistributionOptions, ResultLike, ScepticMatchers } from '../../suite/assertions/result-matchers.ts'

declare global {
  // Typed through Chai's Assertion rather than Vitest's `Matchers`: Vitest 4.1 declares
  // `Matchers<T = any>` and Vitest 5 `Matchers<R, T>`, and a merge must repeat the type
  // parameters exactly, so no single `Matchers` augmentation compiles against both. Both
  // versions copy every method of `Chai.Assertion` onto `expect(x)` (and onto `.not`,
  // `.resolves`, `expect.poll`), so this one declaration types the matchers on either.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Chai {
    interface Assertion extends ScepticMatchers<void> {}
  }
}

type Matcher = (this: MatcherState, received: unknown, ...args: any[]) => ExpectationResult

/** `expect(result.letterDistribution).toMatchLetterDistribution({ tolerance })`: a domain snapshot. */
export const toMatchLetterDistribution: Matcher = function (received, options: LetterDistributionOptions = {}) {
  checkLetterOptions(options)
  const distribution = asDistribution(received)
  const tolerance = options.tolerance ?? DEFAULT_LETTER_TOLERANCE
  // Vitest's `-u` and `--update=new` override CI for snapshots; for a gate they must not (the baselines' rule).
  const state = this as { snapshotState?: { snapshotUpdateState?: string; markSnapshotsAsCheckedForTest?: (name: string) => void }; currentTestName?: string }
  if (underCI() && (state.snapshotState?.snapshotUpdateState ?? scepticContext()?.update) === 'all') {
    // Kept as stored: an unchecked snapshot would be removed by `-u`.
    if (state.currentTestName) state.snapshotState?.markSnapshotsAsCheckedForTest?.(state.currentTestName)
    return {
      pass: false,
      message: () => `the letter-distribution snapshot was not refreshed: ${notWrittenHint('snapshot', true, 'letter-distribution snapshots')}`,
    }
  }
  const outcome = readOnlyUnderCI(state.snapshotState, underCI(), () => Snapshots.toMatchDomainSnapshot.call(this, letterDistributionAdapter(tolerance), distribution) as ExpectationResult)
  // No stored snapshot and none written now (CI, --update=none): say so and how to fix it, not "mismatched".
  if (outcome instanceof Promise || outcome.pass || outcome.expected !== undefined) return outcome
  const key = /Snapshot `(.*)` mismatched/.exec(outcome.message())?.[1]
  const name = key === undefined ? 'this test' : `"${key}"`
  return { ...outcome, message: () => `no letter-distribution snapshot for ${name} in the test file's .snap file, and ${notWrittenHint('snapshot', underCI())}` }
}

/** All sceptic matchers, for `expect.extend(scepticMatchers)` (the plugin's setup file does this). */
export const scepticMatchers = {
  toHaveBalancedAccuracy,
  toHaveOrderConsistency,
  toHaveAccuracyAboveChance,
  toHavePerCriterionBalancedAccuracy,
  toMatchLetterDistribution,
}
