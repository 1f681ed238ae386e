/**
 * The looks of a run that may stop early: per threshold, anytime-valid bounds from the
 * decisions scored so far and the verdict they allow. Balanced accuracy is bounded jointly
 * over its classes; the worst criterion's takes each criterion at α / criteria (a union bound).
 */
import { thresholdVerdict, toBounds, type Threshold } from '../verdict.ts'
import { bernoulliConfidenceSequence, meanRateConfidenceSequence, type BetaPrior, type RateBounds } from '../../math/confidence-sequence.ts'
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
  bounds(alpha: number, prior: BetaPrior | undefined): RateBounds {
    return bernoulliConfidenceSequence(this.successes, this.n, alpha, prior)
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
    for (const { criterion, gold } of labelled) {
      if (!this.byClass.has(gold)) this.byClass.set(gold, new Tally())
      const row = this.byCell.get(criterion) ?? this.byCell.set(criterion, new Map()).get(criterion)!
      if (!row.has(gold)) row.set(gold, new Tally())
    }
  }

  /** Count one scored decision. */
  observe(o: SequentialObservation): void {
    this.accuracy.add(o.hit)
    if (o.consistent !== null) this.consistency.add(o.consistent)
    if (o.circular !== null) this.circular.add(o.circular)
    this.byClass.get(o.gold)?.add(o.hit)
    this.byCell.get(o.criterion)?.get(o.gold)?.add(o.hit)
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
    const { alpha, prior } = this
    switch (key) {
      case 'accuracy':
        return this.accuracy.bounds(alpha, prior)
      case 'orderConsistency':
        return this.consistency.bounds(alpha, prior)
      case 'circularAccuracy':
        return this.circular.bounds(alpha, prior)
      case 'balancedAccuracy':
        return meanRateConfidenceSequence([...this.byClass.values()], alpha, prior)
      case 'perCriterion': {
        // The worst criterion: the minimum of per-criterion bounds, each joint over its classes at α / criteria.
        let lower = Infinity
        let upper = Infinity
        for (const row of this.byCell.values()) {
          const b = meanRateConfidenceSequence([...row.values()], alpha / this.byCell.size, prior)
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

/** Whether a look ends the run: every threshold decided, or any failed. */
export function lookStops(look: Look): boolean {
  const verdicts = Object.values(look.verdicts)
  // No threshold: nothing to decide, so nothing to stop for.
  return verdicts.length > 0 && (verdicts.some((v) => v === 'fail') || verdicts.every((v) => v !== 'undecided'))
}
