/**
 * `vitest-sceptic/stats`: the statistics primitives the report is built from, for scripts that
 * compute their own: intervals, exact tests, the seeded bootstrap, baselines, power, calibration
 * and the anytime-valid bounds of stopping early. Pure functions; no Vitest, no onnxruntime.
 */
export { DEFAULT_LEVEL, normalQuantile } from './math/normal.ts'
export type { Interval } from './math/normal.ts'
export { binomialLowerTail, binomialUpperTail, clopperPearsonInterval, mcnemarExact, wilsonInterval } from './math/binomial.ts'
export type { McNemarResult } from './math/binomial.ts'
export {
  DEFAULT_RESAMPLES,
  MAX_RESAMPLES,
  pairedBootstrapDifference,
  percentileBootstrap,
  percentileBootstrapCounts,
  quantileSorted,
  weightedBalancedAccuracy,
} from './math/bootstrap.ts'
export type { BootstrapInterval, BootstrapOptions } from './math/bootstrap.ts'
export { cltStandardError, clusteredStandardError, designEffect, millerMinimumDetectableEffect, millerSampleSize, minimumDetectableDifference } from './math/power.ts'
export type { MillerPowerInput, MinimumDetectableDifferenceOptions } from './math/power.ts'
export { chiSquareSurvival } from './math/chi-square.ts'
export { chanceBalancedAccuracy, chanceOrderConsistency, majorityBaseline, rstd } from './statistics/baselines.ts'
export type { MajorityBaseline } from './statistics/baselines.ts'
export { ECE_MIN_ROWS, eceNoiseFloor, eceReliability } from './statistics/calibration.ts'
export type { EceNoiseFloor, EceReliability } from './statistics/calibration.ts'
export { computeStatistics } from './statistics/compute.ts'
export type { Statistics, StatisticsOptions, Verdict } from './statistics/compute.ts'
export { aboveChanceP } from './statistics/above-chance.ts'
export { mcnemarRegression, minimumDetectableDiscordant, powerCheck } from './statistics/regression-gate.ts'
export type { McNemarRegression, PowerCheck } from './statistics/regression-gate.ts'
// Stopping early: anytime-valid bounds and the sequential McNemar (docs/stopping-early.md).
export { bernoulliConfidenceSequence, betaMixtureConfidenceSequence, DEFAULT_PRIOR } from './math/confidence-sequence.ts'
export { bettingRateBounds, EFFECT_BETS, FRACTION_BETS, stratifiedRateBounds, type BetMixture, type StratumCount } from './math/betting.ts'
export type { BetaPrior, RateBounds } from './math/confidence-sequence.ts'
export { mcnemarBetaMixtureEValue, mcnemarBettingEValue, mcnemarEValue, mcnemarNotWorseEValue } from './math/sequential-mcnemar.ts'
export { pairedVerdict, PairedTally } from './thresholds/sequential/paired.ts'
export type { PairedCounts, PairedVerdict, PairFlags } from './thresholds/sequential/paired.ts'
