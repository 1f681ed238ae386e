/**
 * The slot priors that `calibrated` and `pride` divide out: contextual calibration's
 * content-free requests (Zhao et al., ICML 2021) and PriDe's prior estimated from a
 * sample scored under every rotation (Zheng et al., ICLR 2024).
 */
import { reorderCriterion, type Criterion, type LabelledDecision } from '../decisions/schema.ts'
import { ScorerError } from '../support/errors.ts'
import { LOG_FLOOR, type Ordering } from '../requests/orderings.ts'
import { renormalise, scaledByMax } from './renormalise.ts'
import type { FallibleScoreFn, ScoreFn } from '../scorer/contract.ts'
import { softmax } from './argmax.ts'
import type { Settings } from './options.ts'
import { decisionId } from '../decisions/id.ts'
import type { Job, Plan } from './plan.ts'
import { callScorer, makeRequest, type Scored } from './score.ts'

/** The state of calibrated mode's content-free requests (Zhao et al., 2021). */
export const NULL_STATE = 'N/A'

/** Content-free prior key: the criterion key, question and the options as presented. */
export function priorKey(criterion: Criterion): string {
  return JSON.stringify([criterion.key, criterion.question ?? null, criterion.options.map((o) => [o.id, o.text])])
}

/** One content-free request per distinct (criterion, ordering) of the plan, first appearance first. */
export function contentFreeCriteria(plan: Plan): { key: string; criterion: Criterion }[] {
  const seen = new Set<string>()
  const out: { key: string; criterion: Criterion }[] = []
  plan.rows.forEach((row, r) => {
    for (const ordering of plan.orderings[r]!) {
      const criterion = reorderCriterion(row.criterion, ordering)
      const key = priorKey(criterion)
      if (seen.has(key)) continue
      seen.add(key)
      out.push({ key, criterion })
    }
  })
  return out
}

/**
 * Score the content-free requests (state {@link NULL_STATE}) in chunks and return each
 * prior, renormalised, by {@link priorKey}. A failed one fails the run: without its prior
 * no decision of that criterion could be calibrated.
 */
export async function scoreContentFree(
  score: ScoreFn | FallibleScoreFn,
  jobs: readonly { key: string; criterion: Criterion }[],
  settings: Settings,
): Promise<Map<string, number[]>> {
  const { chunkSize, template, signal } = settings
  const priors = new Map<string, number[]>()
  for (let start = 0; start < jobs.length; start += chunkSize) {
    signal?.throwIfAborted()
    const batch = jobs.slice(start, start + chunkSize)
    const requests = batch.map(({ criterion }) => makeRequest(NULL_STATE, criterion, template, 0))
    const scored = await callScorer(score, requests, signal, (i) =>
      `content-free request ${start + i} (criterion "${batch[i]!.criterion.key}", state "${NULL_STATE}")`,
    )
    if (scored.thrown) throw new ScorerError(scored.thrown.failure.message, { cause: scored.thrown.error })
    scored.failures.forEach((failure, i) => {
      if (failure)
        throw new ScorerError(`content-free request for criterion "${batch[i]!.criterion.key}" failed (${failure.failure}): ${failure.message}`)
    })
    batch.forEach(({ key }, i) => priors.set(key, Array.from(scored.vectors[i]!, (v) => v / scored.sums[i]!)))
  }
  return priors
}

/**
 * Contextual calibration (Zhao et al., ICML 2021): divide each ordering's vector by
 * the content-free prior for the same criterion and ordering, then renormalise. A
 * zero prior is floored at 1e-12 so the division stays finite.
 */
export function divideOut(vector: readonly number[], prior: readonly number[]): number[] {
  // Scaled by its maximum first, so that neither the division nor the sum overflows.
  return renormalise(scaledByMax(vector).vector.map((p, i) => p / Math.max(prior[i]!, 1e-12)))
}

/**
 * PriDe's prior (Zheng et al., ICLR 2024, `debias_utils.py`): per sampled decision,
 * softmax over slots of the mean over its rotations of log(p + 1e-10) (epochs
 * averaged first); per option count, the arithmetic mean of those per-decision priors,
 * as in the reference code. Decisions with a failed request are left out.
 */
export function estimatePridePriors(
  held: readonly { jobs: readonly Job[]; scored: Scored }[],
  plan: readonly (readonly Ordering[])[],
  epochs: number,
  out: Map<number, number[]>,
): void {
  const logMeans = new Map<number, Float64Array>()
  const failed = new Set<number>()
  for (const { jobs, scored } of held)
    jobs.forEach((job, i) => {
      const vector = scored.vectors[i]
      if (!vector) return void failed.add(job.row)
      const k = vector.length
      const m = logMeans.get(job.row) ?? new Float64Array(k)
      logMeans.set(job.row, m)
      // Epoch-averaged probability at each slot of this ordering, then its log.
      if (job.epoch === 0)
        for (let slot = 0; slot < k; slot++) {
          let p = 0
          for (let e = 0; e < epochs; e++) p += (scored.vectors[i + e]?.[slot] ?? 0) / (scored.sums[i + e] || 1) / epochs
          m[slot]! += Math.log(p + LOG_FLOOR) / plan[job.row]!.length
        }
    })
  const perCount = new Map<number, number[][]>()
  for (const [row, m] of logMeans) {
    if (failed.has(row)) continue
    const list = perCount.get(m.length) ?? []
    list.push(softmax(m))
    perCount.set(m.length, list)
  }
  for (const [k, list] of perCount)
    out.set(k, Array.from({ length: k }, (_, slot) => list.reduce((s, prior) => s + prior[slot]!, 0) / list.length))
}

/** What the manifest records of a `pride` run (`manifest.pride`). */
export interface PrideManifest {
  /** The sample share asked for. */
  fraction: number
  /** Ids of the decisions scored under every rotation, input order. */
  sampled: string[]
  /** Estimated slot prior per option count (slot A first). */
  priors: Record<string, number[]>
  /** Forward passes per decision actually made (epochs aside): α·n + (1 − α) for one option count. */
  passesPerDecision: number
  /** What order consistency is computed over. */
  orderConsistencyOver: string
}

/** `manifest.pride`: the fraction, the sampled ids, the estimated priors and the passes made. */
export function prideManifest(
  rows: readonly LabelledDecision[],
  sampled: ReadonlySet<number>,
  slotPriors: ReadonlyMap<number, number[]>,
  fraction: number,
  passes: number,
): PrideManifest {
  const ids = [...sampled].sort((a, b) => a - b).map((r) => decisionId(rows[r]!, r))
  return {
    fraction,
    sampled: ids,
    priors: Object.fromEntries([...slotPriors].sort(([a], [b]) => a - b).map(([k, prior]) => [String(k), prior])),
    passesPerDecision: passes / rows.length,
    orderConsistencyOver: `the ${ids.length} sampled decision${ids.length === 1 ? '' : 's'}`,
  }
}
