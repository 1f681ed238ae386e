// The package root: the core plus the Vitest-facing API (this entry imports vitest;
// `vitest-sceptic/core` is the Vitest-free one).
export * from './core/index.ts'
export * from './cache/index.ts'
export {
  BASELINE_TEST_NAME,
  CALLBACK_TEST_NAME,
  DEFAULT_SCORING_TIMEOUT_MS,
  describeDecisions,
  thresholdTestName,
} from './vitest/describe-decisions.ts'
export type { DecisionsCallback, DescribeDecisionsOptions, ScorerHandle } from './vitest/describe-decisions.ts'
export { aboveChanceP, scepticMatchers } from './vitest/matchers.ts'
export type { AboveChanceOptions, AtLeast, LetterDistributionOptions, ResultLike, ScepticMatchers } from './vitest/matchers.ts'
export { letterDistributionAdapter } from './vitest/snapshot.ts'
export type { LetterDistribution } from './vitest/snapshot.ts'
export { baselineDecisions, baselinePath, compareWithBaseline, decisionFingerprint, readBaseline } from './vitest/baseline.ts'
export type { BaselineDecision, BaselineFile, BaselineOutcome, BaselineStatus } from './vitest/baseline.ts'
export { mcnemarRegression, minimumDetectableDiscordant, powerCheck } from './vitest/mcnemar.ts'
export type { McNemarResult as BaselineMcNemarResult, PowerCheck } from './vitest/mcnemar.ts'
export { META_KEY, readSuiteMeta } from './vitest/meta.ts'
export type { ScepticSuiteMeta, ScepticTestMeta, Thresholds } from './vitest/meta.ts'
export type { ScepticContext } from './vitest/context.ts'
export type { SharedModelOptions } from './vitest/context.ts'
export { sharedModel } from './vitest/models.ts'
export type { SharedModelScorer, SharedModelUrls } from './vitest/models.ts'
