import { createHash } from 'node:crypto'
import { cacheCountsSince, readCacheCounts } from './cache-counts.ts'
import pkg from '../../package.json' with { type: 'json' }
import { fingerprint, isLabelled, LETTERS, mulberry32, reorderCriterion, type Criterion, type Decision, type LabelledDecision } from './decisions.ts'
import { recordsFingerprint } from './compare.ts'
import { countBy, dict } from './dict.ts'
import { checkEvaluateInput } from './evaluate-input.ts'
import { withManifestExtras } from './manifest-extras.ts'
import { ConfigError, DataError, EvaluationError, ScorerError } from './errors.ts'
import {
  accuracy,
  balancedAccuracy,
  balancedAccuracyByGroup,
  brierScore,
  chanceAccuracy,
  expectedCalibrationError,
  isConsistent,
  letterDistribution,
  mean,
  orderConsistency,
} from './metrics.ts'
import { assertAverageMode, assertDebiasMode, DEFAULT_DEBIAS, LOG_FLOOR, orderings, type AverageMode, type DebiasMode, type Ordering } from './orderings.ts'
import { honestNumbers, type HonestNumbersOptions } from './intervals.ts'
import { buildPrompt } from './prompt.ts'
import { circularChance, panelDecision, pinnedSlots, robustnessPanel } from './robustness.ts'
import { renormalise, scaledByMax } from './renormalise.ts'
import { resolveReducer, type ReducerLike } from './reducers.ts'
import type { DecisionFailure, DecisionRecord, EvalResult, Manifest } from './result.ts'
import { NEVER_ABORTS, raceAbort } from './abort.ts'
import { freezeScore, runCustomMetrics, type CustomMetric, type SampleScore } from './sample-score.ts'
import { isFlaggedScore, isScoreFailure, type FallibleScoreFn, type ScoreFailure, type ScoreFn, type ScoreRequest } from './score.ts'

/** The state of calibrated mode's content-free requests (Zhao et al., 2021). */
export const NULL_STATE = 'N/A'

/** Progress of a running evaluation, in decisions. */
export interface EvaluateProgress {
  /** Labelled decisions fully scored (or failed) so far. */
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
  /** How options are re-ordered and combined. Default `'cyclic'` ({@link DEFAULT_DEBIAS}). */
  debias?: DebiasMode
  /**
   * How each decision's per-ordering vectors are combined per option id: `'probability'`
   * (arithmetic mean, the reference behaviour; default) or `'log'` (mean of log p with a
   * 1e-10 floor, then renormalised: exact for a multiplicative slot prior).
   */
  average?: AverageMode
  /**
   * Share of decisions (per option count, at least one each) that `debias: 'pride'`
   * scores under every cyclic rotation to estimate the slot prior, in (0, 1]. Default
   * 0.05, PriDe's α. The sample is drawn with `seed`.
   */
  prideFraction?: number
  /**
   * Attach `statistics` (intervals, baselines, minimum detectable difference, RStd, ECE
   * reliability, verdicts; seeded with `seed`). Default true; `false` skips the
   * bootstrap (about 2 s per 10^5 decisions). An object sets `resamples` or `level`.
   */
  statistics?: boolean | Pick<HonestNumbersOptions, 'resamples' | 'level'>
  /** Seed recorded in the manifest (and used by anything random). Default 0. */
  seed?: number
  /** What scored the requests, for the report and manifest. Default `(injected scorer)`. */
  scorer?: string
  /** Extra manifest entries (model path, batch size, …). Must hold no secrets. */
  manifest?: Record<string, unknown>
  /**
   * Times each (decision, ordering) is scored, for scorers that sample. Requests
   * carry their `epoch` index. Probabilities are averaged over epochs; correctness
   * per epoch is reduced by `reducer` into each decision's `value`. Default 1.
   */
  epochs?: number
  /** How per-epoch correctness becomes one value per decision. Default `'mean'`; runs even at one epoch. */
  reducer?: ReducerLike
  /** Custom metrics over the frozen, reduced {@link SampleScore}s, reported under `metrics`. */
  metrics?: Readonly<Record<string, CustomMetric>>
  /**
   * Requests per ScoreFn call, at least one decision's requests. Bounds memory on
   * large sets while still letting a scorer batch across decisions. Default 1024.
   */
  chunkSize?: number
  /** Prompt builder. Default {@link buildPrompt} (DESIGN.md "Prompt"). */
  template?: (state: string, criterion: Criterion) => string
  /** Called after each chunk is scored. */
  onProgress?: (progress: EvaluateProgress) => void
  /** Called with warnings (unlabelled rows skipped). Default `console.warn`. */
  onWarning?: (message: string) => void
  /**
   * Cancels the run: it is passed to every scorer call (`ScoreContext.signal`), the
   * evaluator stops waiting on a call the moment it aborts, and the promise rejects
   * with the signal's reason.
   */
  signal?: AbortSignal
  /**
   * Keep each decision's prompt text (as presented in the first ordering) in its
   * record. Off by default: records carry only `promptHash`, a sha256 prefix, so
   * artifacts stay small and do not copy possibly sensitive evidence.
   */
  storePrompts?: boolean
}

/** One request to make: the plan is built up front, the request text per chunk. */
interface Job {
  readonly row: number
  /** Index of the ordering in the row's ordering set. */
  readonly o: number
  readonly epoch: number
}

/**
 * Score decisions with any scorer and report them the way a sceptic reads them.
 *
 * One request per (labelled decision, ordering, epoch); vectors are checked,
 * renormalised, (in `calibrated` mode) divided by the content-free prior, averaged
 * over epochs, and then averaged **per option id**, never per position: position
 * is what we are trying to forget. Every row read ends up scored, unlabelled
 * (counted and skipped) or failed (counted by reason): nothing is dropped.
 */
export async function evaluateWithScorer(
  input: readonly Decision[],
  score: ScoreFn | FallibleScoreFn,
  options: EvaluateOptions = {},
): Promise<EvalResult> {
  const decisions = checkEvaluateInput(input, options)
  const { debias = DEFAULT_DEBIAS, seed = 0, chunkSize = 1024, template = buildPrompt, signal, epochs = 1 } = options
  const { average = 'probability', prideFraction = DEFAULT_PRIDE_FRACTION } = options
  assertDebiasMode(debias)
  assertAverageMode(average)
  if (!(Number.isInteger(epochs) && epochs >= 1)) throw new ConfigError(`epochs must be an integer ≥ 1, got ${epochs}`)
  const reducer = resolveReducer(options.reducer)
  const startedAt = Date.now()
  const t0 = performance.now()
  const cacheBefore = readCacheCounts(score)

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

  // pride: a seeded sample gets every rotation (to estimate the slot prior); the rest one ordering.
  const sampled = debias === 'pride' ? prideSample(rows, prideFraction, seed) : null

  // Orderings depend only on the option count (and, under pride, on being sampled); compute each set once.
  const orderingsByCount = new Map<string, Ordering[]>()
  const plan = rows.map((row, r) => {
    const k = row.criterion.options.length
    const mode: DebiasMode = sampled && !sampled.has(r) ? 'none' : debias
    const pinned = pinnedSlots(row.criterion)
    const key = `${k}:${mode}:${pinned.join(',')}`
    let set = orderingsByCount.get(key)
    if (!set) orderingsByCount.set(key, (set = orderings(k, mode, pinned)))
    return set
  })
  const requestsTotal = plan.reduce((sum, set) => sum + set.length, 0) * epochs

  const describeRequest = (index: number, job: Job) => {
    const row = rows[job.row]!
    const count = plan[job.row]!.length
    const epoch = epochs > 1 ? `, epoch ${job.epoch + 1} of ${epochs}` : ''
    return `request ${index} (decision ${JSON.stringify(decisionId(row, job.row))}, criterion "${row.criterion.key}", ordering ${job.o + 1} of ${count}${epoch})`
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
      const requests = batch.map(({ criterion }) => makeRequest(NULL_STATE, criterion, template, 0))
      const scored = await callScorer(score, requests, signal, (i) =>
        `content-free request ${start + i} (criterion "${batch[i]!.criterion.key}", state "${NULL_STATE}")`,
      )
      // Without its prior no decision of that criterion could be calibrated: fail the run, naming it.
      scored.failures.forEach((failure, i) => {
        if (failure)
          throw new ScorerError(`content-free request for criterion "${batch[i]!.criterion.key}" failed (${failure.failure}): ${failure.message}`)
      })
      batch.forEach(({ key }, i) => priors.set(key, Array.from(scored.vectors[i]!, (v) => v / scored.sums[i]!)))
    }
  }

  // Accumulators: one flat array, each row's slice in its criterion's original option
  // order (one allocation instead of one per row: at 10^5 rows the GC dominated).
  const offsets = new Int32Array(rows.length + 1)
  rows.forEach((row, r) => (offsets[r + 1] = offsets[r]! + row.criterion.options.length))
  const totals = new Float64Array(offsets[rows.length]!)
  // Per-epoch totals, only when there is more than one epoch to tell apart.
  const epochTotals = epochs > 1 ? new Float64Array(offsets[rows.length]! * epochs) : undefined
  const picks: string[][] = rows.map(() => [])
  const pickedLetters: string[][] = rows.map(() => [])
  const letterCounts = new Array<number>(LETTERS.length).fill(0)
  // Picked slot per (decision, ordering, epoch), for the panel's repetition stability; only with several epochs.
  const epochPicks = epochs > 1 ? rows.map((): number[][] => []) : undefined
  const failures = new Map<number, ScoreFailure>()
  const flags = new Map<number, Set<string>>()

  // pride's slot prior per option count, estimated from the sample before any vector is accumulated.
  const slotPriors = new Map<number, number[]>()
  const priorFor = (presented: Criterion): number[] | undefined =>
    debias === 'calibrated' ? priors.get(priorKey(presented)) : debias === 'pride' ? slotPriors.get(presented.options.length) : undefined
  const correcting = debias === 'calibrated' || debias === 'pride'
  // Under pride the sampled rows go first, in chunks of their own, held until the prior is known.
  const rowOrder = sampled ? [...[...sampled].sort((a, b) => a - b), ...rows.map((_, r) => r).filter((r) => !sampled.has(r))] : rows.map((_, r) => r)
  const held: { jobs: Job[]; criteria: Criterion[]; scored: Scored }[] = []

  let requestsScored = priors.size
  let nextRow = 0
  while (nextRow < rows.length) {
    signal?.throwIfAborted()
    // Whole decisions per chunk, so a scorer sees all orderings and epochs of a decision together.
    const jobs: Job[] = []
    const perRow = (r: number) => plan[r]!.length * epochs
    const inSample = (index: number) => sampled?.has(rowOrder[index]!) ?? false
    const phase = inSample(nextRow)
    do {
      const row = rowOrder[nextRow]!
      for (let o = 0; o < plan[row]!.length; o++) for (let epoch = 0; epoch < epochs; epoch++) jobs.push({ row, o, epoch })
      nextRow++
    } while (nextRow < rows.length && inSample(nextRow) === phase && jobs.length + perRow(rowOrder[nextRow]!) <= chunkSize)

    const criteria = jobs.map((job) => reorderCriterion(rows[job.row]!.criterion, plan[job.row]![job.o]!))
    const requests = jobs.map((job, i) => makeRequest(rows[job.row]!.state, criteria[i]!, template, epochs > 1 ? job.epoch : undefined))
    const scored = await callScorer(score, requests, signal, (i) => describeRequest(requestsScored + i, jobs[i]!))
    requestsScored += jobs.length
    if (phase) held.push({ jobs, criteria, scored })
    else {
      if (held.length > 0) {
        estimatePridePriors(held, plan, epochs, slotPriors)
        for (const chunk of held.splice(0)) accumulateChunk(chunk.jobs, chunk.criteria, chunk.scored)
      }
      accumulateChunk(jobs, criteria, scored)
    }
    options.onProgress?.({ scored: nextRow, total: rows.length, requestsScored, requestsTotal: requestsTotal + priors.size })
  }
  // Every row was in the sample (prideFraction 1): the prior comes from all of them.
  if (held.length > 0) {
    estimatePridePriors(held, plan, epochs, slotPriors)
    for (const chunk of held.splice(0)) accumulateChunk(chunk.jobs, chunk.criteria, chunk.scored)
  }

  /** Fold one scored chunk into the per-id totals, picks, letters, failures and flags. */
  function accumulateChunk(jobs: readonly Job[], criteria: readonly Criterion[], scored: Scored): void {
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
      const ordering = plan[r]![job.o]!
      const width = ordering.length
      // This ordering's vector, renormalised (and calibrated), averaged over its epochs.
      // With one epoch (the common case) it is used in place, without a copy.
      let avg: ArrayLike<number>
      let weight: number
      if (epochs === 1 && !correcting) {
        avg = scored.vectors[start]!
        weight = 1 / scored.sums[start]!
      } else {
        const sum = new Float64Array(width)
        for (let e = 0; e < epochs; e++) {
          const prior = correcting ? priorFor(criteria[start + e]!) : undefined
          if (correcting && !prior) throw new ScorerError(`no ${debias} prior for criterion "${criteria[start + e]!.key}" (${width} options)`)
          const vector = prior
            ? divideOut(Array.from(scored.vectors[start + e]!), prior)
            : Array.from(scored.vectors[start + e]!, (v) => v / scored.sums[start + e]!)
          for (let slot = 0; slot < width; slot++) sum[slot]! += vector[slot]! / epochs
          if (epochPicks) (epochPicks[r]![job.o] ??= []).push(argmaxFirst(vector))
          if (epochTotals) {
            const base = offsets[r]! * epochs + e * width
            for (let slot = 0; slot < width; slot++)
              epochTotals[base + ordering[slot]!]! +=
                (average === 'log' ? Math.log(Math.max(vector[slot]!, LOG_FLOOR)) : vector[slot]!) / plan[r]!.length
          }
        }
        avg = sum
        weight = 1
      }
      const base = offsets[r]!
      const share = weight / plan[r]!.length
      // log: mean of log p per option id (a geometric mean once renormalised), floored like PriDe.
      if (average === 'log')
        for (let slot = 0; slot < width; slot++) totals[base + ordering[slot]!]! += Math.log(Math.max(avg[slot]! * weight, LOG_FLOOR)) / plan[r]!.length
      else for (let slot = 0; slot < width; slot++) totals[base + ordering[slot]!]! += avg[slot]! * share
      const best = argmaxFirst(avg)
      picks[r]!.push(rows[r]!.criterion.options[ordering[best]!]!.id)
      pickedLetters[r]!.push(LETTERS[best]!)
      letterCounts[best]!++
    }
  }

  if (failures.size === rows.length) {
    const reasons = summariseFailures([...failures.values()])
    const first = failures.values().next().value!
    throw new ScorerError(`every decision failed to score (${reasons}); the first: ${first.message}`)
  }
  // A failed decision's letters were counted before its failure was known only if an
  // earlier ordering succeeded; take them back so the histogram covers scored decisions.
  for (const r of failures.keys()) for (const letter of pickedLetters[r]!) letterCounts[LETTERS.indexOf(letter)]!--

  // Final prediction per decision: argmax of the per-id totals, original order, first maximum wins.
  const scoredRows: number[] = []
  const gold: string[] = []
  const predictions: string[] = []
  const probabilities: number[][] = []
  const goldIndex: number[] = []
  const confidences: number[] = []
  const hits: boolean[] = []
  const records: DecisionRecord[] = []
  const samples: SampleScore[] = []
  let valueSum = 0
  rows.forEach((row, r) => {
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
    scoredRows.push(r)
    gold.push(row.answer_id)
    predictions.push(ids[best]!)
    probabilities.push(p)
    goldIndex.push(ids.indexOf(row.answer_id))
    confidences.push(p[best]!)
    hits.push(hit)
    const record: DecisionRecord = {
      id: decisionId(row, r),
      criterion: row.criterion.key,
      gold: row.answer_id,
      prediction: ids[best]!,
      probabilities: byId(ids, p),
      picks: picks[r]!,
      letters: pickedLetters[r]!,
    }
    const promptText = template(row.state, reorderCriterion(row.criterion, plan[r]![0]!))
    record.promptHash = createHash('sha256').update(promptText).digest('hex').slice(0, 16)
    if (options.storePrompts) record.prompt = promptText
    const value = reducer.reduce(epochValues)
    if (epochs > 1) Object.assign(record, { epochValues, value })
    if (rowFlags.length > 0) record.flags = [...rowFlags]
    records.push(record)
    valueSum += value
    // Frozen per-decision scores are built only when a custom metric will read them.
    if (options.metrics)
      samples.push(
        freezeScore({
          id: record.id,
          criterion: record.criterion,
          gold: record.gold,
          prediction: record.prediction,
          value,
          epochValues,
          confidence: p[best]!,
          probabilities: dict(Object.entries(record.probabilities)),
          consistent: plan[r]!.length > 1 ? isConsistent(picks[r]!) : null,
          flags: rowFlags,
        }),
      )
  })

  const failureList: DecisionFailure[] = [...failures].sort(([a], [b]) => a - b).map(([r, failure]) => ({
    id: decisionId(rows[r]!, r),
    criterion: rows[r]!.criterion.key,
    reason: failure.failure,
    message: failure.message,
  }))
  const flaggedCounts = countBy(records.flatMap((record) => record.flags ?? []))

  const scoredDecisions = scoredRows.map((r) => rows[r]!)
  const panelInput = scoredRows.map((r, i) => panelDecision(rows[r]!.criterion, goldIndex[i]!, plan[r]!, pickedLetters[r]!, epochPicks?.[r]))
  // Cramér's V's interval is a bootstrap: skipped, like the others, with `statistics: false`.
  const panel = robustnessPanel(panelInput, { seed, ...(options.statistics === false ? { resamples: 0 } : {}) })
  const widest = Math.max(...scoredDecisions.map((row) => row.criterion.options.length))
  const manifest: Manifest = withManifestExtras({
    debias,
    orderingsScored: Math.max(...plan.map((set) => set.length)),
    forwardPasses: requestsTotal + priors.size,
    decisions: rows.length,
    unlabelledSkipped: skipped,
    failed: failureList.length,
    failedByReason: countBy(failureList.map((f) => f.reason)),
    flagged: flaggedCounts,
    epochs,
    reducer: reducer.name,
    fingerprint: fingerprint(rows),
    recordsFingerprint: recordsFingerprint(records),
    chance: chanceAccuracy(scoredDecisions.map((row) => row.criterion.options.length)),
    circularChance: circularChance(panelInput),
    seed,
    versions: { node: process.versions.node, vitestSceptic: pkg.version },
    started: new Date(startedAt).toISOString(),
    seconds: Math.round(performance.now() - t0) / 1000,
    scorer: options.scorer ?? describeScorer(score),
    average,
    ...(cacheBefore ? { cache: cacheCountsSince(score, cacheBefore) } : {}),
    ...(sampled ? { pride: prideManifest(rows, sampled, slotPriors, prideFraction, requestsTotal / epochs) } : {}),
  }, options.manifest)

  const statistics =
    options.statistics === false
      ? undefined
      : honestNumbers(
          records,
          scoredRows.map((r) => rows[r]!.group_id ?? null),
          {
            seed,
            ...(typeof options.statistics === 'object' ? options.statistics : {}),
            // RStd is over the gold answer's slot letter as the decision was written (PriDe's "ID").
            goldLetters: scoredRows.map((r) => LETTERS[rows[r]!.criterion.options.findIndex((o) => o.id === rows[r]!.answer_id)]!),
          },
        )


  return {
    accuracy: accuracy(gold, predictions),
    balancedAccuracy: balancedAccuracy(gold, predictions),
    // Under pride only the sampled decisions were scored under several orderings.
    orderConsistency: orderConsistency((sampled ? scoredRows.filter((r) => sampled.has(r)) : scoredRows).map((r) => picks[r]!)),
    ...panel,
    ece: expectedCalibrationError(confidences, hits),
    brier: brierScore(probabilities, goldIndex),
    perCriterion: balancedAccuracyByGroup(gold, predictions, scoredDecisions.map((row) => row.criterion.key)),
    letterDistribution: letterDistribution(letterCounts.slice(0, widest), [...LETTERS.slice(0, widest)]),
    n: records.length,
    score: records.length === 0 ? 0 : valueSum / records.length,
    metrics: runCustomMetrics(options.metrics, samples),
    failed: failureList.length,
    failures: failureList,
    ...(statistics ? { statistics } : {}),
    manifest,
    records,
  }
}

/** Shared empty flag list (frozen: records of unflagged decisions never carry it). */
const NO_FLAGS: readonly string[] = Object.freeze([])

/** `{ [ids[k]]: values[k] }`, built with a plain loop (10^5 records: no intermediate pair arrays). */
function byId(ids: readonly string[], values: readonly number[]): Record<string, number> {
  const out = dict<number>()
  for (let k = 0; k < ids.length; k++) out[ids[k]!] = values[k]!
  return out
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
function makeRequest(state: string, criterion: Readonly<Criterion>, template: EvaluateOptions['template'] & {}, epoch: number | undefined): ScoreRequest {
  let prompt: string | undefined
  const request = {
    state,
    criterion,
    get prompt() {
      return (prompt ??= template(state, criterion))
    },
  }
  // Frozen, options array and criterion included: a scorer cannot rewrite what is being evaluated.
  Object.freeze(Object.freeze(criterion).options)
  return Object.freeze(epoch === undefined ? request : Object.assign(request, { epoch }))
}

/** What one scorer call gave back, checked: per request a vector (with its sum) or a failure. */
interface Scored {
  vectors: (ArrayLike<number> | undefined)[]
  sums: Float64Array
  failures: (ScoreFailure | undefined)[]
  flags: (readonly string[] | undefined)[]
}

/** Call the scorer and hold it to its contract; every contract breach names the request. */
async function callScorer(
  score: ScoreFn | FallibleScoreFn,
  requests: readonly ScoreRequest[],
  signal: AbortSignal | undefined,
  describe: (index: number) => string,
): Promise<Scored> {
  let output: unknown
  try {
    output = await raceAbort(score(requests, { signal: signal ?? NEVER_ABORTS }), signal)
  } catch (error) {
    if (error instanceof EvaluationError || (signal?.aborted && error === signal.reason)) throw error
    const span = requests.length === 1 ? describe(0) : `${describe(0)} … ${describe(requests.length - 1)}`
    throw new ScorerError(`the scorer threw on ${span}: ${(error as Error)?.message ?? String(error)}`, { cause: error })
  }
  if (!Array.isArray(output))
    throw new ScorerError(`the scorer returned ${typeOf(output)} instead of an array of ${requests.length} probability vectors`)
  if (output.length !== requests.length)
    throw new ScorerError(
      `the scorer returned ${output.length} vectors for ${requests.length} requests (first: ${describe(0)}); it must return one per request, in order`,
    )
  const scored: Scored = { vectors: new Array(output.length), sums: new Float64Array(output.length), failures: [], flags: [] }
  for (let i = 0; i < output.length; i++) {
    let outcome: unknown = output[i]
    if (isScoreFailure(outcome)) {
      scored.failures[i] = outcome
      continue
    }
    if (isFlaggedScore(outcome)) {
      scored.flags[i] = outcome.flags
      outcome = outcome.probabilities
    }
    const sum = checkVector(outcome, requests[i]!.criterion.options.length, () => describe(i))
    // A sum that overflows (entries near 1.7e308) or whose inverse does (subnormals) is rescaled by the maximum first.
    const safe = Number.isFinite(sum) && Number.isFinite(1 / sum) ? { vector: outcome as ArrayLike<number>, sum } : scaledByMax(outcome as ArrayLike<number>)
    scored.sums[i] = safe.sum
    scored.vectors[i] = safe.vector
  }
  return scored
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
  // Scaled by its maximum first, so that neither the division nor the sum overflows.
  return renormalise(scaledByMax(vector).vector.map((p, i) => p / Math.max(prior[i]!, 1e-12)))
}

/** Default share of decisions `pride` samples to estimate the slot prior: 0.05 (PriDe's α). */
export const DEFAULT_PRIDE_FRACTION = 0.05

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

/**
 * The decisions `pride` scores under every rotation: per option count, the first
 * `max(1, round(fraction·N_k))` of a seeded shuffle (the prior is one vector per
 * slot count, so each option count needs its own sample).
 */
function prideSample(rows: readonly LabelledDecision[], fraction: number, seed: number): Set<number> {
  if (!(fraction > 0 && fraction <= 1)) throw new ConfigError(`prideFraction must be in (0, 1], got ${fraction}`)
  const byCount = new Map<number, number[]>()
  rows.forEach((row, r) => {
    const k = row.criterion.options.length
    const members = byCount.get(k)
    if (members) members.push(r)
    else byCount.set(k, [r])
  })
  const random = mulberry32(seed)
  const chosen = new Set<number>()
  for (const k of [...byCount.keys()].sort((a, b) => a - b)) {
    const members = byCount.get(k)!
    for (let i = members.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[members[i], members[j]] = [members[j]!, members[i]!]
    }
    for (const r of members.slice(0, Math.max(1, Math.round(fraction * members.length)))) chosen.add(r)
  }
  return chosen
}

/**
 * PriDe's prior (Zheng et al., ICLR 2024, `debias_utils.py`): per sampled decision,
 * softmax over slots of the mean over its rotations of log(p + 1e-10) (epochs
 * averaged first); per option count, the arithmetic mean of those per-decision priors,
 * as in the reference code. Decisions with a failed request are left out.
 */
function estimatePridePriors(
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

function prideManifest(
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

/** exp(x − max), renormalised: a normalised geometric mean when `values` are mean log-probabilities. */
function softmax(values: ArrayLike<number>): number[] {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) if (values[i]! > max) max = values[i]!
  const out = Array.from(values, (v) => Math.exp(v - max))
  const sum = out.reduce((s, v) => s + v, 0)
  return out.map((v) => v / sum)
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

/** A scorer's own `describe` string (remote and ONNX scorers carry one), else the generic label. */
function describeScorer(score: unknown): string {
  const text = (score as { describe?: unknown }).describe
  return typeof text === 'string' ? text : '(injected scorer)'
}

/** `timeout 2, http_error 1`, most frequent first. */
export function summariseFailures(failures: readonly { failure?: string; reason?: string }[]): string {
  const counts = countBy(failures.map((f) => f.failure ?? f.reason ?? 'error'))
  return Object.entries(counts)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .map(([reason, count]) => `${reason} ${count}`)
    .join(', ')
}

function typeOf(value: unknown): string {
  return value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value
}
