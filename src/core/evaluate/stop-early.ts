/**
 * The optional stage of a run that may stop early (docs/stopping-early.md): decisions in
 * a seeded random order (stratified by criterion and gold option when balanced accuracy is a
 * threshold), a look after every batch at anytime-valid bounds built from the evaluator's own
 * outcomes, and what the result then says (`stopEarly`, `notScored`).
 */
import { mulberry32, shuffleInPlace } from '../math/random.ts'
import { ConfigError } from '../support/errors.ts'
import { isConsistent } from '../metrics/headline.ts'
import type { EvalResult } from '../result/result.ts'
import { FAILURE_RATE_KEY, lookStops, SequentialMonitor, type Look, type SequentialObservation } from '../thresholds/sequential/monitor.ts'
import { stratifiedOrder, type StratifiedOrder } from '../thresholds/sequential/strata.ts'
import { resolveStopEarly, type StopEarlyOptions, type StopEarlySettings } from '../thresholds/sequential/options.ts'
import type { Threshold } from '../thresholds/verdict.ts'
import { pairedVerdict, pairFlags, PairedTally, type BaselineLooks, type PairFlags } from '../thresholds/sequential/paired.ts'
import type { SequentialVerdict } from '../result/stop-early.ts'
import type { Aggregate } from './aggregate.ts'
import type { Settings } from './options.ts'
import type { Job, Plan } from './plan.ts'
import { decisionOutcomes } from './records.ts'

/** The running state of a run that may stop early. */
export class EarlyStop {
  /** The plan with its rows in the seeded random order. */
  readonly plan: Plan
  readonly settings: StopEarlySettings
  /** Rows sent to the scorer so far (failed ones included). */
  readonly processed = new Set<number>()
  private readonly monitor: SequentialMonitor
  private last: Look | undefined
  private stoppedEarly = false
  /** The baseline gate's paired counts over the decisions scored, when the looks decide it too. */
  private readonly paired: PairedTally | undefined
  private baselineVerdict: SequentialVerdict = 'undecided'
  /** The stratified order's draws, each row's outcome once scored (a row drawn again is not scored again), and the next round to count. */
  private readonly order: StratifiedOrder | undefined
  private readonly outcomes = new Map<number, SequentialObservation | 'failed'>()
  private nextRound = 0
  /** In a stratified order: each row's cell, and the chance a draw of that cell is paired with the baseline (its size over the largest). */
  private readonly cellOfRow: readonly number[] = []
  private readonly pairChance: readonly number[] = []
  private readonly pairCoin: () => number
  /** Each scored row's baseline pair and flags now, for the draws that pair them. */
  private readonly pairs = new Map<number, [PairFlags, PairFlags]>()

  constructor(
    plan: Plan,
    private readonly evaluation: Settings,
    option: true | StopEarlyOptions,
    thresholds: Readonly<Record<string, Threshold>>,
    private readonly baseline?: BaselineLooks,
  ) {
    // pride estimates its prior from a sample of the whole set, held back before anything else is aggregated.
    if (evaluation.debias === 'pride') throw new ConfigError('stopEarly cannot be used with debias "pride" (its prior needs a sample of the whole set first); use "cyclic"')
    this.settings = resolveStopEarly(option, plan.rows.length)
    // A failure rate above 0 is decided at the looks like a threshold; at 0 a stop reads the failures seen (docs/stopping-early.md).
    const failureRate: Record<string, Threshold> = evaluation.maxFailureRate > 0 ? { [FAILURE_RATE_KEY]: { max: evaluation.maxFailureRate } } : {}
    this.monitor = new SequentialMonitor(
      { ...thresholds, ...failureRate },
      this.settings.alpha,
      plan.rows.map((row) => ({ criterion: row.criterion.key, gold: row.answer_id })),
    )
    const strata = this.monitor.strata
    if (strata) {
      this.cellOfRow = plan.rows.map((row) => strata.cellOf(row.criterion.key, row.answer_id)!)
      const largest = strata.cells.reduce((most, cell) => Math.max(most, cell.size), 0)
      this.pairChance = strata.cells.map((cell) => cell.size / largest)
    }
    this.order = strata ? stratifiedOrder(this.cellOfRow, strata.cells.length, evaluation.seed) : undefined
    this.pairCoin = mulberry32((evaluation.seed ^ 0xba5e) >>> 0)
    this.plan = { ...plan, rowOrder: this.order?.rowOrder ?? shuffled(plan.rowOrder, evaluation.seed) }
    this.paired = baseline ? new PairedTally() : undefined
  }

  /** Count a chunk that was just aggregated; true when the run should stop before the next one. */
  look(jobs: readonly Job[], aggregate: Aggregate): boolean {
    const fresh = new Set(jobs.map((job) => job.row))
    for (const r of fresh) this.processed.add(r)
    // The evaluator's own final outcomes (its hit, its tie rule) for the new rows.
    const outcomes = decisionOutcomes(this.plan, aggregate, this.evaluation, { withSamples: false, only: fresh })
    outcomes.scoredRows.forEach((r, i) => {
      const row = this.plan.rows[r]!
      const orderings = this.plan.orderings[r]!
      // Circular accuracy's rule: the gold option picked under every ordering (the evaluator's own per-ordering picks).
      const circular = orderings.length > 1 ? aggregate.picks[r]!.every((id) => id === outcomes.gold[i]) : null
      this.outcomes.set(r, { criterion: row.criterion.key, gold: row.answer_id, hit: outcomes.hits[i]!, consistent: orderings.length > 1 ? isConsistent(aggregate.picks[r]!) : null, circular })
    })
    for (const r of fresh) if (!this.outcomes.has(r)) this.outcomes.set(r, 'failed')
    if (this.baseline) {
      outcomes.records.forEach((record, i) => {
        const before = this.baseline!.pair(record)
        if (before) this.pairs.set(outcomes.scoredRows[i]!, [before, pairFlags(record)])
      })
    }
    this.count(fresh)
    // The baseline gate's verdict on the paired counts so far (the gate reads the same e-values at the end).
    if (this.baseline && this.paired) this.baselineVerdict = pairedVerdict(this.paired, this.baseline.alpha, this.baseline.detectableDrop).verdict
    // Before minDecisions no verdict is read (the counts above still grow).
    if (this.processed.size < this.settings.minDecisions) return false
    this.last = this.monitor.look()
    // Every declared check decided, or one failed: the baseline gate's verdict counts as one.
    this.stoppedEarly = lookStops(this.last, this.baseline ? [this.baselineVerdict] : []) && this.processed.size < this.plan.rows.length
    return this.stoppedEarly
  }

  /**
   * Hand the looks what they can count now: the fresh rows in order, or, in a stratified order,
   * every round whose draws are all scored (a round with a failed draw is left out whole).
   */
  private count(fresh: ReadonlySet<number>): void {
    const { order } = this
    if (!order) {
      for (const r of fresh) {
        const o = this.outcomes.get(r)
        if (o && o !== 'failed') this.monitor.observe(o)
        this.monitor.observeFailures([{ ...this.labelOf(r), failed: o === 'failed' }])
        this.pair(r)
      }
      return
    }
    for (; (this.nextRound + 1) * order.roundSize <= order.draws.length; this.nextRound++) {
      const draws = order.draws.subarray(this.nextRound * order.roundSize, (this.nextRound + 1) * order.roundSize)
      const round = Array.from(draws, (r) => this.outcomes.get(r))
      if (round.includes(undefined)) return
      if (!round.includes('failed')) this.monitor.observeRound(round as SequentialObservation[])
      this.monitor.observeFailures(Array.from(draws, (r, i) => ({ ...this.labelOf(r), failed: round[i] === 'failed' })))
      // The baseline gate is about the whole set: a draw is paired with chance ∝ its cell's size,
      // so each round's pairs weigh the cells as the set does (a coin that never reads an outcome).
      if (this.paired) for (const r of draws) if (this.pairCoin() < this.pairChance[this.cellOfRow[r]!]!) this.pair(r)
    }
  }

  /** A row's criterion and gold option, as the looks' cells take them. */
  private labelOf(r: number): { criterion: string; gold: string } {
    const row = this.plan.rows[r]!
    return { criterion: row.criterion.key, gold: row.answer_id }
  }

  /** Add a scored row's baseline pair (if it has one) to the paired counts. */
  private pair(r: number): void {
    const pair = this.pairs.get(r)
    if (pair && this.paired) this.paired.add(pair[0], pair[1])
  }

  /** The result as a run that may stop early reports it: requests actually made, `notScored`, `stopEarly`. */
  finish(result: EvalResult, requestsMade: number): EvalResult {
    const look = this.last ?? this.monitor.look()
    const total = this.plan.rows.length
    result.manifest.forwardPasses = requestsMade
    result.manifest.notScored = total - this.processed.size
    result.stopEarly = {
      alpha: this.settings.alpha,
      scored: this.processed.size,
      total,
      stopped: this.stoppedEarly,
      verdicts: look.verdicts,
      bounds: look.bounds,
      ...(this.baseline && this.paired ? { baseline: this.baselineVerdict, baselinePairs: { ...this.paired } } : {}),
    }
    return result
  }
}

/** A seeded Fisher–Yates shuffle (data sorted by category must not bias the running estimate). */
export function shuffled(order: readonly number[], seed: number): number[] {
  return shuffleInPlace([...order], mulberry32((seed ^ 0x5eed) >>> 0))
}
