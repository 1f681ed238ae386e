/**
 * The sceptic matchers for Jest's `expect.extend`: the result matchers are the suite layer's
 * own; the letter-distribution snapshot keeps its text, tolerance and messages, stored through
 * Jest's snapshot state (the test file's `.snap` file), so Jest's rules apply: written when
 * new, rewritten by `jest -u`, never written under `--ci`. Under CI (`CI` set) it is never
 * written in any mode, not even with `jest -u` or `--ci=false`: a snapshot written by the run it gates checks nothing.
 */
import {
  asDistribution,
  checkLetterOptions,
  compareDistributions,
  DEFAULT_LETTER_TOLERANCE,
  forJest,
  notWrittenHint,
  parseDistribution,
  readOnlyUnderCI,
  renderDistribution,
  toHaveAccuracyAboveChance,
  toHaveBalancedAccuracy,
  toHaveOrderConsistency,
  toHavePerCriterionBalancedAccuracy,
  underCI,
  type LetterDistributionOptions,
  type MatcherOutcome,
} from './decide.ts'

/** The part of jest-snapshot's `SnapshotState` (on `this.snapshotState`) this uses. */
export interface JestSnapshotState {
  /** `all` under `-u`, `none` under `--ci`, else `new`. */
  readonly _updateSnapshot: 'all' | 'new' | 'none'
  /** Stored snapshots by key (`${testName} ${count}`), serialised. */
  readonly _snapshotData: Readonly<Record<string, string>>
  /** Snapshots matched so far per test name (the next key's count is one more). */
  readonly _counters: ReadonlyMap<string, number>
  match(options: { testName: string; received: unknown; isInline: boolean }): { pass: boolean; key: string; expected?: string; actual?: string }
  markSnapshotsAsCheckedForTest(testName: string): void
}

/** What a Jest matcher reads of `this`. */
interface JestMatcherContext {
  readonly isNot: boolean
  readonly snapshotState?: JestSnapshotState
  readonly currentTestName?: string
}

/** `expect(result.letterDistribution).toMatchLetterDistribution({ tolerance })`: a snapshot with tolerance. */
export function toMatchLetterDistribution(this: JestMatcherContext, received: unknown, options: LetterDistributionOptions = {}): MatcherOutcome {
  checkLetterOptions(options)
  const distribution = asDistribution(received)
  const tolerance = options.tolerance ?? DEFAULT_LETTER_TOLERANCE
  const state = this.snapshotState
  const testName = this.currentTestName
  if (!state || !testName) throw new Error('toMatchLetterDistribution() needs a running Jest test (its snapshot state)')
  if (this.isNot) throw new Error('toMatchLetterDistribution() cannot be negated')
  if (underCI() && state._updateSnapshot === 'all') {
    // Kept as stored: `-u` removes a snapshot no test checked.
    state.markSnapshotsAsCheckedForTest(testName)
    return { pass: false, message: () => `the letter-distribution snapshot was not refreshed: ${forJest(notWrittenHint('snapshot', true, 'letter-distribution snapshots'))}` }
  }
  const key = `${testName} ${(state._counters.get(testName) ?? 0) + 1}`
  const stored = state._snapshotData[key]
  // Within tolerance the stored text is matched (no churn on `-u`); outside it, the measured one.
  const comparison = stored === undefined ? undefined : compareDistributions(distribution, parseDistribution(stored), tolerance)
  const text = renderDistribution(comparison?.resolved ?? distribution)
  const { pass } = readOnlyUnderCI(state, underCI(), () => state.match({ testName, received: text, isInline: false }))
  if (pass) return { pass: true, message: () => `expected the letter distribution not to match snapshot "${key}"` }
  if (!comparison) return { pass: false, message: () => `no letter-distribution snapshot "${key}" in the test file's .snap file, and ${forJest(notWrittenHint('snapshot', underCI()))}` }
  const offending = comparison.offending.map(({ letter, actual, expected }) => `${letter} ${letterShare(actual)} vs stored ${letterShare(expected)}`).join(', ')
  return { pass: false, message: () => `letter-distribution snapshot "${key}": letters outside ±${tolerance}: ${offending}. Run \`jest -u\` to accept the new distribution.` }
}

function letterShare(value: number | null): string {
  return value === null ? 'absent' : value.toFixed(3)
}

/** Every sceptic matcher, for `expect.extend(scepticMatchers)` (describeDecisions does this). */
export const scepticMatchers = {
  toHaveBalancedAccuracy,
  toHaveOrderConsistency,
  toHaveAccuracyAboveChance,
  toHavePerCriterionBalancedAccuracy,
  toMatchLetterDistribution,
}
