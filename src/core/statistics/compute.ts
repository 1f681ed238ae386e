/**
 * The `statistics` of one evaluation: how far each headline could move by chance, the baselines
 * it must beat, and the smallest detectable change. From the records alone, so a `--records-out` file works too.
 */
import { aboveChanceP, balancedAccuracyChanceTest, chanceAlpha, guesserP } from './above-chance.ts'
import { balancedAccuracyBounds } from './balanced-accuracy-interval.ts'
import { detectableDifference } from './detectable.ts'
import { expectedCalibrationError, isConsistent } from '../metrics/headline.ts'
import { recordConfidence } from '../metrics/from-records.ts'
import type { DecisionRecord } from '../result/record.ts'
import { chanceBalancedAccuracy, chanceOrderConsistency, majorityBaseline, rstd } from './baselines.ts'
import { classIndices, defaultResamples, type BootstrapInterval } from '../math/bootstrap.ts'
import { mcnemarExact, wilsonBounds, wilsonInterval, type McNemarResult } from '../math/binomial.ts'
import { DEFAULT_LEVEL, type Interval } from '../math/normal.ts'
import { designEffect } from '../math/power.ts'
import { eceReliability } from './calibration.ts'
import type { Statistics, Verdict } from '../result/statistics.ts'

export type { Statistics, Verdict }

/** Options for {@link computeStatistics}. */
export interface StatisticsOptions {
  /** Bootstrap and simulation seed. Default 0. */
  seed?: number
  /** Bootstrap replicates. Default 2000 (fewer above 10^4 decisions, see `defaultResamples`). */
  resamples?: number
  /** Confidence level of every interval. Default 0.95. */
  level?: number
  /**
   * Gold answer's slot letter per record in the order the decision was originally
   * presented (A for the first option). Needed for RStd, which PriDe defines over slot
   * letters; without it `rstd` is `null`.
   */
  goldLetters?: readonly string[]
}


/**
 * Intervals, baselines, power and bias diagnostics for one evaluation's records (input order).
 * With any `groups` (`group_id` per record) the intervals and the MDD include their design effect.
 */
export function computeStatistics(
  records: readonly DecisionRecord[],
  groups?: readonly (string | null | undefined)[] | null,
  options: StatisticsOptions = {},
): Statistics {
  const { seed = 0, level = DEFAULT_LEVEL, goldLetters } = options
  const resamples = options.resamples ?? defaultResamples(records.length)
  const n = records.length
  const clusters = groups && groups.some((g) => g != null) ? groups : undefined
  if (clusters && clusters.length !== n) throw new RangeError(`groups has ${clusters.length} entries for ${n} records`)

  const gold = records.map((r) => r.gold)
  const hits = records.map((r) => r.prediction === r.gold)
  const successes = hits.filter(Boolean).length
  const optionCounts = records.map((r) => Math.max(1, Object.keys(r.probabilities).length))

  const deff = clusters ? designEffect(hits.map(Number), clusters) : 1
  const accuracyInterval = wilsonInterval(successes, n, level)
  const { classOf, classes } = classIndices(gold)
  const byClass = classCounts(classOf, Uint8Array.from(hits, Number), classes)
  const classChances = Array.from({ length: classes }, (): number[] => [])
  optionCounts.forEach((k, i) => classChances[classOf[i]!]!.push(1 / k))
  const baInterval = balancedAccuracyInterval(byClass, unitsOf(gold.length, clusters), { seed, level, designEffect: deff })
  // Order consistency only means something for decisions scored under several orderings.
  const multi = records.map((r, i) => [r, i] as const).filter(([r]) => r.picks.length > 1)
  const ocInterval = orderConsistencyInterval(multi, clusters, { seed, level })
  const chance = {
    accuracy: optionCounts.reduce((s, k) => s + 1 / k, 0) / Math.max(1, n),
    balancedAccuracy: chanceBalancedAccuracy(gold, optionCounts),
    orderConsistency:
      multi.length === 0
        ? null
        : multi.reduce((s, [r, i]) => s + chanceOrderConsistency(optionCounts[i]!, r.picks.length), 0) / multi.length,
  }
  const majority = majorityBaseline(gold, records.map((r) => r.criterion), level)
  const confidences = records.map(recordConfidence)
  const eceRule = eceReliability(expectedCalibrationError(confidences, hits) ?? 0, confidences, { seed, simulations: 500 })

  return {
    intervals: { accuracy: accuracyInterval, balancedAccuracy: baInterval, orderConsistency: ocInterval?.interval ?? null },
    chance,
    majorityBaseline: {
      answers: majority.answers,
      accuracy: majority.accuracy,
      interval: majority.interval,
      balancedAccuracy: majority.balancedAccuracy,
      pairedTest: versusBaseline(hits, majority.hits),
    },
    minimumDetectableDifference: detectableDifference(n, n === 0 ? 0 : successes / n, level, deff),
    rstd: goldLetters ? rstd(goldLetters, goldLetters.map((letter, i) => (hits[i] ? letter : `not ${letter}`))) : null,
    rstdReading: !goldLetters || n === 0 ? null : new Set(goldLetters).size < 2 ? 'one-letter' : successes === 0 ? 'all-wrong' : 'ok',
    eceReliable: eceRule.reliable,
    eceNote: { reason: eceRule.reason, floorMean: eceRule.floor.mean, floorP95: eceRule.floor.p95 },
    verdicts: {
      accuracy: verdict(aboveChanceP(records), accuracyInterval, majority.accuracy, 'chance', level),
      balancedAccuracy: {
        ...verdict(
          balancedAccuracyChanceTest(byClass.map(([classHits], c) => ({ hits: classHits, chances: classChances[c]! }))).p,
          baInterval,
          majority.balancedAccuracy,
          'chance',
          level,
        ),
        decidable: balancedAccuracyDecidable(byClass, classChances, majority.balancedAccuracy, level),
      },
      orderConsistency:
        ocInterval && chance.orderConsistency !== null
          ? verdict(
              guesserP(ocInterval.consistent, multi.map(([r, i]) => chanceOrderConsistency(optionCounts[i]!, r.picks.length))),
              ocInterval.interval,
              null,
              'a random guesser',
              level,
            )
          : null,
    },
    orderConsistencyDecisions: multi.length,
    settings: { seed, resamples, level },
  }
}

/** How an interval records its settings: MOVER-Wilson and Wilson draw no replicates. */
interface Settings {
  seed: number
  level: number
}

/** Units an interval's data came in: whole groups when `group_id`s were given, else decisions. */
function unitsOf(count: number, clusters: readonly (string | null | undefined)[] | undefined): { unit: 'groups' | 'items'; units: number } {
  if (!clusters) return { unit: 'items', units: count }
  const named = new Set(clusters.filter((g) => g != null)).size
  const units = named + clusters.filter((g) => g == null).length
  return { unit: units < count ? 'groups' : 'items', units }
}

/**
 * Balanced accuracy's interval: MOVER-Wilson (Zou & Donner 2008) on every run, right or wrong,
 * large or small, so no method switches at the boundary; with groups, each class's Wilson bounds
 * use its effective size n_c / deff (docs/statistics.md#intervals).
 */
function balancedAccuracyInterval(
  byClass: readonly (readonly [number, number])[],
  units: { unit: 'groups' | 'items'; units: number },
  settings: Settings & { designEffect: number },
): BootstrapInterval {
  const estimate = byClass.length === 0 ? 0 : byClass.reduce((s, [h, t]) => s + h / t, 0) / byClass.length
  const { lower, upper } = balancedAccuracyBounds(byClass, settings.level, settings.designEffect)
  return { estimate, lower, upper, level: settings.level, method: 'mover-wilson', resamples: 0, ...units, seed: settings.seed }
}

/**
 * Order consistency's interval over the decisions scored under several orderings: Wilson (1927),
 * the accuracy's method, on all data (it never collapses at 0% or 100%); with groups, on the
 * effective size n / deff.
 */
function orderConsistencyInterval(
  multi: readonly (readonly [DecisionRecord, number])[],
  clusters: readonly (string | null | undefined)[] | undefined,
  settings: Settings,
): { interval: BootstrapInterval; consistent: number } | null {
  if (multi.length === 0) return null
  const consistent = multi.map(([r]) => (isConsistent(r.picks) ? 1 : 0))
  const count = consistent.reduce<number>((s, v) => s + v, 0)
  const groups = clusters ? multi.map(([, i]) => clusters[i]) : undefined
  const deff = groups ? designEffect(consistent, groups) : 1
  const estimate = count / multi.length
  const { lower, upper } = wilsonBounds(estimate, multi.length / deff, settings.level)
  const interval: BootstrapInterval = { estimate, lower, upper, level: settings.level, method: 'wilson', resamples: 0, ...unitsOf(multi.length, groups), seed: settings.seed }
  return { interval, consistent: count }
}

/** Exact McNemar test of the model against a baseline on the same decisions. */
function versusBaseline(hits: readonly boolean[], baselineHits: readonly boolean[]): McNemarResult {
  let modelOnly = 0
  let baselineOnly = 0
  hits.forEach((hit, i) => {
    if (hit && !baselineHits[i]) modelOnly++
    if (!hit && baselineHits[i]) baselineOnly++
  })
  return mcnemarExact(modelOnly, baselineOnly)
}

/**
 * Better than chance when the exact test under a uniform guesser rejects at one-sided
 * (1 − level)/2, the error rate of the interval's lower bound; better than the majority
 * baseline when the interval's lower bound clears it.
 */
function verdict(chanceP: number, interval: Interval, majorityValue: number | null, chanceWord: string, level: number): Verdict {
  const betterThanChance = chanceP < chanceAlpha(level)
  const betterThanMajority = majorityValue === null ? null : interval.lower > majorityValue
  return {
    betterThanChance,
    betterThanMajority,
    chanceP,
    message: !betterThanChance ? `not better than ${chanceWord}` : betterThanMajority === false ? 'not better than the majority baseline' : null,
  }
}

/**
 * Whether balanced accuracy on these rows can be told from guessing at all: every decision
 * right must clear the same two checks as {@link verdict}. Two decisions (p = 1/8 at best) or a
 * majority baseline at 100% cannot, whatever the scorer does.
 */
function balancedAccuracyDecidable(
  byClass: readonly (readonly [number, number])[],
  classChances: readonly (readonly number[])[],
  majority: number,
  level: number,
): boolean {
  const perfect = byClass.map(([, total]) => [total, total] as const)
  const p = balancedAccuracyChanceTest(classChances.map((chances) => ({ hits: chances.length, chances }))).p
  // Every hit the same: no spread between groups, so design effect 1 (designEffect of constant scores).
  return p < chanceAlpha(level) && balancedAccuracyBounds(perfect, level, 1).lower > majority
}

/** `[hits, total]` per class index, for the exact balanced-accuracy bounds. */
function classCounts(classOf: Int32Array, hit: Uint8Array, classes: number): [number, number][] {
  const counts = Array.from({ length: classes }, (): [number, number] => [0, 0])
  for (let i = 0; i < classOf.length; i++) {
    const entry = counts[classOf[i]!]!
    entry[1]++
    entry[0] += hit[i]!
  }
  return counts
}
