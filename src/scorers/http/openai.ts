/** `openAIScorer`: score decisions with an OpenAI-compatible completions endpoint (docs/remote-scorers.md). */
import type { CacheIdentity } from '../../cache/key.ts'
import { ConfigError } from '../../core/errors.ts'
import { scoreFailure, type FailureReason, type FallibleScoreFn, type ScoreOutcome, type ScoreRequest } from '../../core/score.ts'
import { BodyTooLargeError, DEFAULT_MAX_RESPONSE_BYTES, readCappedText } from './body.ts'
import { mapConcurrent, sleep } from './concurrency.ts'
import { secretScrubber } from './scrub.ts'
import { absurdLogprob, asLogprob, parseAnswerLetter, readLetters, type TokenLogprob } from './letters.ts'
import { affinityKey, choose, endpointCounts, rank, settle, type Endpoint, type EndpointCounts } from './endpoints.ts'
import { mapPrefixFirst } from './prefix-first.ts'
import { pooledFetch } from './transport.ts'

/** Options for {@link openAIScorer}. */
export interface OpenAIScorerOptions {
  /**
   * API root as for the OpenAI SDK, ending in `/v1`, e.g. `http://127.0.0.1:8000/v1`; or
   * several roots serving the same model (replicas). With several, every request of a
   * decision goes to one endpoint chosen by rendezvous hashing, an endpoint that fails is
   * taken out for a back-off period, and its decisions go to the next (docs/scaling-out.md).
   */
  baseURL: string | readonly string[]
  /** Model name sent in each request body. */
  model: string
  /** `completions` (default) posts `prompt` to `/completions`; `chat` posts one user message to `/chat/completions`. */
  api?: 'completions' | 'chat'
  /**
   * `logprobs` (default) reads the letters' log-probabilities at the answer position
   * (`max_tokens: 1`). `generate` samples a short answer and reads the letter from the
   * text: a one-hot vector, for endpoints that give no log-probabilities.
   */
  mode?: 'logprobs' | 'generate'
  /**
   * Name of the environment variable holding the API key (e.g. `OPENAI_API_KEY`). The
   * key is read when the scorer is created, sent only in the Authorization header, and
   * scrubbed from every message this scorer produces. Omit for keyless local servers.
   */
  apiKeyEnv?: string
  /** Requests in flight at once. Default 4. */
  concurrency?: number
  /** Time limit per attempt, in milliseconds. Default 60,000. */
  timeoutMs?: number
  /** Extra attempts after a timeout, a 429, a 5xx or a network error. Default 2. */
  retries?: number
  /** First back-off delay in milliseconds; doubles per retry. A `Retry-After` header (≤ 30 s) wins. Default 500. */
  backoffMs?: number
  /** Top log-probabilities to ask for (OpenAI allows at most 20). Default 20. */
  topLogprobs?: number
  /** Sampling temperature in `generate` mode (log-prob modes always use 0). Default 0. */
  temperature?: number
  /** Tokens to generate in `generate` mode. Default 8. */
  maxTokens?: number
  /**
   * Largest response body read, in bytes. Default 8 MiB. A bigger body is not read
   * past the cap: that request is a counted failure (`error`) and memory stays bounded.
   */
  maxResponseBytes?: number
  /** Extra request headers (not secrets: they are not scrubbed). */
  headers?: Record<string, string>
  /**
   * Send one ordering of each decision first and its other orderings (and epochs) only
   * once it returned, so a server's prefix cache already holds the shared prompt; other
   * decisions fill the concurrency window meanwhile. Default true.
   */
  prefixFirst?: boolean
  /** How long an endpoint that failed (connection error, timeout, 429, 5xx) is taken out, in ms; doubles per consecutive failure up to 60 s. Only with several endpoints. Default 5,000. */
  endpointBackoffMs?: number
  /** `fetch` to use (for tests or proxies). Default the global `fetch`. */
  fetch?: typeof fetch
}

/** Counts kept by an {@link openAIScorer} across calls. */
export interface OpenAIScorerStats {
  /** HTTP attempts made, retries included. */
  attempts: number
  /** Retries made. */
  retries: number
  /** Requests that ended as failures, by bucket. */
  failures: Partial<Record<FailureReason, number>>
  /** Requests answered with some letters floored (`missing_logprobs`). */
  missingLogprobs: number
  /** Attempts, failures and failovers per endpoint, keyed by its URL without credentials or query. */
  endpoints: Record<string, EndpointCounts>
}

/** A {@link FallibleScoreFn} for an OpenAI-compatible server, with a description and counters. */
export type OpenAIScorer = FallibleScoreFn & {
  /** The scorer's description, `openai <model> <api> at <origin+path>`, without credentials: the report's model line and `manifest.scorer`. */
  readonly description: string
  /** Counters since creation. */
  stats(): OpenAIScorerStats
  /** What the run's manifest records of this scorer: `{ endpoints }` (counts per endpoint, no credentials). */
  manifestEntries(): { endpoints: Record<string, EndpointCounts> }
  /**
   * What decides this scorer's vectors, for the score cache (docs/cache.md): the
   * endpoint without credentials or query, model, API, mode and every sampling
   * parameter. Never the API key.
   */
  readonly cacheIdentity: CacheIdentity
}

/**
 * Score requests against an OpenAI-compatible server (vLLM, llama.cpp server, TGI,
 * or a hosted API). Each request becomes one HTTP call, at most `concurrency` at a
 * time, results kept in request order. A request that cannot be scored after its
 * retries comes back as a failure (`timeout`, `no_logprobs`, `parse_failure`,
 * `http_error`, `error`) and its decision is counted as failed, never dropped.
 */
export function openAIScorer(options: OpenAIScorerOptions): OpenAIScorer {
  const {
    model,
    api = 'completions',
    mode = 'logprobs',
    concurrency = 4,
    timeoutMs = 60_000,
    retries = 2,
    backoffMs = 500,
    topLogprobs = 20,
    temperature = 0,
    maxTokens = 8,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    prefixFirst = true,
    endpointBackoffMs = 5_000,
  } = options
  const bases = typeof options.baseURL === 'string' ? [options.baseURL] : [...options.baseURL]
  if (bases.length === 0) throw new ConfigError('openAIScorer: baseURL is an empty list; give at least one endpoint')
  const endpoints: Endpoint[] = bases.map((base) => {
    let url: URL
    try {
      // Append to the path, keeping any query (Azure-style `?api-version=`) in place.
      url = new URL(base)
      url.pathname = url.pathname.replace(/\/+$/, '') + (api === 'chat' ? '/chat/completions' : '/completions')
    } catch {
      throw new ConfigError(`openAIScorer: baseURL ${JSON.stringify(redactUrl(String(base)))} is not a URL`)
    }
    return { url, label: redactUrl(url.href), counts: { requests: 0, failures: 0, failovers: 0 }, downUntil: 0, strikes: 0 }
  })
  const labels = new Set(endpoints.map((e) => e.label))
  if (labels.size !== endpoints.length) throw new ConfigError('openAIScorer: baseURL lists the same endpoint twice')
  if (!(endpointBackoffMs >= 0)) throw new ConfigError(`openAIScorer: endpointBackoffMs must be ≥ 0, got ${endpointBackoffMs}`)
  const url = endpoints[0]!.url
  if (!model) throw new ConfigError('openAIScorer: `model` is required')
  if (!(concurrency >= 1)) throw new ConfigError(`openAIScorer: concurrency must be ≥ 1, got ${concurrency}`)
  if (!(Number.isInteger(maxResponseBytes) && maxResponseBytes >= 1))
    throw new ConfigError(`openAIScorer: maxResponseBytes must be an integer ≥ 1, got ${maxResponseBytes}`)

  // Keep-alive sockets pooled per scorer, up to the concurrency limit (a user's `fetch` replaces it).
  const doFetch = (options.fetch ?? pooledFetch(concurrency)) as typeof fetch

  let apiKey: string | undefined
  if (options.apiKeyEnv !== undefined) {
    apiKey = process.env[options.apiKeyEnv]
    if (!apiKey) throw new ConfigError(`openAIScorer: the environment variable ${options.apiKeyEnv} (apiKeyEnv) is not set`)
  }
  // Every message is scrubbed whole before it is cut, so no cut point can leave part of a key.
  const { scrub, clip } = secretScrubber([apiKey])
  const stats: Omit<OpenAIScorerStats, 'endpoints'> = { attempts: 0, retries: 0, failures: {}, missingLogprobs: 0 }
  const several = endpoints.length > 1

  const body = (request: ScoreRequest) => {
    const common = { model, max_tokens: mode === 'generate' ? maxTokens : 1, temperature: mode === 'generate' ? temperature : 0 }
    const logprobs =
      mode === 'generate' ? {} : api === 'chat' ? { logprobs: true, top_logprobs: topLogprobs } : { logprobs: topLogprobs }
    const input = api === 'chat' ? { messages: [{ role: 'user', content: request.prompt }] } : { prompt: request.prompt }
    return JSON.stringify({ ...common, ...input, ...logprobs })
  }

  /** One request, with retries; never throws for a per-request problem. */
  const scoreOne = async (request: ScoreRequest, signal: AbortSignal | undefined): Promise<ScoreOutcome> => {
    const optionCount = request.criterion.options.length
    let last: { reason: FailureReason; message: string } = { reason: 'error', message: 'not attempted' }
    let retryAfter: number | undefined
    const ranked = rank(endpoints, several ? affinityKey(request) : '')
    for (let attempt = 0; attempt <= retries; attempt++) {
      if (attempt > 0) {
        stats.retries++
        await sleep(retryAfter ?? backoffMs * 2 ** (attempt - 1), signal)
      }
      signal?.throwIfAborted()
      retryAfter = undefined
      stats.attempts++
      const chosen = choose(ranked, Date.now())
      const target = chosen.endpoint
      target.counts.requests++
      if (chosen.failover) target.counts.failovers++
      const endpoint = several ? `POST ${target.label}` : `POST ${target.url.pathname}`
      /** This attempt's verdict on the endpoint: a failure takes it out (with several). */
      const health = (ok: boolean) => settle(target, ok, endpointBackoffMs, Date.now(), several)
      let response: Response
      try {
        response = await doFetch(target.url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            ...options.headers,
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
          },
          body: body(request),
          signal: signal ? AbortSignal.any([AbortSignal.timeout(timeoutMs), signal]) : AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        // The run was cancelled: no failure to count, the evaluator reports the cancellation.
        if (signal?.aborted) throw signal.reason
        health(false)
        const name = (error as Error)?.name
        last =
          name === 'TimeoutError' || name === 'AbortError'
            ? { reason: 'timeout', message: `${endpoint} took longer than ${timeoutMs} ms` }
            : { reason: 'error', message: `${endpoint} failed: ${scrub(causeMessage(error))}` }
        continue
      }
      let text: string
      try {
        text = await readCappedText(response, maxResponseBytes)
      } catch (error) {
        if (signal?.aborted) throw signal.reason
        health(error instanceof BodyTooLargeError)
        last =
          error instanceof BodyTooLargeError
            ? { reason: 'error', message: `${endpoint}: ${error.message}` }
            : (error as Error)?.name === 'TimeoutError'
            ? { reason: 'timeout', message: `${endpoint} body took longer than ${timeoutMs} ms` }
            : { reason: 'error', message: `${endpoint} body could not be read: ${scrub(causeMessage(error))}` }
        continue
      }
      if (!response.ok) {
        last = { reason: 'http_error', message: `HTTP ${response.status} from ${endpoint}: ${clip(text, 200)}` }
        if (response.status === 429 || response.status >= 500) {
          health(false)
          const seconds = Number(response.headers.get('retry-after'))
          if (Number.isFinite(seconds) && seconds >= 0 && seconds <= 30) retryAfter = seconds * 1000
          continue
        }
        health(true)
        break // another 4xx will not get better by asking again
      }
      health(true)
      let json: any
      try {
        json = JSON.parse(text)
      } catch {
        last = { reason: 'parse_failure', message: `${endpoint} returned a body that is not JSON: ${clip(text, 120)}` }
        break
      }
      const read = mode === 'generate' ? readGenerated(json, api, optionCount, clip) : readLogprobs(json, api, optionCount)
      if ('failure' in read) {
        last = { reason: read.failure, message: `${endpoint}: ${scrub(read.message)}` }
        break
      }
      if (read.missing.length > 0) {
        stats.missingLogprobs++
        return { probabilities: read.probabilities, flags: ['missing_logprobs'] }
      }
      return read.probabilities
    }
    stats.failures[last.reason] = (stats.failures[last.reason] ?? 0) + 1
    return scoreFailure(last.reason, last.message)
  }

  const one = (request: ScoreRequest) => (context: Parameters<FallibleScoreFn>[1]) => {
    context?.signal.throwIfAborted()
    return scoreOne(request, context?.signal)
  }
  const score: FallibleScoreFn = (requests, context) =>
    prefixFirst
      ? mapPrefixFirst(requests, affinityKey, concurrency, (request) => one(request)(context))
      : mapConcurrent(requests, concurrency, (request) => one(request)(context))
  const where = several ? `${endpoints.length} replicas (${[...labels].join(', ')})` : redactUrl(url.href)
  return Object.assign(score, {
    description: `openai ${model} ${api}${mode === 'generate' ? ' generate' : ''} at ${where}`,
    stats: () => ({ ...structuredClone(stats), endpoints: endpointCounts(endpoints) }),
    manifestEntries: () => ({ endpoints: endpointCounts(endpoints) }),
    cacheIdentity: {
      kind: 'http',
      label: `${model} at ${where}`,
      settings: {
        // Replicas serve one model: their URLs are deployment, not identity, so adding or
        // moving one keeps the cache valid (docs/cache.md). One URL stays in the key as before.
        url: several ? 'replicas' : redactUrl(url.href),
        model,
        api,
        mode,
        ...(mode === 'generate' ? { temperature, maxTokens } : { topLogprobs }),
      },
    },
  })
}

type Read = { probabilities: number[]; missing: string[] } | { failure: FailureReason; message: string }

/** Letter probabilities from a completions or chat response's first-position top log-probs. */
function readLogprobs(json: any, api: 'completions' | 'chat', optionCount: number): Read {
  const choice = json?.choices?.[0]
  if (!choice) return { failure: 'parse_failure', message: 'response has no choices' }
  const logprobs = choice.logprobs
  let top: TokenLogprob[] | undefined
  if (api === 'chat') {
    const first = logprobs?.content?.[0]?.top_logprobs
    if (Array.isArray(first)) top = first.filter((t: any) => typeof t?.token === 'string').map((t: any) => ({ token: t.token, logprob: asLogprob(t.logprob) }))
  } else {
    const first = logprobs?.top_logprobs?.[0]
    if (first && typeof first === 'object') top = Object.entries(first).map(([token, logprob]) => ({ token, logprob: asLogprob(logprob) }))
  }
  if (!top || top.length === 0) return { failure: 'no_logprobs', message: 'response carries no top log-probabilities (does the server support logprobs?)' }
  const absurd = absurdLogprob(top)
  if (absurd) return { failure: 'parse_failure', message: absurd }
  const read = readLetters(top, optionCount)
  if (!read) return { failure: 'parse_failure', message: `none of the letters A-${String.fromCharCode(64 + optionCount)} is among the top ${top.length} tokens` }
  return read
}

/** A one-hot vector from the letter a generated text answers with. */
function readGenerated(json: any, api: 'completions' | 'chat', optionCount: number, clip: (text: string, max: number) => string): Read {
  const choice = json?.choices?.[0]
  const text = api === 'chat' ? choice?.message?.content : choice?.text
  if (typeof text !== 'string') return { failure: 'parse_failure', message: 'response has no generated text' }
  const index = parseAnswerLetter(text, optionCount)
  if (index === null) return { failure: 'parse_failure', message: `no answer letter in ${JSON.stringify(clip(text, 60))}` }
  return { probabilities: Array.from({ length: optionCount }, (_, i) => (i === index ? 1 : 0)), missing: [] }
}

/** A URL without user:password and query string, for messages and the manifest. */
export function redactUrl(href: string): string {
  try {
    const url = new URL(href)
    url.username = ''
    url.password = ''
    url.search = ''
    return url.href
  } catch {
    return href.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '')
  }
}

function causeMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)
}
