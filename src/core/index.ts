/**
 * `vitest-sceptic/core`: decisions in, an {@link EvalResult} out. Imports neither Vitest nor
 * onnxruntime, so it runs anywhere Node runs. Rendering lives in `vitest-sceptic/report`,
 * statistics primitives in `vitest-sceptic/stats`.
 */
export { CriterionSchema, DecisionSchema, LETTERS, MAX_OPTIONS, MIN_OPTIONS, OptionSchema, decisionJsonSchema, isLabelled, reorderCriterion } from './decisions/schema.ts'
export { fingerprint } from './decisions/fingerprint.ts'
export { groupOf, groupSplit } from './decisions/split.ts'
export { loadDecisions, parseDecisions, validateDecision, validateDecisions } from './decisions/load.ts'
export type { Criterion, Decision, LabelledDecision, Option } from './decisions/schema.ts'
export type { GroupSplitOptions } from './decisions/split.ts'
export { ConfigError, DataError, EvaluationError, ScorerError } from './support/errors.ts'
export type { DataLocation } from './support/errors.ts'
export { NULL_STATE, evaluateWithScorer } from './evaluate/index.ts'
export type { EvaluateOptions, EvaluateProgress } from './evaluate/index.ts'
export {
  ECE_BINS,
  accuracy,
  balancedAccuracy,
  balancedAccuracyByGroup,
  brierScore,
  chanceAccuracy,
  expectedCalibrationError,
  isConsistent,
  letterDistribution,
  meanGroupBalancedAccuracy,
  orderConsistency,
  recallByClass,
} from './metrics/headline.ts'
export { AVERAGE_MODES, DEBIAS_MODES, DEFAULT_DEBIAS, MAX_PERMUTATION_OPTIONS, assertAverageMode, assertDebiasMode, orderings } from './requests/orderings.ts'
export type { AverageMode, DebiasMode, Ordering } from './requests/orderings.ts'
export { DEFAULT_PRIDE_FRACTION } from './evaluate/index.ts'
export type { PrideManifest } from './evaluate/index.ts'
export type { Statistics, StatisticsOptions, Verdict } from './statistics/compute.ts'
export type { Interval } from './math/normal.ts'
export { compareResults, recordsFingerprint } from './compare/compare.ts'
export type { Comparable, CompareOptions, Comparison, PairedTable } from './compare/compare.ts'
export { buildPrompt } from './requests/prompt.ts'
export { BOUND_EPSILON, ThresholdSchema, assertThreshold, formatThreshold, thresholdProblem, thresholdVerdict, toBounds } from './thresholds/verdict.ts'
export type { Bounds, Threshold, ThresholdVerdict } from './thresholds/verdict.ts'
export { THRESHOLD_METRICS, evaluateThreshold, evaluateThresholds, thresholdLabel } from './thresholds/metrics.ts'
export type { ThresholdMetric } from './thresholds/metrics.ts'
export { CKLD_FLOOR, circularChance, movableSlots, panelDecision, pinnedSlots, robustnessPanel } from './metrics/robustness.ts'
export type { PanelDecision, RobustnessPanel, SlotBias } from './metrics/robustness.ts'
export { classifyPair, isPair, pairwiseAudit } from './metrics/pairwise.ts'
export type { PairClass, PairInput, PairPosition, PairwiseAudit } from './metrics/pairwise.ts'
export { recordsToJsonl, resultToJson } from './result/result.ts'
export type { DecisionFailure, DecisionRecord, EvalResult, EvalResultJson, Manifest } from './result/result.ts'
export { FAILURE_REASONS, isFlaggedScore, isScoredOutcome, isScoreFailure, scoreFailure } from './scorer/contract.ts'
export type { FailureReason, FallibleScoreFn, FlaggedScore, ScoreContext, ScoredOutcome, ScoreFailure, ScoreFn, ScoreOutcome, ScoreRequest } from './scorer/contract.ts'
export { REDUCERS, atLeast, max, meanReducer, median, mode, passAt, resolveReducer } from './evaluate/reducers.ts'
export type { Reducer, ReducerLike } from './evaluate/reducers.ts'
export { runCustomMetrics } from './evaluate/sample-score.ts'
export type { CustomMetric, SampleScore } from './evaluate/sample-score.ts'
export { CACHE_COUNTS, cacheCountsSince, formatCacheCounts, readCacheCounts } from './scorer/cache-counts.ts'
export type { CacheCounts } from './scorer/cache-counts.ts'
export { loadDecisionLines } from './decisions/load.ts'
export type { DecisionLine } from './decisions/load.ts'
export type { JsonlReadOptions } from './decisions/jsonl.ts'
export { COMPUTED_MANIFEST_KEYS } from './result/manifest-extras.ts'
export { parseShard, shardKey, shardOf, shardPositions } from './shards/spec.ts'
export type { ShardSpec } from './shards/spec.ts'
export { PART_FORMAT, parsePartFile, partFileText, reassemble, recordingScorer, replayKey } from './shards/part-file.ts'
export type { PartContent, PartHeader, PartSettings, Reassembled, ShardPart } from './shards/part-file.ts'
export { SEQUENTIAL_KEYS, SequentialMonitor, boundsVerdict, lookStops } from './thresholds/sequential/monitor.ts'
export { Strata, stratifiedOrder } from './thresholds/sequential/strata.ts'
export type { SequentialObservation, SequentialVerdict } from './thresholds/sequential/monitor.ts'
export { DEFAULT_STOP_ALPHA } from './thresholds/sequential/options.ts'
export type { StopEarlyOptions } from './thresholds/sequential/options.ts'
export type { StopEarlyResult } from './result/stop-early.ts'
