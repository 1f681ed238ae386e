/**
 * The looks of a run that may stop early: per threshold, anytime-valid bounds from the
 * decisions scored so far and the verdict they allow. Rates use betting confidence
 * sequences (Waudby-Smith & Ramdas 2024, JRSS-B; ../../math/betting.ts) with one-sided ends:
 * a `{ min }` or `{ max }` threshold's pass is read from one end and its fail from the other,
 * and only one of them can be wrong for a given true rate, so each end at α keeps every
 * verdict's error ≤ α (a `{ min, max }` band takes α/2 per end). Balanced accuracy is bounded
 * jointly over its classes with bets pooled across them; the worst criterion's takes each
 * criterion at α / criteria (a union bound). Given a `BetaPrior`, every bound is the beta
 * mixture of earlier versions instead (two-sided at α), for comparison.
 */
import { thresholdVerdict, toBounds, type Threshold } from '../verdict.ts'
import { bernoulliConfidenceSequence, meanRateConfidenceSequence, type BetaPrior, type RateBounds } from '../../math/confidence-sequence.ts'
import { bettingRateBounds, PooledClassBetting } from '../../math/betting.ts'
import type { SequentialVerdict } from '../../result/stop-early.ts'

export type { SequentialVerdict }

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
  bounds(ends: Ends, prior: BetaPrior | undefined): RateBounds {
    return prior ? bernoulliConfidenceSequence(this.successes, this.n, ends.alpha, prior) : bettingRateBounds(this.successes, this.n, ends.lower, ends.upper)
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

/** Class-rate betting for one set of classes (a criterion's, or the whole run's), with the classes' gold ids. */
class ClassBets {
  readonly bets: PooledClassBetting
  readonly index = new Map<string, number>()
  readonly counts: Tally[] = []
  constructor(classes: Map<string, number>, reference: number) {
    const total = [...classes.values()].reduce((a, b) => a + b, 0)
    for (const gold of classes.keys()) {
      this.index.set(gold, this.index.size)
      this.counts.push(new Tally())
    }
    this.bets = new PooledClassBetting([...classes.values()].map((n) => n / total), reference)
  }
  observe(gold: string, hit: boolean): void {
    const k = this.index.get(gold)
    if (k === undefined) return
    this.bets.observe(k, hit)
    this.counts[k]!.add(hit)
  }
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

/** The running state of the looks over one run. */
export class SequentialMonitor {
  private readonly accuracy = new Tally()
  private readonly consistency = new Tally()
  private readonly circular = new Tally()
  /** Per gold id (balanced accuracy), over the whole labelled set. */
  private readonly byClass = new Map<string, Tally>()
  /** Per criterion, per gold id (per-criterion balanced accuracy). */
  private readonly byCell = new Map<string, Map<string, Tally>>()
  /** Pooled class betting for balanced accuracy, and per criterion for the worst criterion (without a `prior`). */
  private readonly balanced: ClassBets | undefined
  private readonly perCriterion = new Map<string, ClassBets>()
  /** Each key's bounds so far, intersected over the looks; a decided key keeps its verdict. */
  private readonly held = new Map<string, { bounds: RateBounds; verdict: SequentialVerdict }>()

  /**
   * `labelled` are every labelled decision of the run (scored or not): the classes and
   * cells of the union bounds are fixed before the first look.
   */
  constructor(
    private readonly thresholds: Readonly<Record<string, Threshold>>,
    private readonly alpha: number,
    labelled: readonly { criterion: string; gold: string }[],
    private readonly prior?: BetaPrior,
  ) {
    const classSizes = new Map<string, number>()
    const cellSizes = new Map<string, Map<string, number>>()
    for (const { criterion, gold } of labelled) {
      if (!this.byClass.has(gold)) this.byClass.set(gold, new Tally())
      const row = this.byCell.get(criterion) ?? this.byCell.set(criterion, new Map()).get(criterion)!
      if (!row.has(gold)) row.set(gold, new Tally())
      classSizes.set(gold, (classSizes.get(gold) ?? 0) + 1)
      const sizes = cellSizes.get(criterion) ?? cellSizes.set(criterion, new Map()).get(criterion)!
      sizes.set(gold, (sizes.get(gold) ?? 0) + 1)
    }
    // The bets aim at the threshold (only the power depends on where they aim).
    const reference = (key: string) => {
      const threshold = thresholds[key]
      if (threshold === undefined) return undefined
      const { min, max } = toBounds(threshold)
      return min ?? max
    }
    const balanced = reference('balancedAccuracy')
    this.balanced = !prior && balanced !== undefined && classSizes.size > 0 ? new ClassBets(classSizes, balanced) : undefined
    const worst = reference('perCriterion')
    if (!prior && worst !== undefined) for (const [criterion, sizes] of cellSizes) this.perCriterion.set(criterion, new ClassBets(sizes, worst))
  }

  /** Fix the pooled bets for the decisions to come from those scored so far (a look does it too). */
  bet(): void {
    this.balanced?.bets.bet()
    for (const cell of this.perCriterion.values()) cell.bets.bet()
  }

  /** Count one scored decision. */
  observe(o: SequentialObservation): void {
    this.accuracy.add(o.hit)
    if (o.consistent !== null) this.consistency.add(o.consistent)
    if (o.circular !== null) this.circular.add(o.circular)
    this.byClass.get(o.gold)?.add(o.hit)
    this.byCell.get(o.criterion)?.get(o.gold)?.add(o.hit)
    this.balanced?.observe(o.gold, o.hit)
    this.perCriterion.get(o.criterion)?.observe(o.gold, o.hit)
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
    // The next outcomes are bet on from what is known now: predictable, so the bounds stay valid.
    this.bet()
    return { verdicts, bounds }
  }

  /** The anytime-valid bounds of a metric, or undefined for a key that is not a per-decision rate. */
  boundsOf(key: string): RateBounds | undefined {
    const { alpha, prior } = this
    const threshold = this.thresholds[key]
    const ends = endLevels(threshold ?? 0, alpha)
    switch (key) {
      case 'accuracy':
        return this.accuracy.bounds(ends, prior)
      case 'orderConsistency':
        return this.consistency.bounds(ends, prior)
      case 'circularAccuracy':
        return this.circular.bounds(ends, prior)
      case 'balancedAccuracy':
        return this.balanced ? this.balanced.bets.bounds(ends.lower, ends.upper) : meanRateConfidenceSequence([...this.byClass.values()], alpha, prior)
      case 'perCriterion': {
        // The worst criterion: the minimum of per-criterion bounds, each joint over its classes at α / criteria.
        let lower = Infinity
        let upper = Infinity
        const share = this.byCell.size
        for (const [criterion, row] of this.byCell) {
          const cell = this.perCriterion.get(criterion)
          const b = cell ? cell.bets.bounds(ends.lower / share, ends.upper / share) : meanRateConfidenceSequence([...row.values()], alpha / share, prior)
          lower = Math.min(lower, b.lower)
          upper = Math.min(upper, b.upper)
        }
        return Number.isFinite(lower) ? { lower, upper } : { lower: 0, upper: 1 }
      }
      default:
        return undefined
    }
  }
}

/** Whether a look ends the run: every threshold (and every other check the looks decide, `others`) decided, or any failed. */
export function lookStops(look: Look, others: readonly SequentialVerdict[] = []): boolean {
  const verdicts = [...Object.values(look.verdicts), ...others]
  // No check: nothing to decide, so nothing to stop for.
  return verdicts.length > 0 && (verdicts.some((v) => v === 'fail') || verdicts.every((v) => v !== 'undecided'))
}
