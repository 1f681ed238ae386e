/**
 * The looks of a run that may stop early: per threshold, anytime-valid bounds from the
 * decisions scored so far and the verdict they allow. Rates use betting confidence
 * sequences (Waudby-Smith & Ramdas 2024, JRSS-B; ../../math/betting.ts) with one-sided ends:
 * a `{ min }` or `{ max }` threshold's pass is read from one end and its fail from the other,
 * and only one of them can be wrong for a given true rate, so each end at α keeps every
 * verdict's error ≤ α (a `{ min, max }` band takes α/2 per end). When balanced accuracy (or
 * the worst criterion's) is a threshold, the decisions come in a stratified order (./strata.ts)
 * and every rate is bounded from its complete rounds, with a stake per cell; the worst
 * criterion's takes each criterion at α / criteria (a union bound). Given a `BetaPrior`, every
 * bound is the beta mixture of earlier versions instead (two-sided at α), and given another
 * `BetMixture`, the bets are that mixture's: both for comparison.
 */
import { thresholdVerdict, toBounds, type Threshold } from '../verdict.ts'
import { bernoulliConfidenceSequence, meanRateConfidenceSequence, type BetaPrior, type RateBounds } from '../../math/confidence-sequence.ts'
import { bettingRateBounds, EFFECT_BETS, stratifiedRateBounds, type BetMixture, type StratumCount } from '../../math/betting.ts'
import { Strata } from './strata.ts'
import type { SequentialVerdict } from '../../result/stop-early.ts'

export type { SequentialVerdict }

/**
 * The failure-rate rule's key at the looks: the share of labelled decisions that failed to score,
 * bounded like a rate (`{ max: maxFailureRate }`), so a stopped run never passes a rate the full run fails.
 */
export const FAILURE_RATE_KEY = 'failureRate'

/** The threshold keys a run can decide before the last decision; any other key waits for the full set. */
export const SEQUENTIAL_KEYS: readonly string[] = ['balancedAccuracy', 'orderConsistency', 'accuracy', 'perCriterion', 'circularAccuracy']


/** One scored decision as the looks read it: the evaluator's own hit, consistency and circular hit. */
export interface SequentialObservation {
  readonly criterion: string
  /** Gold option id. */
  readonly gold: string
  /** The evaluator's final hit (a tie is not one). */
  readonly hit: boolean
  /** Same pick under every ordering; `null` with one ordering (nothing could move it). */
  readonly consistent: boolean | null
  /** Right under every ordering; `null` with one ordering. */
  readonly circular: boolean | null
}

/** A running count of a Bernoulli rate. */
class Tally {
  successes = 0
  n = 0
  add(success: boolean): void {
    this.n++
    if (success) this.successes++
  }
  bounds(ends: Ends, prior: BetaPrior | undefined, bets: BetMixture): RateBounds {
    return prior ? bernoulliConfidenceSequence(this.successes, this.n, ends.alpha, prior) : bettingRateBounds(this.successes, this.n, ends.lower, ends.upper, bets)
  }
}

/** The level of each one-sided end for a threshold (and the overall α, for the beta mixture). */
interface Ends {
  readonly alpha: number
  readonly lower: number
  readonly upper: number
}

/** Each end at α for a one-sided threshold, α/2 for a `{ min, max }` band (either end could then be the wrong one). */
export function endLevels(threshold: Threshold, alpha: number): Ends {
  const { min, max } = toBounds(threshold)
  const each = min !== undefined && max !== undefined ? alpha / 2 : alpha
  return { alpha, lower: each, upper: each }
}

/**
 * The verdict a pair of anytime-valid bounds allows: `pass` when every value inside them
 * meets the threshold, `fail` when none does, else `undecided`. Each end goes through
 * the one threshold rule ({@link thresholdVerdict}, with its `BOUND_EPSILON`); a `{ max }`
 * bound is the mirror image of a `{ min }` one.
 */
export function boundsVerdict(threshold: Threshold, bounds: RateBounds): SequentialVerdict {
  const { min, max } = toBounds(threshold)
  const meets = (bound: { min?: number; max?: number }, value: number) => thresholdVerdict('bound', bound, value).pass
  if (min !== undefined && !meets({ min }, bounds.upper)) return 'fail'
  if (max !== undefined && !meets({ max }, bounds.lower)) return 'fail'
  return meets(toBounds(threshold), bounds.lower) && meets(toBounds(threshold), bounds.upper) ? 'pass' : 'undecided'
}

/** What one look found. */
export interface Look {
  verdicts: Record<string, SequentialVerdict>
  bounds: Record<string, RateBounds>
}

/** The keys bounded jointly over classes: declaring one makes the order stratified (without a `prior`). */
const STRATIFIED_KEYS = ['balancedAccuracy', 'perCriterion']

/** Per cell of a stratified order, the counts of its complete rounds for each rate. */
class CellTallies {
  readonly hit: Tally[]
  readonly consistent: Tally[]
  readonly circular: Tally[]
  readonly failed: Tally[]
  constructor(cells: number) {
    this.failed = Array.from({ length: cells }, () => new Tally())
    this.hit = Array.from({ length: cells }, () => new Tally())
    this.consistent = Array.from({ length: cells }, () => new Tally())
    this.circular = Array.from({ length: cells }, () => new Tally())
  }
}

/** The running state of the looks over one run. */
export class SequentialMonitor {
  private readonly accuracy = new Tally()
  private readonly consistency = new Tally()
  private readonly circular = new Tally()
  private readonly failed = new Tally()
  /** Per gold id (balanced accuracy), over the whole labelled set. */
  private readonly byClass = new Map<string, Tally>()
  /** Per criterion, per gold id (per-criterion balanced accuracy). */
  private readonly byCell = new Map<string, Map<string, Tally>>()
  /** The cells of the stratified order and their counts, when the run takes one. */
  readonly strata: Strata | undefined
  private readonly cellTallies: CellTallies | undefined
  /** Each key's bounds so far, intersected over the looks; a decided key keeps its verdict. */
  private readonly held = new Map<string, { bounds: RateBounds; verdict: SequentialVerdict }>()

  /**
   * `labelled` are every labelled decision of the run (scored or not): the classes and
   * cells of the bounds are fixed before the first look.
   */
  constructor(
    private readonly thresholds: Readonly<Record<string, Threshold>>,
    private readonly alpha: number,
    labelled: readonly { criterion: string; gold: string }[],
    private readonly prior?: BetaPrior,
    private readonly bets: BetMixture = EFFECT_BETS,
  ) {
    for (const { criterion, gold } of labelled) {
      if (!this.byClass.has(gold)) this.byClass.set(gold, new Tally())
      const row = this.byCell.get(criterion) ?? this.byCell.set(criterion, new Map()).get(criterion)!
      if (!row.has(gold)) row.set(gold, new Tally())
    }
    const stratified = !prior && labelled.length > 0 && STRATIFIED_KEYS.some((key) => thresholds[key] !== undefined)
    this.strata = stratified ? new Strata(labelled) : undefined
    this.cellTallies = this.strata ? new CellTallies(this.strata.cells.length) : undefined
  }

  /** Count one scored decision (an order that is not stratified). */
  observe(o: SequentialObservation): void {
    if (this.strata) throw new Error('SequentialMonitor: a stratified order is counted by whole rounds (observeRound)')
    this.accuracy.add(o.hit)
    if (o.consistent !== null) this.consistency.add(o.consistent)
    if (o.circular !== null) this.circular.add(o.circular)
    this.byClass.get(o.gold)?.add(o.hit)
    this.byCell.get(o.criterion)?.get(o.gold)?.add(o.hit)
  }

  /**
   * Count whether decisions sent to the scorer failed: in the order sent, or (stratified) one
   * complete round, one draw of every cell, failed ones included.
   */
  observeFailures(round: readonly { readonly criterion: string; readonly gold: string; readonly failed: boolean }[]): void {
    const { strata, cellTallies: tallies } = this
    if (!strata || !tallies) return round.forEach((o) => this.failed.add(o.failed))
    for (const o of round) tallies.failed[strata.cellOf(o.criterion, o.gold)!]!.add(o.failed)
  }

  /**
   * Count one complete round of a stratified order: one scored decision of every cell. A rate
   * that some decision of the round lacks (one ordering: nothing could move it) skips the round.
   */
  observeRound(round: readonly SequentialObservation[]): void {
    const { strata, cellTallies: tallies } = this
    if (!strata || !tallies) throw new Error('SequentialMonitor: observeRound needs a stratified order')
    const cells = round.map((o) => strata.cellOf(o.criterion, o.gold))
    if (round.length !== strata.cells.length || new Set(cells).size !== round.length || cells.includes(undefined))
      throw new Error(`SequentialMonitor: a round holds one decision of each of the ${strata.cells.length} cells`)
    round.forEach((o, i) => tallies.hit[cells[i]!]!.add(o.hit))
    if (round.every((o) => o.consistent !== null)) round.forEach((o, i) => tallies.consistent[cells[i]!]!.add(o.consistent!))
    if (round.every((o) => o.circular !== null)) round.forEach((o, i) => tallies.circular[cells[i]!]!.add(o.circular!))
  }

  /** Bounds and verdicts of every threshold now; a key that is not a per-decision rate stays `undecided`, without bounds. */
  look(): Look {
    const verdicts: Record<string, SequentialVerdict> = {}
    const bounds: Record<string, RateBounds> = {}
    for (const [key, threshold] of Object.entries(this.thresholds)) {
      const before = this.held.get(key)
      if (before && before.verdict !== 'undecided') {
        ;[verdicts[key], bounds[key]] = [before.verdict, before.bounds]
        continue
      }
      const now = this.boundsOf(key)
      if (now === undefined) {
        verdicts[key] = 'undecided'
        continue
      }
      // Every look's bounds hold at once, so their running intersection does too (and a verdict, once reached, stays).
      const b = before ? { lower: Math.max(before.bounds.lower, now.lower), upper: Math.min(before.bounds.upper, now.upper) } : now
      bounds[key] = b
      verdicts[key] = boundsVerdict(threshold, b)
      this.held.set(key, { bounds: b, verdict: verdicts[key] })
    }
    return { verdicts, bounds }
  }

  /** The anytime-valid bounds of a metric, or undefined for a key that is not a per-decision rate. */
  boundsOf(key: string): RateBounds | undefined {
    const { alpha, prior, bets } = this
    const ends = endLevels(this.thresholds[key] ?? 0, alpha)
    if (this.strata) return this.stratifiedBounds(key, ends)
    switch (key) {
      case 'accuracy':
        return this.accuracy.bounds(ends, prior, bets)
      case 'orderConsistency':
        return this.consistency.bounds(ends, prior, bets)
      case 'circularAccuracy':
        return this.circular.bounds(ends, prior, bets)
      case FAILURE_RATE_KEY:
        return this.failed.bounds(ends, prior, bets)
      case 'balancedAccuracy':
        return meanRateConfidenceSequence([...this.byClass.values()], alpha, prior)
      case 'perCriterion':
        // The worst criterion: the minimum of per-criterion bounds, each joint over its classes at α / criteria.
        return worstOf([...this.byCell.values()].map((row) => meanRateConfidenceSequence([...row.values()], alpha / this.byCell.size, prior)))
      default:
        return undefined
    }
  }

  /** The bounds of a rate from the complete rounds of the stratified order, with each cell's stake for that rate. */
  private stratifiedBounds(key: string, ends: Ends): RateBounds | undefined {
    const strata = this.strata!
    const tallies = this.cellTallies!
    const bets = this.bets
    const counts = (of: Tally[], stakes: number[]): StratumCount[] => of.map((t, k) => ({ successes: t.successes, n: t.n, stake: stakes[k]! }))
    switch (key) {
      case 'accuracy':
        return stratifiedRateBounds(counts(tallies.hit, strata.pooledStakes()), ends.lower, ends.upper, bets)
      case 'orderConsistency':
        return stratifiedRateBounds(counts(tallies.consistent, strata.pooledStakes()), ends.lower, ends.upper, bets)
      case 'circularAccuracy':
        return stratifiedRateBounds(counts(tallies.circular, strata.pooledStakes()), ends.lower, ends.upper, bets)
      case FAILURE_RATE_KEY:
        return stratifiedRateBounds(counts(tallies.failed, strata.pooledStakes()), ends.lower, ends.upper, bets)
      case 'balancedAccuracy':
        return stratifiedRateBounds(counts(tallies.hit, strata.balancedStakes()), ends.lower, ends.upper, bets)
      case 'perCriterion': {
        const share = this.byCell.size
        return worstOf([...this.byCell.keys()].map((c) => stratifiedRateBounds(counts(tallies.hit, strata.criterionStakes(c)), ends.lower / share, ends.upper / share, bets)))
      }
      default:
        return undefined
    }
  }
}

/** The worst criterion's bounds: the least of each end (both ends of the minimum of rates). */
function worstOf(bounds: readonly RateBounds[]): RateBounds {
  if (bounds.length === 0) return { lower: 0, upper: 1 }
  return bounds.reduce((worst, b) => ({ lower: Math.min(worst.lower, b.lower), upper: Math.min(worst.upper, b.upper) }))
}

/** Whether a look ends the run: every threshold (and every other check the looks decide, `others`) decided, or any failed. */
export function lookStops(look: Look, others: readonly SequentialVerdict[] = []): boolean {
  const verdicts = [...Object.values(look.verdicts), ...others]
  // No check: nothing to decide, so nothing to stop for.
  return verdicts.length > 0 && (verdicts.some((v) => v === 'fail') || verdicts.every((v) => v !== 'undecided'))
}
