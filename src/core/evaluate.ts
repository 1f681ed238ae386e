import pkg from '../../package.json' with { type: 'json' }
import { fingerprint, isLabelled, LETTERS, reorderCriterion, type Criterion, type Decision, type LabelledDecision } from './decisions.ts'
import { DataError, EvaluationError, ScorerError } from './errors.ts'
import {
  accuracy,
  balancedAccuracy,
  balancedAccuracyByGroup,
  brierScore,
  chanceAccuracy,
  expectedCalibrationError,
  letterDistribution,
  orderConsistency,
} from './metrics.ts'
import { assertDebiasMode, orderings, type DebiasMode, type Ordering } from './orderings.ts'
import { buildPrompt } from './prompt.ts'
import type { DecisionRecord, EvalResult, Manifest } from './result.ts'
import type { ScoreFn, ScoreRequest } from './score.ts'

/** The state of calibrated mode's content-free requests (Zhao et al., 2021). */
export const NULL_STATE = 'N/A'

/** Progress of a running evaluation, in decisions. */
export interface EvaluateProgress {
  /** Labelled decisions fully scored so far. */
  scored: number
  /** Labelled decisions to score. */
  total: number
  /** Scorer requests answered so far (content-free requests included). */
  requestsScored: number
  /** Scorer requests in the whole run. */
  requestsTotal: number
}

/** Options for {@link evaluateWithScorer}. */
export interface EvaluateOptions {
  /** How options are re-ordered and combined. Default `'none'`. */
  debias?: DebiasMode
  /** Seed recorded in the manifest (and used by anything random). Default 0. */
  seed?: number
  /** What scored the requests, for the report and manifest. Default `(injected scorer)`. */
  scorer?: string
  /** Extra manifest entries (model path, batch size, …). Must hold no secrets. */
  manifest?: Record<string, unknown>
  /**
   * Requests per ScoreFn call, at least one decision's orderings. Bounds memory on
   * large sets while still letting a scorer batch across decisions. Default 1024.
   */
  chunkSize?: number
  /** Prompt builder. Default {@link buildPrompt} (DESIGN.md "Prompt"). */
  template?: (state: string, criterion: Criterion) => string
  /** Called after each chunk is scored. */
  onProgress?: (progress: EvaluateProgress) => void
  /** Called with warnings (unlabelled rows skipped). Default `console.warn`. */
  onWarning?: (message: string) => void
  /** Stops between chunks; the promise rejects with the signal's reason. */
  signal?: AbortSignal
}

/** One (decision, ordering) to score: the plan is built up front, the request text per chunk. */
interface Job {
  readonly row: number
  readonly ordering: Ordering
}

/**
 * Score decisions with any {@link ScoreFn} and report them the way a sceptic reads them.
 *
 * One request per (labelled decision, ordering); the ScoreFn's vectors are checked,
 * renormalised, (in `calibrated` mode) divided by the content-free prior, and
 * averaged **per option id**, never per position: position is what we are trying to
 * forget. Unlabelled rows are counted and skipped; no labelled row is a DataError.
 */
export async function evaluateWithScorer(
  decisions: readonly Decision[],
  score: ScoreFn,
  options: EvaluateOptions = {},
): Promise<EvalResult> {
  const { debias = 'none', seed = 0, chunkSize = 1024, template = buildPrompt, signal } = options
  assertDebiasMode(debias)
  const startedAt = Date.now()
  const t0 = performance.now()

  const rows = decisions.filter(isLabelled)
  const skipped = decisions.length - rows.length
  if (skipped > 0)
    (options.onWarning ?? console.warn)(
      `vitest-sceptic: skipping ${skipped} unlabelled decision(s): there is nothing to score them against.`,
    )
  if (rows.length === 0)
    throw new DataError(
      'none of the decisions given has an answer_id, so there is nothing to score against. Evaluation needs a labelled set.',
    )

  // Orderings depend only on the option count; compute each set once.
  const orderingsByCount = new Map<number, Ordering[]>()
  const plan = rows.map((row) => {
    const k = row.criterion.options.length
    let set = orderingsByCount.get(k)
    if (!set) orderingsByCount.set(k, (set = orderings(k, debias)))
    return set
  })
  const requestsTotal = plan.reduce((sum, set) => sum + set.length, 0)

  const describeRequest = (index: number, job: Job) => {
    const row = rows[job.row]!
    const set = plan[job.row]!
    return `request ${index} (decision ${JSON.stringify(decisionId(row, job.row))}, criterion "${row.criterion.key}", ordering ${set.indexOf(job.ordering) + 1} of ${set.length})`
  }

  // calibrated: one content-free request per distinct (criterion, ordering), scored first.
  const priors = new Map<string, number[]>()
  if (debias === 'calibrated') {
    const nullJobs: { key: string; criterion: Criterion }[] = []
    rows.forEach((row, r) => {
      for (const ordering of plan[r]!) {
        const criterion = reorderCriterion(row.criterion, ordering)
        const key = priorKey(criterion)
        if (priors.has(key)) continue
        priors.set(key, [])
        nullJobs.push({ key, criterion })
      }
    })
    for (let start = 0; start < nullJobs.length; start += chunkSize) {
      signal?.throwIfAborted()
      const batch = nullJobs.slice(start, start + chunkSize)
      const requests = batch.map(({ criterion }) => makeRequest(NULL_STATE, criterion, template))
      const { vectors, sums } = await callScorer(score, requests, (i) =>
        `content-free request ${start + i} (criterion "${batch[i]!.criterion.key}", state "${NULL_STATE}")`,
      )
      batch.forEach(({ key }, i) => priors.set(key, Array.from(vectors[i]!, (v) => v / sums[i]!)))
    }
  }

  // Accumulators: one flat array, each row's slice in its criterion's original option order
  // (one allocation instead of one per row: at 10^5 rows the garbage collector dominated).
  const offsets = new Int32Array(rows.length + 1)
  rows.forEach((row, r) => (offsets[r + 1] = offsets[r]! + row.criterion.options.length))
  const totals = new Float64Array(offsets[rows.length]!)
  const picks: string[][] = rows.map(() => [])
  const pickedLetters: string[][] = rows.map(() => [])
  const letterCounts = new Array<number>(LETTERS.length).fill(0)

  let requestsScored = priors.size
  let nextRow = 0
  while (nextRow < rows.length) {
    signal?.throwIfAborted()
    // Whole decisions per chunk, so a scorer sees all orderings of a decision together.
    const jobs: Job[] = []
    do {
      for (const ordering of plan[nextRow]!) jobs.push({ row: nextRow, ordering })
      nextRow++
    } while (nextRow < rows.length && jobs.length + plan[nextRow]!.length <= chunkSize)

    const criteria = jobs.map((job) => reorderCriterion(rows[job.row]!.criterion, job.ordering))
    const requests = jobs.map((job, i) => makeRequest(rows[job.row]!.state, criteria[i]!, template))
    const { vectors, sums } = await callScorer(score, requests, (i) => describeRequest(requestsScored + i, jobs[i]!))

    jobs.forEach((job, i) => {
      let vector = vectors[i]!
      // Renormalising is folded into the weight: p = v / sum, averaged with weight 1/orderings.
      let weight = 1 / (plan[job.row]!.length * sums[i]!)
      if (debias === 'calibrated') {
        vector = divideOut(Array.from(vector), priors.get(priorKey(criteria[i]!))!)
        weight = 1 / plan[job.row]!.length
      }
      const base = offsets[job.row]!
      for (let slot = 0; slot < vector.length; slot++) totals[base + job.ordering[slot]!]! += vector[slot]! * weight
      const best = argmaxFirst(vector)
      picks[job.row]!.push(rows[job.row]!.criterion.options[job.ordering[best]!]!.id)
      pickedLetters[job.row]!.push(LETTERS[best]!)
      letterCounts[best]!++
    })
    requestsScored += jobs.length
    options.onProgress?.({ scored: nextRow, total: rows.length, requestsScored, requestsTotal: requestsTotal + priors.size })
  }

  // Final prediction per decision: argmax of the per-id totals, original order, first maximum wins.
  const gold: string[] = []
  const predictions: string[] = []
  const probabilities: number[][] = []
  const goldIndex: number[] = []
  const confidences: number[] = []
  const hits: boolean[] = []
  const records: DecisionRecord[] = []
  rows.forEach((row, r) => {
    const ids = row.criterion.options.map((option) => option.id)
    const p = normalise(totals.subarray(offsets[r]!, offsets[r + 1]!))
    const best = argmaxFirst(p, TIE_TOLERANCE)
    gold.push(row.answer_id)
    predictions.push(ids[best]!)
    probabilities.push(p)
    goldIndex.push(ids.indexOf(row.answer_id))
    confidences.push(p[best]!)
    hits.push(ids[best] === row.answer_id)
    records.push({
      id: decisionId(row, r),
      criterion: row.criterion.key,
      gold: row.answer_id,
      prediction: ids[best]!,
      probabilities: Object.fromEntries(ids.map((id, k) => [id, p[k]!])),
      picks: picks[r]!,
      letters: pickedLetters[r]!,
    })
  })

  const widest = Math.max(...rows.map((row) => row.criterion.options.length))
  const manifest: Manifest = {
    debias,
    orderingsScored: Math.max(...plan.map((set) => set.length)),
    forwardPasses: requestsTotal + priors.size,
    decisions: rows.length,
    unlabelledSkipped: skipped,
    fingerprint: fingerprint(rows),
    chance: chanceAccuracy(rows.map((row) => row.criterion.options.length)),
    seed,
    versions: { node: process.versions.node, vitestSceptic: pkg.version },
    started: new Date(startedAt).toISOString(),
    seconds: Math.round(performance.now() - t0) / 1000,
    scorer: options.scorer ?? '(injected scorer)',
    ...options.manifest,
  }

  return {
    accuracy: accuracy(gold, predictions),
    balancedAccuracy: balancedAccuracy(gold, predictions),
    orderConsistency: orderConsistency(picks),
    ece: expectedCalibrationError(confidences, hits),
    brier: brierScore(probabilities, goldIndex),
    perCriterion: balancedAccuracyByGroup(gold, predictions, rows.map((row) => row.criterion.key)),
    letterDistribution: letterDistribution(letterCounts.slice(0, widest), [...LETTERS.slice(0, widest)]),
    n: rows.length,
    manifest,
    records,
  }
}

/**
 * Relative tolerance under which two averaged totals count as tied (then the first
 * wins). Per-id sums accumulate in different orders, so an exact `===` tie is
 * fragile; see literature notes §1.5.
 */
export const TIE_TOLERANCE = 1e-12

/** Index of the first maximum; with a tolerance, the first value within `tol·max` of the maximum. */
export function argmaxFirst(values: ArrayLike<number>, tolerance = 0): number {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  const floor = max - Math.abs(max) * tolerance
  for (let i = 0; i < values.length; i++) if (values[i]! >= floor) return i
  return 0
}

/**
 * A request whose `prompt` is built on first read and then kept. It is an own
 * enumerable property, so JSON.stringify and structuredClone (worker threads, HTTP)
 * still see the text; scorers that never read it (cached logits, keyword scorers)
 * do not pay for hundreds of thousands of prompt strings.
 */
function makeRequest(state: string, criterion: Criterion, template: EvaluateOptions['template'] & {}): ScoreRequest {
  let prompt: string | undefined
  return {
    state,
    criterion,
    get prompt() {
      return (prompt ??= template(state, criterion))
    },
  }
}

/** Call the scorer and hold it to its contract; every failure names the request. */
async function callScorer(
  score: ScoreFn,
  requests: readonly ScoreRequest[],
  describe: (index: number) => string,
): Promise<{ vectors: ArrayLike<number>[]; sums: Float64Array }> {
  let output: unknown
  try {
    output = await score(requests)
  } catch (error) {
    if (error instanceof EvaluationError) throw error
    const span = requests.length === 1 ? describe(0) : `${describe(0)} … ${describe(requests.length - 1)}`
    throw new ScorerError(`the scorer threw on ${span}: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  }
  if (!Array.isArray(output))
    throw new ScorerError(`the scorer returned ${typeOf(output)} instead of an array of ${requests.length} probability vectors`)
  if (output.length !== requests.length)
    throw new ScorerError(
      `the scorer returned ${output.length} vectors for ${requests.length} requests (first: ${describe(0)}); it must return one per request, in order`,
    )
  const sums = new Float64Array(output.length)
  for (let i = 0; i < output.length; i++) sums[i] = checkVector(output[i], requests[i]!.criterion.options.length, () => describe(i))
  return { vectors: output as ArrayLike<number>[], sums }
}

/**
 * Validate one vector (finite, ≥ 0, not all zero, the right length) and return its
 * sum, by which it is renormalised. The scorer's array is read, never copied or changed.
 */
function checkVector(vector: unknown, length: number, describe: () => string): number {
  if (!Array.isArray(vector) && !ArrayBuffer.isView(vector))
    throw new ScorerError(`the scorer returned ${typeOf(vector)} for ${describe()}; expected ${length} numbers`)
  const values = vector as ArrayLike<unknown>
  if (values.length !== length)
    throw new ScorerError(`the scorer returned ${values.length} values for ${describe()}, which has ${length} options`)
  let sum = 0
  for (let slot = 0; slot < length; slot++) {
    const v = values[slot]
    // A NaN would lose every comparison in the argmax and be scored silently as slot A.
    if (typeof v !== 'number' || !Number.isFinite(v) || v < 0)
      throw new ScorerError(
        `the scorer returned ${typeof v === 'number' ? String(v) : typeOf(v)} at slot ${LETTERS[slot]} for ${describe()}; probabilities must be finite and ≥ 0`,
      )
    sum += v
  }
  if (sum === 0) throw new ScorerError(`the scorer returned all zeros for ${describe()}; nothing to renormalise`)
  return sum
}

/**
 * Contextual calibration (Zhao et al., ICML 2021): divide each ordering's vector by
 * the content-free prior for the same criterion and ordering, then renormalise. A
 * zero prior is floored at 1e-12 so the division stays finite.
 */
export function divideOut(vector: readonly number[], prior: readonly number[]): number[] {
  return normalise(vector.map((p, i) => p / Math.max(prior[i]!, 1e-12)))
}

function normalise(values: ArrayLike<number>): number[] {
  let sum = 0
  for (let i = 0; i < values.length; i++) sum += values[i]!
  return Array.from(values, (v) => v / sum)
}

/** Content-free prior key: the criterion key, question and the options as presented. */
function priorKey(criterion: Criterion): string {
  return JSON.stringify([criterion.key, criterion.question ?? null, criterion.options.map((o) => [o.id, o.text])])
}

function decisionId(row: LabelledDecision, index: number): string {
  return row.id ?? `#${index + 1}`
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}
