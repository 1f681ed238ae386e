/**
 * Stage 4a of an evaluation: each scored decision's final prediction (the first maximum
 * of its per-id totals, original option order, within a tie tolerance), its record
 * (a `--records-out` line) and, for custom metrics, its frozen sample score.
 */
import { hash } from 'node:crypto'
import { reorderCriterion, type LabelledDecision } from '../decisions.ts'
import { dict } from '../dict.ts'
import { isConsistent } from '../metrics.ts'
import type { DecisionRecord } from '../record.ts'
import { freezeScore, type SampleScore } from '../sample-score.ts'
import type { Aggregate } from './aggregate.ts'
import { argmaxFirst, normalise, softmax, TIE_TOLERANCE } from './argmax.ts'
import type { Settings } from './options.ts'
import { decisionId } from '../decision-id.ts'
import type { Plan } from './plan.ts'

/** Per scored decision (failed ones left out, input order), what the metrics read. */
export interface Outcomes {
  /** Indices into `plan.rows`. */
  scoredRows: number[]
  gold: string[]
  predictions: string[]
  /** Final probability per option, original option order. */
  probabilities: number[][]
  /** Index of the gold option in the original order. */
  goldIndex: number[]
  /** Probability of the prediction. */
  confidences: number[]
  hits: boolean[]
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
  const { offsets, totals, epochTotals, failures, flags, picks, pickedLetters } = aggregate
  const out: Outcomes = { scoredRows: [], gold: [], predictions: [], probabilities: [], goldIndex: [], confidences: [], hits: [], records: [], samples: [], valueSum: 0 }
  const visit = (row: LabelledDecision, r: number) => {
    if (failures.has(r)) return
    const ids = row.criterion.options.map((option) => option.id)
    const slice = totals.subarray(offsets[r]!, offsets[r + 1]!)
    const p = average === 'log' ? softmax(slice) : normalise(slice)
    const best = argmaxFirst(p, TIE_TOLERANCE)
    const hit = ids[best] === row.answer_id
    // Correctness per epoch, from each epoch's own debiased average; one epoch is the final hit.
    const epochValues = epochTotals
      ? Array.from({ length: epochs }, (_, e) => {
          const base = offsets[r]! * epochs + e * ids.length
          return ids[argmaxFirst(epochTotals.subarray(base, base + ids.length), TIE_TOLERANCE)] === row.answer_id ? 1 : 0
        })
      : [hit ? 1 : 0]
    const rowFlagSet = flags.get(r)
    const rowFlags: readonly string[] = rowFlagSet ? [...rowFlagSet].sort() : NO_FLAGS
    out.scoredRows.push(r)
    out.gold.push(row.answer_id)
    out.predictions.push(ids[best]!)
    out.probabilities.push(p)
    out.goldIndex.push(ids.indexOf(row.answer_id))
    out.confidences.push(p[best]!)
    out.hits.push(hit)
    const record: DecisionRecord = {
      id: decisionId(row, r),
      criterion: row.criterion.key,
      gold: row.answer_id,
      prediction: ids[best]!,
      probabilities: byId(ids, p),
      picks: picks[r]!,
      letters: pickedLetters[r]!,
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
          confidence: p[best]!,
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

/** `{ [ids[k]]: values[k] }`, built with a plain loop (10^5 records: no intermediate pair arrays). */
function byId(ids: readonly string[], values: readonly number[]): Record<string, number> {
  const out = dict<number>()
  for (let k = 0; k < ids.length; k++) out[ids[k]!] = values[k]!
  return out
}
