/**
 * `decisionModelScorer(model)`: score decisions with the AI SDK's `experimental_decide`
 * and a provider's decision model (docs/decision-models.md). One choice question per
 * request (or per state under `batch: 'state'`), options in the order presented; the
 * model's own `choice` is the pick, its distribution (or a one-hot vector flagged
 * `no_distribution`) the probabilities.
 */
import { experimental_decide, Experimental_DecisionRefusalError, RetryError, type Experimental_DecisionModel } from 'ai'
import { deadline, fanOut, raceAbort } from '../../core/support/abort.ts'
import { createHash } from 'node:crypto'
import type { CacheIdentity } from '../../core/scorer/contract.ts'
import { ConfigError } from '../../core/support/errors.ts'
import { NO_DISTRIBUTION } from '../../core/metrics/no-distribution.ts'
import { isMaximalSlot, maximalSlots } from '../../core/evaluate/argmax.ts'
import { scoreFailure, type FallibleScoreFn, type ScoreFailure, type ScoreOutcome, type ScoreRequest } from '../../core/scorer/contract.ts'
import { mapConcurrent } from '../http/concurrency.ts'
import { secretScrubber, type Scrubber } from '../http/scrub.ts'
import { classifyDecideError } from './failures.ts'
import { orderedCriteria, sentKeys, type SentKeys } from './option-keys.ts'
import { DecisionModelScorerOptionsSchema, MAX_QUESTIONS_PER_CALL, type DecisionModelScorerOptions } from './options.ts'
import { refuseOutOfBounds, refuseUnknownOptions } from '../../core/support/options.ts'
import { collectSecrets, modelEndpoint } from './secrets.ts'
import { redactUrl } from '../http/redact-url.ts'


/** A decision model instance (a string id is refused: its provider and model could not be told apart for the cache). */
export type DecisionModelInstance = Exclude<Experimental_DecisionModel, string>

/** What a decision scorer counted since it was created; the manifest's `decide` entry. */
export interface DecideCounts {
  readonly provider: string
  readonly model: string
  readonly batch: 'state' | 'off'
  /** `experimental_decide` calls made (each may retry inside the SDK). */
  calls: number
  /** Questions asked over those calls. */
  questions: number
  /** Token usage summed over the calls that reported it. */
  inputTokens: number
  outputTokens: number
  /** Calls that reported no token usage. */
  usageUnknown: number
  /** Failed requests per bucket. */
  failures: Record<string, number>
}

/** A {@link FallibleScoreFn} over a decision model, with a description, cache identity and counters. */
export type DecisionModelScorer = FallibleScoreFn & {
  /** The report's model line and `manifest.scorer`. */
  readonly description: string
  /** Provider, model id, batching and provider options; hits are re-checked live (docs/cache.md). */
  readonly cacheIdentity: CacheIdentity
  /** Counters since creation. */
  stats(): DecideCounts
  /** What the run's manifest records of this scorer: `{ decide }`. */
  manifestEntries(): { decide: DecideCounts }
}

/** A scorer outcome that names its own pick (the model's `choice`, a maximal slot). */
type PickedScore = { readonly probabilities: number[]; readonly pick: number; readonly flags: string[] }

/**
 * Score requests with `experimental_decide`: `state` = the request's state,
 * `instructions` = the criterion's question (null when absent), `criteria` = the
 * options in the order presented. A ConfigError, before any call, for a model that is
 * not a decision model or does not answer choice questions.
 */
export function decisionModelScorer(model: DecisionModelInstance, options: DecisionModelScorerOptions = {}): DecisionModelScorer {
  refuseUnknownOptions(DecisionModelScorerOptionsSchema, options, 'decisionModelScorer options')
  refuseOutOfBounds(DecisionModelScorerOptionsSchema, options, 'decisionModelScorer: ')
  const { provider, modelId } = checkModel(model)
  const concurrency = positiveInteger(options.concurrency ?? 8, 'concurrency')
  const maxRetries = options.maxRetries ?? 2
  if (!Number.isInteger(maxRetries) || maxRetries < 0) throw new ConfigError(`decisionModelScorer: maxRetries must be an integer ≥ 0, got ${String(maxRetries)}`)
  const timeoutMs = options.timeoutMs ?? 60_000
  if (!(timeoutMs > 0) || !Number.isFinite(timeoutMs)) throw new ConfigError(`decisionModelScorer: timeoutMs must be a positive number, got ${String(timeoutMs)}`)
  const batch = options.batch ?? false
  if (batch !== false && batch !== 'state') throw new ConfigError(`decisionModelScorer: batch must be 'state' or false, got ${JSON.stringify(batch)}`)
  const counts: DecideCounts = { provider, model: modelId, batch: batch === 'state' ? 'state' : 'off', calls: 0, questions: 0, inputTokens: 0, outputTokens: 0, usageUnknown: 0, failures: {} }
  let scrubber: Promise<Scrubber> | undefined

  const ask = async (requests: readonly ScoreRequest[], prepared: readonly Prepared[], group: readonly number[], scrub: Scrubber, signal: AbortSignal | undefined): Promise<ScoreOutcome[]> => {
    const names = questionNames(group.map((i) => requests[i]!.criterion.key))
    const questions = Object.fromEntries(
      group.map((i, k) => [names[k]!, { type: 'choice' as const, instructions: requests[i]!.criterion.question ?? null, criteria: prepared[i]!.criteria }]),
    )
    const limit = deadline(timeoutMs, () => new Error('decision call timed out'), signal)
    counts.calls++
    counts.questions += group.length
    try {
      // A model that ignores its abort signal still loses the race: the time limit ends the call.
      const result = await raceAbort(experimental_decide({
        model,
        state: requests[group[0]!]!.state,
        questions,
        maxRetries,
        abortSignal: limit.signal,
        ...(options.headers ? { headers: options.headers } : {}),
        ...(options.providerOptions ? { providerOptions: options.providerOptions } : {}),
      }), limit.signal)
      const { inputTokens, outputTokens } = result.usage ?? {}
      if (inputTokens === undefined && outputTokens === undefined) counts.usageUnknown++
      counts.inputTokens += inputTokens ?? 0
      counts.outputTokens += outputTokens ?? 0
      const answers = result.answers as Record<string, unknown>
      return group.map((i, k) => outcomeOf(answers[names[k]!], prepared[i]!.keys, requests[i]!, scrub))
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      const timedOut = limit.signal.aborted
      const failure = classifyDecideError(error, timedOut, scrub)
      const refused = refusedQuestions(error)
      // One refused question fails the whole call: ask the others again, each alone.
      if (group.length > 1 && failure.failure === 'refusal' && refused) {
        return Promise.all(
          group.map((i, k) => (refused.has(names[k]!) ? Promise.resolve<ScoreOutcome>(failure) : ask(requests, prepared, [i], scrub, signal).then((out) => out[0]!))),
        )
      }
      return group.map(() => failure)
    } finally {
      limit.clear()
    }
  }

  const score: FallibleScoreFn = async (requests, context) => {
    const signal = context?.signal
    signal?.throwIfAborted()
    // Every request's order is checked before the first call: a ConfigError spends nothing.
    const prepared = requests.map((request): Prepared => {
      const keys = sentKeys(request.criterion)
      return { keys, criteria: orderedCriteria(request.criterion, keys) }
    })
    const scrub = await (scrubber ??= collectSecrets(model, options.headers, options.secrets ?? []).then(secretScrubber))
    const groups = batch === 'state' ? groupByState(requests) : requests.map((_, i) => [i])
    const out: ScoreOutcome[] = new Array(requests.length)
    // One listener on the run's signal, whatever the concurrency (Node warns past 10 on one signal).
    const shared = signal ? fanOut(signal) : undefined
    try {
      await mapConcurrent(groups, concurrency, async (group) => {
        shared?.signal.throwIfAborted()
        const answers = await ask(requests, prepared, group, scrub, shared?.signal)
        group.forEach((i, k) => (out[i] = answers[k]!))
      })
    } finally {
      shared?.release()
    }
    for (const outcome of out)
      if ('failure' in outcome) counts.failures[(outcome as ScoreFailure).failure] = (counts.failures[(outcome as ScoreFailure).failure] ?? 0) + 1
    return out
  }

  const snapshot = (): DecideCounts => ({ ...counts, failures: { ...counts.failures } })
  return Object.assign(score, {
    description: options.description ?? `decide ${provider} ${modelId}`,
    cacheIdentity: decideIdentity(model, provider, modelId, counts.batch, options),
    stats: snapshot,
    manifestEntries: () => ({ decide: snapshot() }),
  })
}

/** The cache identity of a decision scorer: everything that decides the answer. */
function decideIdentity(model: unknown, provider: string, modelId: string, batch: 'state' | 'off', options: DecisionModelScorerOptions): CacheIdentity {
  return {
    kind: 'decide',
    label: `${provider} ${modelId}`,
    // A provider may change the model behind an id: hits are re-checked live.
    remote: true,
    // The endpoint (its query digested: it may hold a key) and the headers sent (digested) decide the answer too.
    settings: {
      provider,
      modelId,
      batch,
      providerOptions: options.providerOptions ?? null,
      endpoint: endpointId(model),
      headers: options.headers ? digest(JSON.stringify(Object.entries(options.headers).sort())) : null,
    },
  }
}

/** A short digest of a setting that may carry a secret: what the cache key needs, nothing readable. */
function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 32)
}

/** The model's endpoint without its credentials, plus a digest of its query (which may select an API version or hold a key); null when the provider hides it. */
function endpointId(model: unknown): string | null {
  const href = modelEndpoint(model)
  if (href === undefined) return null
  const query = /\?[^#]*/.exec(href)?.[0] ?? ''
  return `${redactUrl(href)}${query ? ` query:${digest(query)}` : ''}`
}

interface Prepared {
  readonly keys: SentKeys
  readonly criteria: Record<string, string>
}

/** The model's answer as a scorer outcome: its distribution (or one-hot) over the slots, its choice as the pick. */
function outcomeOf(answer: unknown, keys: SentKeys, request: ScoreRequest, { clip }: Scrubber): ScoreOutcome {
  const bad = (why: string) => scoreFailure('parse_failure', clip(why, 300))
  const a = answer as { type?: unknown; choice?: unknown; probabilities?: unknown } | undefined
  if (a?.type !== 'choice' || typeof a.choice !== 'string') return bad(`the model gave no choice for criterion "${request.criterion.key}"`)
  const pick = keys.back.get(a.choice)
  if (pick === undefined) return bad(`the model chose "${a.choice}", which is not an option of criterion "${request.criterion.key}"`)
  if (a.probabilities == null) {
    const probabilities = keys.sent.map((_, slot) => (slot === pick ? 1 : 0))
    return { probabilities, flags: [NO_DISTRIBUTION] }
  }
  const given = a.probabilities as Record<string, unknown>
  const probabilities = keys.sent.map((key) => (Object.hasOwn(given, key) ? given[key] : undefined))
  if (!probabilities.every((p): p is number => typeof p === 'number' && Number.isFinite(p) && p >= 0))
    return bad(`the model's probabilities for criterion "${request.criterion.key}" do not cover every option with a number ≥ 0`)
  if (!probabilities.some((p) => p > 0)) return bad(`the model's probabilities for criterion "${request.criterion.key}" are all zero`)
  if (!isMaximalSlot(probabilities, pick)) return bad(`the model chose "${a.choice}", which is not its most probable option`)
  // A unique maximum is the choice already; only a tie (common after rounding) needs the pick stated.
  // A vector without a stated pick is what the score cache can hold.
  return maximalSlots(probabilities).length > 1 ? ({ probabilities, pick, flags: [] } satisfies PickedScore as ScoreOutcome) : probabilities
}

/** Request indices grouped by state (first appearance order), each group at most MAX_QUESTIONS_PER_CALL long. */
function groupByState(requests: readonly ScoreRequest[]): number[][] {
  const byState = new Map<string, number[][]>()
  const groups: number[][] = []
  requests.forEach((request, i) => {
    const list = byState.get(request.state) ?? byState.set(request.state, []).get(request.state)!
    let last = list[list.length - 1]
    if (!last || last.length >= MAX_QUESTIONS_PER_CALL) {
      last = []
      list.push(last)
      groups.push(last)
    }
    last.push(i)
  })
  return groups
}

/** Question names for one call: the criterion keys, repeats numbered (`queue`, `queue_2`, …). */
function questionNames(keys: readonly string[]): string[] {
  const used = new Set<string>()
  return keys.map((key) => {
    let name = key
    for (let n = 2; used.has(name); n++) name = `${key}_${n}`
    used.add(name)
    return name
  })
}

/** The question ids a refusal names, or undefined for any other error. */
function refusedQuestions(error: unknown): Set<string> | undefined {
  const last = RetryError.isInstance(error) ? error.lastError : error
  return Experimental_DecisionRefusalError.isInstance(last) ? new Set(last.questionIds) : undefined
}

/** The model's provider and id, or a ConfigError when it is not a decision model that answers choice questions. */
function checkModel(model: unknown): { provider: string; modelId: string } {
  if (typeof model === 'string')
    throw new ConfigError(`decisionModelScorer: got the string ${JSON.stringify(model)}; pass a decision model instance, e.g. openai.decisionModel(${JSON.stringify(model)})`)
  const m = model as { specificationVersion?: unknown; provider?: unknown; modelId?: unknown; doDecide?: unknown; doEvaluate?: unknown; supportedQuestionTypes?: unknown } | null
  const callable = typeof m?.doDecide === 'function' || typeof m?.doEvaluate === 'function'
  if (!m || typeof m !== 'object' || m.specificationVersion !== 'v4' || !callable || !Array.isArray(m.supportedQuestionTypes)) {
    const what = m && typeof m === 'object' && typeof m.modelId === 'string' ? `${String(m.provider)} ${m.modelId}` : String(m === null ? null : typeof m)
    throw new ConfigError(`decisionModelScorer: ${what} is not an AI SDK 7 decision model; pass provider.decisionModel(id)`)
  }
  const provider = String(m.provider)
  const modelId = String(m.modelId)
  if (!m.supportedQuestionTypes.includes('choice'))
    throw new ConfigError(
      `decisionModelScorer: ${provider} ${modelId} does not answer choice questions (it supports ${m.supportedQuestionTypes.map(String).join(', ') || 'none'})`,
    )
  return { provider, modelId }
}

function positiveInteger(value: number, name: string): number {
  if (!Number.isInteger(value) || value < 1) throw new ConfigError(`decisionModelScorer: ${name} must be an integer ≥ 1, got ${String(value)}`)
  return value
}
