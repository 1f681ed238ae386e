/**
 * The result matchers, runner-neutral: balanced accuracy, order consistency, accuracy above
 * chance and per-criterion balanced accuracy, as `expect.extend` takes them in Vitest and in
 * Jest (both call a matcher with `this.isNot`). Every failure message prints the measured
 * value, the bound and the letters picked (docs/vitest.md#matchers): a number without the
 * letters behind it is how a position prior passes review. The letter-distribution snapshot
 * is each runner's own (matchers.ts here, the Jest face's beside it).
 */
import type { EvalResult, EvalResultJson } from '../../core/index.ts'
import { escapeControl } from '../../core/support/escape.ts'
import { aboveChanceP, chanceAlpha } from '../../core/statistics/above-chance.ts'
import { formatBound, formatLetters, formatValue, meets, worstCriterion } from './format.ts'
import type { LetterDistribution } from './snapshot.ts'
import type { z } from 'zod'
import type { SameKeys } from '../../core/support/options.ts'
import { AboveChanceOptionsSchema, AtLeastSchema, LetterDistributionOptionsSchema, refuseBadMatcherOptions } from './options-schema.ts'

/** A lower bound, as in `toHaveBalancedAccuracy({ atLeast: 0.7 })`. */
export interface AtLeast {
  /** The smallest acceptable value, in [0, 1]. */
  atLeast: number
}

/** Options of `toHaveAccuracyAboveChance`. */
export interface AboveChanceOptions {
  /** How far above `manifest.chance` accuracy must be, in accuracy points. Default 0 (strictly above). */
  margin?: number
  /**
   * The level at which an exact one-sided test of "no better than a uniform guesser"
   * (Poisson-binomial over each decision's 1/options) must reject. Default: the report's
   * verdict, (1 − level)/2 of the result's intervals (0.025 at 95%).
   */
  alpha?: number
}

/** Options of `toMatchLetterDistribution`. */
export interface LetterDistributionOptions {
  /** Largest accepted difference per letter, as a share of picks. Default 0.05. */
  tolerance?: number
}

true satisfies SameKeys<z.input<typeof AtLeastSchema>, AtLeast>
true satisfies SameKeys<z.input<typeof AboveChanceOptionsSchema>, AboveChanceOptions>
true satisfies SameKeys<z.input<typeof LetterDistributionOptionsSchema>, LetterDistributionOptions>

/** What the result matchers accept: an {@link EvalResult} or its JSON summary (e.g. from task meta). */
export type ResultLike = EvalResult | EvalResultJson

/** The sceptic matchers, as added to `expect` (typed on `expect(x)` through `Chai.Assertion`, see below). */
export interface ScepticMatchers<R = unknown> {
  /** Balanced accuracy (mean recall over gold answers) is at least `atLeast`. */
  toHaveBalancedAccuracy(options: AtLeast): R
  /** Order consistency (same answer under every ordering) is at least `atLeast`; fails when it is n/a. */
  toHaveOrderConsistency(options: AtLeast): R
  /** Accuracy is above `manifest.chance` (by `margin`, and significantly when `alpha` is given). */
  toHaveAccuracyAboveChance(options?: AboveChanceOptions): R
  /** Every criterion's balanced accuracy is at least `atLeast`; a failure names the worst criterion. */
  toHavePerCriterionBalancedAccuracy(options: AtLeast): R
  /**
   * The letter distribution matches the stored snapshot within `tolerance` per
   * letter. Accepts `result.letterDistribution` or a whole result. Stored in the
   * test file's `.snap` file; never written under CI, not even with `vitest -u`; `vitest -u` rewrites it locally.
   */
  toMatchLetterDistribution(options?: LetterDistributionOptions): R
}

/** What a matcher reads of the runner's matcher context (Vitest's and Jest's both have it). */
export interface MatcherContext {
  readonly isNot: boolean
}

/** A matcher's outcome, as both runners take it. */
export interface MatcherOutcome {
  pass: boolean
  message: () => string
}

type Matcher = (this: MatcherContext, received: unknown, ...args: any[]) => MatcherOutcome

/** Throws a TypeError when `received` is not a result: a misuse, not a failed expectation. */
export function asResult(received: unknown, matcher: string): ResultLike {
  if (
    received === null ||
    typeof received !== 'object' ||
    typeof (received as ResultLike).balancedAccuracy !== 'number' ||
    typeof (received as ResultLike).manifest !== 'object'
  )
    throw new TypeError(
      `${matcher}() expects an EvalResult (the result describeDecisions passes to its callback, or evaluateWithScorer's), got ${describeValue(received)}`,
    )
  return received as ResultLike
}

function checkBound(options: unknown, matcher: string): number {
  const bound = (options as Partial<AtLeast> | undefined)?.atLeast
  if (typeof bound !== 'number' || !Number.isFinite(bound))
    throw new TypeError(`${matcher}({ atLeast }) needs a number, e.g. ${matcher}({ atLeast: 0.7 })`)
  return bound
}

/**
 * Fail closed on a value that was not measured: neither the matcher nor its `.not` may
 * pass on it (`.not.toHaveOrderConsistency` must not pass because nothing was measured),
 * so it throws whatever the polarity.
 */
function requireMeasured(value: number | null | undefined, message: () => string): asserts value is number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new Error(message())
}

/** The evidence clause every message ends with. */
function evidence(result: ResultLike): string {
  return `n = ${result.n}, chance ${formatValue(result.manifest.chance)}, debias ${result.manifest.debias}; letters picked ${formatLetters(result.letterDistribution)}`
}

function boundMessage(name: string, value: number | null, bound: number, isNot: boolean, result: ResultLike, extra = '') {
  return () =>
    isNot
      ? `expected ${name} below ${formatBound(bound)}, measured ${formatValue(value)}${extra} (${evidence(result)})`
      : `expected ${name} ≥ ${formatBound(bound)}, measured ${formatValue(value)}${extra} (${evidence(result)})`
}

/** `expect(result).toHaveBalancedAccuracy({ atLeast })`. */
export const toHaveBalancedAccuracy: Matcher = function (received, options: AtLeast) {
  refuseBadMatcherOptions(AtLeastSchema, options, 'toHaveBalancedAccuracy')
  const result = asResult(received, 'toHaveBalancedAccuracy')
  const bound = checkBound(options, 'toHaveBalancedAccuracy')
  requireMeasured(result.balancedAccuracy, boundMessage('balanced accuracy', null, bound, false, result, ': not measured'))
  return {
    pass: meets(result.balancedAccuracy, bound),
    message: boundMessage('balanced accuracy', result.balancedAccuracy, bound, this.isNot, result),
  }
}

/** `expect(result).toHaveOrderConsistency({ atLeast })`. */
export const toHaveOrderConsistency: Matcher = function (received, options: AtLeast) {
  refuseBadMatcherOptions(AtLeastSchema, options, 'toHaveOrderConsistency')
  const result = asResult(received, 'toHaveOrderConsistency')
  const bound = checkBound(options, 'toHaveOrderConsistency')
  const value = result.orderConsistency
  const extra =
    value === null
      ? ': only one ordering was scored (debias "none"), so nothing could expose a position prior; score with debias "cyclic"'
      : `: ${Math.round(value * result.n)} of ${result.n} decisions gave the same answer under every ordering`
  requireMeasured(value, boundMessage('order consistency', value, bound, false, result, extra))
  return {
    pass: meets(value, bound),
    message: boundMessage('order consistency', value, bound, this.isNot, result, extra),
  }
}

/** `expect(result).toHaveAccuracyAboveChance({ margin, alpha })`. */
export const toHaveAccuracyAboveChance: Matcher = function (received, options: AboveChanceOptions = {}) {
  // A bad margin or alpha would silently weaken the check: bounds from the schema.
  refuseBadMatcherOptions(AboveChanceOptionsSchema, options, 'toHaveAccuracyAboveChance')
  const result = asResult(received, 'toHaveAccuracyAboveChance')
  const margin = options.margin ?? 0
  const chance = result.manifest.chance
  const bound = chance + margin
  // Always the exact test, by default at the report's verdict's level: 33% against 29% chance on a few decisions is not "above chance".
  const alpha = options.alpha ?? chanceAlpha(result.statistics?.settings.level)
  const records = (result as Partial<EvalResult>).records
  const p = records ? aboveChanceP(records) : result.statistics?.verdicts.accuracy.chanceP
  if (p === undefined)
    throw new TypeError('toHaveAccuracyAboveChance() needs the records of an EvalResult, or a JSON summary with its statistics (chanceP)')
  const pass = (margin > 0 ? meets(result.accuracy, bound) : result.accuracy > chance + 1e-9) && p < alpha
  const test = `, one-sided exact p = ${p.toPrecision(3)} vs alpha ${Number(alpha.toPrecision(6))}${options.alpha === undefined ? " (the report's verdict)" : ''}`
  const what = margin > 0 ? `accuracy ≥ chance + ${formatBound(margin)} = ${formatValue(bound)}` : `accuracy above chance ${formatValue(chance)}`
  return {
    pass,
    message: () =>
      `expected ${this.isNot ? 'not ' : ''}${what}, measured ${formatValue(result.accuracy)}${test} (${evidence(result)})`,
  }
}

/** `expect(result).toHavePerCriterionBalancedAccuracy({ atLeast })`: names the worst criterion. */
export const toHavePerCriterionBalancedAccuracy: Matcher = function (received, options: AtLeast) {
  refuseBadMatcherOptions(AtLeastSchema, options, 'toHavePerCriterionBalancedAccuracy')
  const result = asResult(received, 'toHavePerCriterionBalancedAccuracy')
  const bound = checkBound(options, 'toHavePerCriterionBalancedAccuracy')
  const worst = worstCriterion(result.perCriterion)
  const failing = Object.keys(result.perCriterion)
    .sort()
    .filter((key) => !meets(result.perCriterion[key], bound))
  const all = Object.keys(result.perCriterion)
    .sort()
    .map((key) => `${escapeControl(key)} ${formatValue(result.perCriterion[key])}`)
    .join(', ')
  if (worst === undefined)
    throw new Error(`expected per-criterion balanced accuracy ≥ ${formatBound(bound)}, but the result has no criterion (${evidence(result)})`)
  return {
    pass: failing.length === 0,
    message: () =>
      this.isNot
          ? `expected some criterion's balanced accuracy below ${formatBound(bound)}, but the worst, "${escapeControl(worst[0])}", measured ${formatValue(worst[1])} (${all}; ${evidence(result)})`
          : `expected every criterion's balanced accuracy ≥ ${formatBound(bound)}; worst is "${escapeControl(worst[0])}" at ${formatValue(worst[1])}` +
            `${failing.length > 1 ? ` (${failing.length} criteria below: ${failing.map(escapeControl).join(', ')})` : ''} (${all}; ${evidence(result)})`,
  }
}

/** The letter distribution in `received` (a distribution or a whole result); a TypeError otherwise. */
export function asDistribution(received: unknown): LetterDistribution {
  const candidate =
    received !== null && typeof received === 'object' && 'letterDistribution' in received
      ? (received as ResultLike).letterDistribution
      : received
  if (
    candidate === null ||
    typeof candidate !== 'object' ||
    Array.isArray(candidate) ||
    !Object.values(candidate).every((v) => typeof v === 'number' && Number.isFinite(v))
  )
    throw new TypeError(
      `toMatchLetterDistribution() expects result.letterDistribution (letter → share) or a result, got ${describeValue(received)}`,
    )
  return candidate as LetterDistribution
}

function describeValue(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'object') return `an object with keys ${Object.keys(value).slice(0, 5).join(', ') || '(none)'}`
  return typeof value
}
