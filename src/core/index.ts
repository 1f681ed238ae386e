/**
 * The core: decisions in, an {@link EvalResult} out. Imports neither Vitest nor
 * onnxruntime, so it runs anywhere Node runs.
 */
export {
  CriterionSchema,
  DecisionSchema,
  LETTERS,
  MAX_OPTIONS,
  MIN_OPTIONS,
  OptionSchema,
  decisionJsonSchema,
  fingerprint,
  groupOf,
  groupSplit,
  isLabelled,
  loadDecisions,
  parseDecisions,
  reorderCriterion,
  validateDecision,
  validateDecisions,
} from './decisions.ts'
export type { Criterion, Decision, GroupSplitOptions, LabelledDecision, Option } from './decisions.ts'
export { ConfigError, DataError, EvaluationError, ScorerError } from './errors.ts'
export type { DataLocation } from './errors.ts'
export { NULL_STATE, evaluateWithScorer } from './evaluate.ts'
export type { EvaluateOptions, EvaluateProgress } from './evaluate.ts'
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
} from './metrics.ts'
export { AVERAGE_MODES, DEBIAS_MODES, DEFAULT_DEBIAS, MAX_PERMUTATION_OPTIONS, assertAverageMode, assertDebiasMode, orderings } from './orderings.ts'
export type { AverageMode, DebiasMode, Ordering } from './orderings.ts'
export { DEFAULT_PRIDE_FRACTION } from './evaluate.ts'
export type { PrideManifest } from './evaluate.ts'
export {
  DEFAULT_LEVEL,
  DEFAULT_RESAMPLES,
  ECE_MIN_ROWS,
  chanceBalancedAccuracy,
  chanceOrderConsistency,
  clopperPearsonInterval,
  cltStandardError,
  clusteredStandardError,
  designEffect,
  eceNoiseFloor,
  eceReliability,
  majorityBaseline,
  mcnemarExact,
  millerMinimumDetectableEffect,
  millerSampleSize,
  minimumDetectableDifference,
  pairedBootstrapDifference,
  percentileBootstrap,
  percentileBootstrapCounts,
  rstd,
  weightedBalancedAccuracy,
  wilsonInterval,
} from './stats.ts'
export type {
  BootstrapInterval,
  BootstrapOptions,
  EceNoiseFloor,
  EceReliability,
  Interval,
  MajorityBaseline,
  McNemarResult,
  MillerPowerInput,
  MinimumDetectableDifferenceOptions,
} from './stats.ts'
export { computeStatistics } from './intervals.ts'
export { formatInterval } from '../report/format.ts'
export type { Statistics, StatisticsOptions, Verdict } from './intervals.ts'
export { compareResults, recordsFingerprint } from './compare.ts'
export { renderComparison } from '../report/terminal-comparison.ts'
export type { Comparable, CompareOptions, Comparison, PairedTable } from './compare.ts'
export type { RenderComparisonOptions } from '../report/terminal-comparison.ts'
export { buildPrompt } from './prompt.ts'
export { BOUND_EPSILON, ThresholdSchema, assertThreshold, formatThreshold, thresholdProblem, thresholdVerdict, toBounds } from './verdict.ts'
export type { Bounds, Threshold, ThresholdVerdict } from './verdict.ts'
export { THRESHOLD_METRICS, evaluateThreshold, evaluateThresholds, thresholdLabel } from './threshold-metrics.ts'
export type { ThresholdMetric } from './threshold-metrics.ts'
export { eceNote } from './ece-note.ts'
export { chiSquareSurvival } from './chi-square.ts'
export { CKLD_FLOOR, circularChance, movableSlots, panelDecision, pinnedSlots, robustnessPanel } from './robustness.ts'
export type { PanelDecision, RobustnessPanel, SlotBias } from './robustness.ts'
export { classifyPair, isPair, pairwiseAudit } from './pairwise.ts'
export type { PairClass, PairInput, PairPosition, PairwiseAudit } from './pairwise.ts'
export type { EceNote } from './ece-note.ts'
export { colorEnabled, render } from '../report/terminal.ts'
export type { RenderOptions } from '../report/terminal.ts'
export { recordsToJsonl, resultToJson } from './result.ts'
export type { DecisionFailure, DecisionRecord, EvalResult, EvalResultJson, Manifest } from './result.ts'
export { FAILURE_REASONS, isFlaggedScore, isScoredOutcome, isScoreFailure, scoreFailure } from './score.ts'
export type { FailureReason, FallibleScoreFn, FlaggedScore, ScoreContext, ScoredOutcome, ScoreFailure, ScoreFn, ScoreOutcome, ScoreRequest } from './score.ts'
export { REDUCERS, atLeast, max, meanReducer, median, mode, passAt, resolveReducer } from './reducers.ts'
export type { Reducer, ReducerLike } from './reducers.ts'
export { runCustomMetrics } from './sample-score.ts'
export type { CustomMetric, SampleScore } from './sample-score.ts'
export { CACHE_COUNTS, cacheCountsSince, formatCacheCounts, readCacheCounts } from './cache-counts.ts'
export type { CacheCounts } from './cache-counts.ts'
export { loadDecisionLines } from './decisions.ts'
export type { DecisionLine } from './decisions.ts'
export type { JsonlReadOptions } from './jsonl.ts'
export { COMPUTED_MANIFEST_KEYS } from './manifest-extras.ts'
export { parseShard, shardKey, shardOf, shardPositions } from './shard.ts'
export type { ShardSpec } from './shard.ts'
export { PART_FORMAT, parsePartFile, partFileText, reassemble, recordingScorer, replayKey } from './shard-part.ts'
export type { PartContent, PartHeader, PartSettings, Reassembled, ShardPart } from './shard-part.ts'
// Stopping early: anytime-valid bounds and the sequential McNemar (docs/stopping-early.md).
export { bernoulliConfidenceSequence, DEFAULT_PRIOR } from './sequential/confidence-sequence.ts'
export type { BetaPrior, RateBounds } from './sequential/confidence-sequence.ts'
export { mcnemarEValue } from './sequential/mcnemar.ts'
export { SEQUENTIAL_KEYS, SequentialMonitor, boundsVerdict, lookStops } from './sequential/monitor.ts'
export type { SequentialObservation, SequentialVerdict } from './sequential/monitor.ts'
export { DEFAULT_STOP_ALPHA } from './sequential/options.ts'
export type { StopEarlyOptions } from './sequential/options.ts'
export type { StopEarlyResult } from './sequential/result.ts'
