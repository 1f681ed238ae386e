/**
 * `vitest-sceptic/jest`: the eval suites under Jest 30. `describeDecisions` declares the same
 * named tests as the Vitest face; the matchers are registered with `expect.extend` (by
 * `describeDecisions`, or by you with `scepticMatchers`). Add the reporter,
 * `vitest-sceptic/jest/reporter`, for the sceptic report (docs/jest.md).
 */
export { describeDecisions, type JestDecisionsCallback, type JestDescribeDecisionsOptions } from './describe-decisions.ts'
export { scepticMatchers, toMatchLetterDistribution } from './matchers.ts'
export type { AboveChanceOptions, AtLeast, LetterDistributionOptions, ResultLike, ScepticMatchers } from './decide.ts'
export type { EvalResult, ScoreFn, ScoreRequest, FallibleScoreFn } from '../core/index.ts'

declare global {
  // Jest's `expect(x)` type (from @jest/expect or @types/jest) gains the matchers.
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace jest {
    interface Matchers<R, T = {}> {
      toHaveBalancedAccuracy(options: { atLeast: number }): R
      toHaveOrderConsistency(options: { atLeast: number }): R
      toHaveAccuracyAboveChance(options?: { margin?: number; alpha?: number }): R
      toHavePerCriterionBalancedAccuracy(options: { atLeast: number }): R
      toMatchLetterDistribution(options?: { tolerance?: number }): R
    }
  }
}
