/**
 * The package root `vitest-sceptic`: what an eval file needs. Suites and matchers, the
 * scorers' factories and the scorer contract, the decision schema and loader, errors.
 * Everything else has a named entry: `./core` (evaluation without Vitest), `./stats`
 * (statistics primitives), `./report` (terminal, HTML, GitHub output), `./cache`,
 * `./onnx`, `./http`, `./ai`. Every name is listed, so the surface changes only by an
 * edit here (checked by api/index.api.txt).
 */
// Suites, their tests and matchers.
export { BASELINE_TEST_NAME, CALLBACK_TEST_NAME, DEFAULT_SCORING_TIMEOUT_MS } from './suite/options.ts'
export { describeDecisions } from './vitest/suite/describe-decisions.ts'
export { thresholdTestName } from './core/thresholds/verdict.ts'
export type { DescribeDecisionsOptions, ScorerHandle } from './suite/options.ts'
export type { DecisionsCallback } from './vitest/suite/describe-decisions.ts'
export { scepticMatchers } from './vitest/assertions/matchers.ts'
export type { AboveChanceOptions, AtLeast, LetterDistributionOptions, ResultLike, ScepticMatchers } from './vitest/assertions/matchers.ts'
export { letterDistributionAdapter } from './vitest/assertions/snapshot.ts'
export type { LetterDistribution } from './suite/assertions/snapshot.ts'
export { readSuiteMeta } from './suite/meta.ts'
export type { ScepticSuiteMeta, ScepticTestMeta, Thresholds } from './suite/meta.ts'
export type { ScepticContext, SharedModelOptions } from './suite/context.ts'
export { sharedModel } from './vitest/models/client.ts'
export type { SharedModelScorer } from './vitest/models/client.ts'

// Scorers: the contract every scorer meets, and the factories of this package's own.
export { FAILURE_REASONS, isScoreFailure, scoreFailure } from './core/index.ts'
export type {
  FailureReason,
  FallibleScoreFn,
  FlaggedScore,
  ScoreContext,
  ScoredOutcome,
  ScoreFailure,
  ScoreFn,
  ScoreOutcome,
  ScoreRequest,
} from './core/index.ts'
export { openAIScorer } from './scorers/http/index.ts'
export type { OpenAIScorer, OpenAIScorerOptions } from './scorers/http/index.ts'
export { onnxScorer } from './scorers/onnx/index.ts'
export type { OnnxScorer, OnnxScorerOptions } from './scorers/onnx/index.ts'
export { cachedScorer, withCache } from './cache/index.ts'
export type { CachedScorer, CachedScorerOptions, CacheIdentity, CacheMode, CacheOptions, WithCacheOptions } from './cache/index.ts'

// Decisions in, a result out.
export {
  AVERAGE_MODES,
  buildPrompt,
  compareResults,
  CriterionSchema,
  DEBIAS_MODES,
  decisionJsonSchema,
  DecisionSchema,
  DEFAULT_DEBIAS,
  evaluateWithScorer,
  fingerprint,
  groupSplit,
  LETTERS,
  loadDecisions,
  MAX_OPTIONS,
  MIN_OPTIONS,
  NULL_STATE,
  OptionSchema,
  parseDecisions,
  recordsToJsonl,
  resultToJson,
  THRESHOLD_METRICS,
  ThresholdSchema,
  validateDecision,
  validateDecisions,
} from './core/index.ts'
export { atLeast, meanReducer, passAt, REDUCERS } from './core/index.ts'
export type {
  AverageMode,
  Bounds,
  CompareOptions,
  Comparison,
  Criterion,
  CustomMetric,
  DebiasMode,
  Decision,
  DecisionFailure,
  DecisionRecord,
  EvalResult,
  EvalResultJson,
  EvaluateOptions,
  EvaluateProgress,
  LabelledDecision,
  Manifest,
  Option,
  Reducer,
  ReducerLike,
  RobustnessPanel,
  SampleScore,
  Statistics,
  StopEarlyOptions,
  StopEarlyResult,
  Threshold,
  ThresholdVerdict,
} from './core/index.ts'

// Errors: a bad file, a bad setting, a scorer that broke its contract.
export { ConfigError, DataError, EvaluationError, ScorerError } from './core/index.ts'
export type { DataLocation } from './core/index.ts'
