/**
 * `evaluateWithScorer`, over the stages in this folder: plan → (content-free priors) →
 * score chunk by chunk → aggregate per option id → records → result (docs/design.md#data-flow-one-direction).
 */
import { cacheCountsSince, readCacheCounts, settleCache } from '../scorer/cache-counts.ts'
import { NEVER_ABORTS, raceAbort } from '../support/abort.ts'
import type { Decision } from '../decisions/schema.ts'
import { checkEvaluateInput } from './input.ts'
import type { EvalResult } from '../result/result.ts'
import type { FallibleScoreFn, ScoreFn } from '../scorer/contract.ts'
import { describeScorer } from '../scorer/description.ts'
import { Aggregate, type PriorLookup } from './aggregate.ts'
import { assembleResult } from './assemble.ts'
import { resolveSettings, type EvaluateOptions } from './options.ts'
import { chunks, planEvaluation } from './plan.ts'
import { contentFreeCriteria, estimatePridePriors, priorKey, scoreContentFree } from './priors.ts'
import { decisionOutcomes } from './records.ts'
import { scoreChunk, type ScoredChunk } from './score.ts'
import { EarlyStop } from './stop-early.ts'
import { checkThresholds } from '../thresholds/sequential/options.ts'

export { type EvaluateOptions, type EvaluateProgress } from './options.ts'
export { DEFAULT_PRIDE_FRACTION } from './limits.ts'
export { argmaxFirst, TIE_TOLERANCE } from './argmax.ts'
export { divideOut, NULL_STATE, type PrideManifest } from './priors.ts'
export { summariseFailures } from '../result/failure-summary.ts'

/**
 * Score decisions with any scorer: one request per (labelled decision, ordering, epoch),
 * averaged **per option id**, never per position, since position is what debiasing forgets.
 * Every row ends up scored, unlabelled (counted) or failed (counted by reason).
 */
export async function evaluateWithScorer(
  input: readonly Decision[],
  score: ScoreFn | FallibleScoreFn,
  options: EvaluateOptions = {},
): Promise<EvalResult> {
  const settings = resolveSettings(options)
  const decisions = checkEvaluateInput(input, options)
  const { debias, epochs, signal } = settings
  const startedAt = Date.now()
  const t0 = performance.now()
  const cacheBefore = readCacheCounts(score)

  const thresholds = options.thresholds ? checkThresholds(options.thresholds, Object.keys(options.metrics ?? {})) : undefined
  const planned = planEvaluation(decisions, settings, options.onWarning ?? console.warn)
  // stopEarly: rows in a seeded random order, a look after every batch (docs/stopping-early.md).
  const stop = options.stopEarly ? new EarlyStop(planned, settings, options.stopEarly, thresholds ?? {}, options.baseline) : undefined
  const plan = stop?.plan ?? planned
  // calibrated: one content-free request per distinct (criterion, ordering), scored first.
  const priors = debias === 'calibrated' ? await scoreContentFree(score, contentFreeCriteria(plan), settings) : new Map<string, number[]>()
  // pride: the slot prior per option count, estimated from the sample before any vector is aggregated.
  const slotPriors = new Map<number, number[]>()
  const priorFor: PriorLookup | undefined =
    debias === 'calibrated' ? (c) => priors.get(priorKey(c)) : debias === 'pride' ? (c) => slotPriors.get(c.options.length) : undefined
  const aggregate = new Aggregate(plan, settings, priorFor)

  // Under pride the sampled rows come first, in chunks of their own, held until the prior is known.
  const held: ScoredChunk[] = []
  const release = () => {
    if (held.length === 0) return
    estimatePridePriors(held, plan.orderings, epochs, slotPriors)
    for (const chunk of held.splice(0)) aggregate.add(chunk)
  }
  let requestsScored = priors.size
  for (const { jobs, inSample, rowsDone } of chunks(plan, epochs, settings.chunkSize, stop?.settings.batch)) {
    signal?.throwIfAborted()
    const scored = await scoreChunk(score, plan, jobs, settings, requestsScored)
    requestsScored += jobs.length
    if (inSample) held.push(scored)
    else {
      release()
      aggregate.add(scored)
    }
    options.onProgress?.({ scored: rowsDone, total: plan.rows.length, requestsScored, requestsTotal: plan.requestsTotal + priors.size })
    if (stop?.look(jobs, aggregate)) break
  }
  release() // every row was in the sample (prideFraction 1): the prior comes from all of them
  // A cache's check over the whole run's hits (a remote scorer's live re-check) decides whether the run stands.
  await raceAbort(settleCache(score, signal ?? NEVER_ABORTS), signal)
  aggregate.finish()

  const outcomes = decisionOutcomes(plan, aggregate, settings, { storePrompts: options.storePrompts, withSamples: Boolean(options.metrics), only: stop?.processed })
  const result = assembleResult(plan, aggregate, outcomes, settings, options, {
    startedAt,
    seconds: Math.round(performance.now() - t0) / 1000,
    contentFreeRequests: priors.size,
    slotPriors,
    scorer: options.scorerDescription ?? describeScorer(score),
    cache: cacheBefore ? cacheCountsSince(score, cacheBefore) : undefined,
  })
  if (thresholds) {
    result.manifest.thresholds = thresholds
    // The rule the gate applies with them, so a report of the file (sceptic report) decides the same gate.
    result.manifest.maxFailureRate = settings.maxFailureRate
  }
  return stop ? stop.finish(result, requestsScored) : result
}
