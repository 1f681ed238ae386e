/**
 * Stage 3 of an evaluation, aggregation: fold scored chunks into per-option-id totals
 * (never per position: position is what we are trying to forget), the option and letter
 * picked under each ordering, failures and flags (docs/design.md#contracts, "Aggregation").
 */
import { LETTERS, type Criterion } from '../decisions/schema.ts'
import { ScorerError } from '../support/errors.ts'
import { LOG_FLOOR } from '../requests/orderings.ts'
import type { ScoreFailure } from '../scorer/contract.ts'
import { summariseFailures } from '../result/failure-summary.ts'
import { isNearTie, maximalSlots } from './argmax.ts'
import type { Settings } from './options.ts'
import type { Plan } from './plan.ts'
import { divideOut } from './priors.ts'
import type { ScoredChunk } from './score.ts'

/** The prior to divide out of a vector scored under `presented`, or undefined when there is none (yet). */
export type PriorLookup = (presented: Criterion) => number[] | undefined

/** Per-decision sums and picks of a run, filled chunk by chunk. Rows are indices into `plan.rows`. */
export class Aggregate {
  /** Each row's slice of {@link totals}: `offsets[r] .. offsets[r + 1]`. */
  readonly offsets: Int32Array
  /**
   * Per-option-id totals in each criterion's original option order, one flat array (one
   * allocation instead of one per row: at 10^5 rows the GC dominated). Under `average: 'log'`
   * sums of log p, else of p, each divided by the row's ordering count.
   */
  readonly totals: Float64Array
  /** The same per epoch (`offsets[r]·epochs + e·k`), only when there is more than one epoch to tell apart. */
  readonly epochTotals: Float64Array | undefined
  /** Option id picked under each ordering, per row; `null` where the ordering's pick is tied (no answer). */
  readonly picks: (string | null)[][]
  /** Letter picked under each ordering, per row; `null` where tied. */
  readonly pickedLetters: (string | null)[][]
  /** Picks per slot letter over the scored decisions (A first); after {@link finish}, a tied pick counts 1/t on each of its t slots. */
  readonly letterCounts: number[]
  /** The tied slots of each tied pick: row → (index into its picks → slots, ascending). Sparse: most rows have none. */
  readonly tiedPicks = new Map<number, Map<number, readonly number[]>>()
  /**
   * Stated picks per row, counted per (epoch, original option index) at `e·k + i`: the model's
   * own choice, which breaks a tie of the totals when it names one option most often.
   */
  readonly statedVotes = new Map<number, Float64Array>()
  /** Picked slot per (row, ordering, epoch), for the panel's repetition stability (−1: tied); only with several epochs. */
  readonly epochPicks: number[][][] | undefined
  /** Rows with a near-tie pick under some ordering (top two within NEAR_TIE_MARGIN): rounding on another CPU kind could swap it. */
  readonly nearTies = new Set<number>()
  /** Each failed row's first failure. */
  readonly failures = new Map<number, ScoreFailure>()
  /** Flags raised on each row's requests. */
  readonly flags = new Map<number, Set<string>>()
  /** What each thrown call threw, by the failure its requests carry. */
  private readonly thrown = new Map<ScoreFailure, unknown>()

  constructor(
    private readonly plan: Plan,
    private readonly settings: Pick<Settings, 'epochs' | 'average' | 'debias'>,
    /** Present under `calibrated` and `pride`: every vector is divided by its prior. */
    private readonly priorFor: PriorLookup | undefined,
  ) {
    const { rows } = plan
    const epochs = settings.epochs
    this.offsets = new Int32Array(rows.length + 1)
    rows.forEach((row, r) => (this.offsets[r + 1] = this.offsets[r]! + row.criterion.options.length))
    this.totals = new Float64Array(this.offsets[rows.length]!)
    this.epochTotals = epochs > 1 ? new Float64Array(this.offsets[rows.length]! * epochs) : undefined
    this.picks = rows.map(() => [])
    this.pickedLetters = rows.map(() => [])
    this.letterCounts = new Array<number>(LETTERS.length).fill(0)
    this.epochPicks = epochs > 1 ? rows.map((): number[][] => []) : undefined
  }

  /** Fold one scored chunk into the per-id totals, picks, letters, failures and flags. */
  add({ jobs, criteria, scored }: ScoredChunk): void {
    const { epochs, average, debias } = this.settings
    const { failures, flags, totals, epochTotals, epochPicks, offsets, priorFor } = this
    const sets = this.plan.orderings
    if (scored.thrown) this.thrown.set(scored.thrown.failure, scored.thrown.error)
    // Jobs come in runs of `epochs` for one (decision, ordering): average the run, then pick.
    for (let start = 0; start < jobs.length; start += epochs) {
      const job = jobs[start]!
      const r = job.row
      let failed = false
      for (let e = 0; e < epochs; e++) {
        const failure = scored.failures[start + e]
        if (failure && !failures.has(r)) failures.set(r, failure)
        failed ||= failure !== undefined
        for (const flag of scored.flags[start + e] ?? []) (flags.get(r) ?? flags.set(r, new Set()).get(r)!).add(flag)
      }
      if (failed || failures.has(r)) continue
      const ordering = sets[r]![job.o]!
      const width = ordering.length
      // This ordering's vector, renormalised (and calibrated), averaged over its epochs.
      // With one epoch (the common case) it is used in place, without a copy.
      let avg: ArrayLike<number>
      let weight: number
      if (epochs === 1 && !priorFor) {
        avg = scored.vectors[start]!
        weight = 1 / scored.sums[start]!
      } else {
        const sum = new Float64Array(width)
        for (let e = 0; e < epochs; e++) {
          const prior = priorFor ? priorFor(criteria[start + e]!) : undefined
          if (priorFor && !prior) throw new ScorerError(`no ${debias} prior for criterion "${criteria[start + e]!.key}" (${width} options)`)
          const vector = prior
            ? divideOut(Array.from(scored.vectors[start + e]!), prior)
            : Array.from(scored.vectors[start + e]!, (v) => v / scored.sums[start + e]!)
          for (let slot = 0; slot < width; slot++) sum[slot]! += vector[slot]! / epochs
          if (epochPicks) (epochPicks[r]![job.o] ??= []).push(scored.picks?.[start + e] ?? uniqueMaximum(vector))
          if (epochTotals) {
            const base = offsets[r]! * epochs + e * width
            for (let slot = 0; slot < width; slot++)
              epochTotals[base + ordering[slot]!]! +=
                (average === 'log' ? Math.log(Math.max(vector[slot]!, LOG_FLOOR)) : vector[slot]!) / sets[r]!.length
          }
        }
        avg = sum
        weight = 1
      }
      const base = offsets[r]!
      const share = weight / sets[r]!.length
      // log: mean of log p per option id (a geometric mean once renormalised), floored like PriDe.
      if (average === 'log')
        for (let slot = 0; slot < width; slot++) totals[base + ordering[slot]!]! += Math.log(Math.max(avg[slot]! * weight, LOG_FLOOR)) / sets[r]!.length
      else for (let slot = 0; slot < width; slot++) totals[base + ordering[slot]!]! += avg[slot]! * share
      if (scored.picks) this.countStated(r, ordering, scored.picks, start)
      const stated = scored.picks ? orderingPick(scored.picks, start, epochs) : undefined
      const slots = stated ?? maximalSlots(avg)
      if (slots.length === 1) {
        const best = slots[0]!
        // A stated pick has no margin to read; a pick read off the probabilities does.
        if (!stated && isNearTie(avg, weight)) this.nearTies.add(r)
        this.picks[r]!.push(this.plan.rows[r]!.criterion.options[ordering[best]!]!.id)
        this.pickedLetters[r]!.push(LETTERS[best]!)
        this.letterCounts[best]!++
      } else {
        // A tie is no answer: no option id; its letter count is split over the tied slots in finish().
        const tied = this.tiedPicks.get(r) ?? this.tiedPicks.set(r, new Map()).get(r)!
        tied.set(this.picks[r]!.length, slots)
        this.picks[r]!.push(null)
        this.pickedLetters[r]!.push(null)
      }
    }
  }

  /** Count the stated picks of one ordering's epochs, by original option index. */
  private countStated(r: number, ordering: readonly number[], stated: readonly (number | undefined)[], start: number): void {
    const { epochs } = this.settings
    const k = ordering.length
    for (let e = 0; e < epochs; e++) {
      const pick = stated[start + e]
      if (pick === undefined) continue
      const votes = this.statedVotes.get(r) ?? this.statedVotes.set(r, new Float64Array(epochs * k)).get(r)!
      votes[e * k + ordering[pick]!]!++
    }
  }

  /** Tied picks over the scored decisions (after {@link finish}: failed decisions left out). */
  tiedPickCount(): number {
    let count = 0
    for (const [r, tied] of this.tiedPicks) if (!this.failures.has(r)) count += tied.size
    return count
  }

  /**
   * Close the run: throw when every decision failed; otherwise take back the letters a
   * failed decision counted before its failure was known (an earlier ordering succeeded),
   * so the histogram covers scored decisions only.
   */
  finish(): void {
    const { failures } = this
    if (failures.size === this.plan.rows.length) {
      const first = failures.values().next().value!
      // Every call threw (a scorer that cannot work at all): the first throw, with its stack, says it best.
      if ([...failures.values()].every((failure) => this.thrown.has(failure))) throw new ScorerError(first.message, { cause: this.thrown.get(first) })
      const reasons = summariseFailures([...failures.values()])
      throw new ScorerError(`every decision failed to score (${reasons}); the first: ${first.message}`)
    }
    for (const r of failures.keys())
      for (const letter of this.pickedLetters[r]!) if (letter !== null) this.letterCounts[LETTERS.indexOf(letter as (typeof LETTERS)[number])]!--
    // Split tied picks last, over scored decisions only: adding and taking back fractions would leave float residue.
    for (const [r, tied] of this.tiedPicks) if (!failures.has(r)) for (const slots of tied.values()) for (const slot of slots) this.letterCounts[slot]! += 1 / slots.length
  }
}

/**
 * The pick the scorer stated for one ordering: with several epochs, the plurality of their
 * stated picks (slots tied for the most votes are a tied pick). Undefined unless every
 * epoch stated one; then the averaged vector decides.
 */
export function orderingPick(stated: readonly (number | undefined)[], start: number, epochs: number): number[] | undefined {
  if (epochs === 1) return stated[start] === undefined ? undefined : [stated[start]!]
  const votes = new Map<number, number>()
  for (let e = 0; e < epochs; e++) {
    const pick = stated[start + e]
    if (pick === undefined) return undefined
    votes.set(pick, (votes.get(pick) ?? 0) + 1)
  }
  let most = 0
  for (const count of votes.values()) if (count > most) most = count
  return [...votes].filter(([, count]) => count === most).map(([slot]) => slot).sort((a, b) => a - b)
}

/** The one maximal slot of `values`, or −1 when the maximum is tied. */
function uniqueMaximum(values: ArrayLike<number>): number {
  const slots = maximalSlots(values)
  return slots.length === 1 ? slots[0]! : -1
}
