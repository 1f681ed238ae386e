/**
 * Stage 4a of an evaluation: each scored decision's final prediction (the maximum of its
 * per-id totals; a tie within the tolerance is no answer unless the scorer's stated picks
 * name one of the tied options most often), its record (a `--records-out` line) and, for
 * custom metrics, its frozen sample score.
 */
import { hash } from 'node:crypto'
import { reorderCriterion, type LabelledDecision } from '../decisions/schema.ts'
import { dict } from '../support/dict.ts'
import { isConsistent } from '../metrics/headline.ts'
import type { DecisionRecord } from '../result/record.ts'
import { freezeScore, type SampleScore } from './sample-score.ts'
import type { Aggregate } from './aggregate.ts'
import { maximalSlots, normalise, softmax } from './argmax.ts'
import type { Settings } from './options.ts'
import { decisionId } from '../decisions/id.ts'
import type { Plan } from './plan.ts'

/** Per scored decision (failed ones left out, input order), what the metrics read. */
export interface Outcomes {
  /** Indices into `plan.rows`. */
  scoredRows: number[]
  gold: string[]
  /** The predicted option id; `null` for a tie (no answer). */
  predictions: (string | null)[]
  /** Final probability per option, original option order. */
  probabilities: number[][]
  /** Index of the gold option in the original order. */
  goldIndex: number[]
  /** Probability of the prediction (of the tied maximum for a tie). */
  confidences: number[]
  hits: boolean[]
  /** Decisions whose final prediction is tied (no answer). */
  tiedDecisions: number
  records: DecisionRecord[]
  /** Frozen sample scores, only when custom metrics will read them. */
  samples: SampleScore[]
  /** Sum of the reduced per-decision values. */
  valueSum: number
}

/** Shared empty flag list (frozen: records of unflagged decisions never carry it). */
const NO_FLAGS: readonly string[] = Object.freeze([])

/** Final predictions and records of every decision that did not fail (of the rows in `only`, when given). */
export function decisionOutcomes(
  plan: Plan,
  aggregate: Aggregate,
  settings: Pick<Settings, 'average' | 'epochs' | 'reducer' | 'template'>,
  options: { storePrompts?: boolean | undefined; withSamples: boolean; only?: ReadonlySet<number> | undefined },
): Outcomes {
  const { average, epochs, reducer, template } = settings
  const { offsets, totals, epochTotals, failures, flags, picks, pickedLetters, statedVotes, nearTies } = aggregate
  const out: Outcomes = {
    scoredRows: [],
    gold: [],
    predictions: [],
    probabilities: [],
    goldIndex: [],
    confidences: [],
    hits: [],
    tiedDecisions: 0,
    records: [],
    samples: [],
    valueSum: 0,
  }
  const visit = (row: LabelledDecision, r: number) => {
    if (failures.has(r)) return
    const ids = row.criterion.options.map((option) => option.id)
    const k = ids.length
    const slice = totals.subarray(offsets[r]!, offsets[r + 1]!)
    const p = average === 'log' ? softmax(slice) : normalise(slice)
    const votes = statedVotes.get(r)
    const tied = maximalSlots(p)
    const best = finalPick(tied, votes && summedVotes(votes, epochs, k))
    const prediction = best === undefined ? null : ids[best]!
    const hit = prediction !== null && prediction === row.answer_id
    // Correctness per epoch, from each epoch's own debiased average (a tie is wrong); one epoch is the final hit.
    const epochValues = epochTotals
      ? Array.from({ length: epochs }, (_, e) => {
          const base = offsets[r]! * epochs + e * k
          const pick = finalPick(maximalSlots(epochTotals.subarray(base, base + k)), votes?.subarray(e * k, (e + 1) * k))
          return pick !== undefined && ids[pick] === row.answer_id ? 1 : 0
        })
      : [hit ? 1 : 0]
    const rowFlagSet = flags.get(r)
    const rowFlags: readonly string[] = rowFlagSet ? [...rowFlagSet].sort() : NO_FLAGS
    out.scoredRows.push(r)
    out.gold.push(row.answer_id)
    const confidence = p[best ?? tied[0]!]!
    out.predictions.push(prediction)
    out.probabilities.push(p)
    out.goldIndex.push(ids.indexOf(row.answer_id))
    out.confidences.push(confidence)
    out.hits.push(hit)
    if (prediction === null) out.tiedDecisions++
    const record: DecisionRecord = {
      id: decisionId(row, r),
      criterion: row.criterion.key,
      gold: row.answer_id,
      prediction,
      ...(prediction === null ? { tied: tied.map((slot) => ids[slot]!) } : {}),
      probabilities: byId(ids, p),
      picks: picks[r]!,
      letters: pickedLetters[r]!,
      ...(nearTies.has(r) ? { nearTie: true as const } : {}),
    }
    const promptText = template(row.state, reorderCriterion(row.criterion, plan.orderings[r]![0]!))
    record.promptHash = hash('sha256', promptText, 'hex').slice(0, 16)
    if (options.storePrompts) record.prompt = promptText
    const value = reducer.reduce(epochValues)
    if (epochs > 1) Object.assign(record, { epochValues, value })
    if (rowFlags.length > 0) record.flags = [...rowFlags]
    out.records.push(record)
    out.valueSum += value
    // Frozen per-decision scores are built only when a custom metric will read them.
    if (options.withSamples)
      out.samples.push(
        freezeScore({
          id: record.id,
          criterion: record.criterion,
          gold: record.gold,
          prediction: record.prediction,
          value,
          epochValues,
          confidence,
          probabilities: dict(Object.entries(record.probabilities)),
          consistent: plan.orderings[r]!.length > 1 ? isConsistent(picks[r]!) : null,
          flags: rowFlags,
        }),
      )
  }
  // `only`: those rows, in input order (the looks of a run that may stop early read each batch once).
  if (options.only) for (const r of [...options.only].sort((a, b) => a - b)) visit(plan.rows[r]!, r)
  else plan.rows.forEach(visit)
  return out
}

/**
 * The final pick among the maximal options `tied`: the one option, or for a tie the tied
 * option the scorer's stated picks (`votes`, per option) name most often, when exactly one
 * does; else `undefined`, no answer. The data file's order never decides.
 */
export function finalPick(tied: readonly number[], votes: ArrayLike<number> | undefined): number | undefined {
  if (tied.length === 1) return tied[0]
  if (!votes) return undefined
  let best: number | undefined
  let most = 0
  let unique = false
  for (const slot of tied) {
    const count = votes[slot]!
    if (count > most) [best, most, unique] = [slot, count, true]
    else if (count === most) unique = false
  }
  return unique ? best : undefined
}

/** Stated picks per option summed over the epochs (`votes[e·k + i]`). */
function summedVotes(votes: Float64Array, epochs: number, k: number): Float64Array {
  if (epochs === 1) return votes
  const out = new Float64Array(k)
  for (let e = 0; e < epochs; e++) for (let i = 0; i < k; i++) out[i]! += votes[e * k + i]!
  return out
}

/** `{ [ids[k]]: values[k] }`, built with a plain loop (10^5 records: no intermediate pair arrays). */
function byId(ids: readonly string[], values: readonly number[]): Record<string, number> {
  const out = dict<number>()
  for (let k = 0; k < ids.length; k++) out[ids[k]!] = values[k]!
  return out
}
