/** `openAIScorer`: score decisions with an OpenAI-compatible completions endpoint (docs/remote-scorers.md). */
import type { CacheIdentity } from '../../core/scorer/contract.ts'
import { fanOut } from '../../core/support/abort.ts'
import { scoreFailure, type FallibleScoreFn, type ScoreRequest } from '../../core/scorer/contract.ts'
import { assignGroups } from './assign.ts'
import { mapConcurrent } from './concurrency.ts'
import { affinityKey, endpointCounts, type Endpoint, type EndpointCounts } from './endpoints.ts'
import { lookUpLetterIds, type LetterIds } from './letter-ids.ts'
import type { OpenAIScorerOptions } from './options.ts'
import { mapPrefixFirst } from './prefix-first.ts'
import { redactUrl } from './redact-url.ts'
import { scoreOne } from './score-one.ts'
import { secretScrubber } from './scrub.ts'
import { resolveHttpSettings, type HttpSettings } from './settings.ts'
import type { OpenAIScorerStats, RequestStats } from './stats.ts'

export type { OpenAIScorerOptions } from './options.ts'
export type { OpenAIScorerStats } from './stats.ts'
export { redactUrl } from './redact-url.ts'

/** A {@link FallibleScoreFn} for an OpenAI-compatible server, with a description and counters. */
export type OpenAIScorer = FallibleScoreFn & {
  /** The scorer's description, `openai <model> <api> at <origin+path>`, without credentials: the report's model line and `manifest.scorer`. */
  readonly description: string
  /** Counters since creation. */
  stats(): OpenAIScorerStats
  /**
   * What the run's manifest records of this scorer: `{ endpoints }` (counts per endpoint, no
   * credentials) and, reading log-probs, `readouts` (requests whose letters were read `exact` or from the `top-k`).
   */
  manifestEntries(): { endpoints: Record<string, EndpointCounts>; readouts?: OpenAIScorerStats['readouts'] }
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
 * time per endpoint, results kept in request order. A request that cannot be scored after its
 * retries comes back as a failure (`timeout`, `no_logprobs`, `parse_failure`,
 * `http_error`, `error`) and its decision is counted as failed, never dropped.
 */
export function openAIScorer(options: OpenAIScorerOptions): OpenAIScorer {
  const settings = resolveHttpSettings(options)
  // Every message is scrubbed whole before it is cut, so no cut point can leave part of a key.
  const scrubber = secretScrubber([settings.apiKey])
  const stats: RequestStats = { attempts: 0, retries: 0, failures: {}, missingLogprobs: 0, readouts: { exact: 0, 'top-k': 0 } }
  // The letters' token ids (an exact readout): looked up once, again after a failed lookup.
  let letterIds: Promise<LetterIds> | undefined
  // Requests assigned to each endpoint and not yet answered (every call's): the loads that bound
  // each one's share. Not a lifetime count: an endpoint back from an outage would take every
  // decision until it caught up.
  const load = new Map<Endpoint, number>()
  const score: FallibleScoreFn = async (requests, context) => {
    // Every request in flight waits on the run's signal: through one fan-out, not a listener each.
    const fan = context ? fanOut(context.signal) : undefined
    const signal = fan?.signal
    try {
      let letters: LetterIds | undefined
      if (settings.letterReadout !== 'top-k') {
        try {
          letters = await (letterIds ??= lookUpLetterIds(settings, signal, scrubber.scrub))
        } catch (error) {
          letterIds = undefined
          if (signal?.aborted) throw signal.reason
          // Nothing can be read exactly without the ids: every request fails, counted, none is read from a top-k instead.
          stats.failures.error = (stats.failures.error ?? 0) + requests.length
          return requests.map(() => scoreFailure('error', scrubber.clip((error as Error).message, 400)))
        }
      }
      const keys = settings.several || settings.prefixFirst ? requests.map(affinityKey) : undefined
      const sizes = settings.several ? groupSizes(keys!) : undefined
      const routes = sizes ? assignGroups(settings.endpoints, load, sizes, Date.now()) : undefined
      // This call's unanswered requests per endpoint: taken off the load as answered, the rest when the call ends (cancelled).
      const unanswered = new Map<Endpoint, number>()
      if (routes) for (const [key, n] of sizes!) unanswered.set(routes.get(key)![0]!, (unanswered.get(routes.get(key)![0]!) ?? 0) + n)
      const answered = (endpoint: Endpoint, n: number) => {
        // At most what is left: a request still in flight after a cancelled call ended was already taken off.
        const take = Math.min(n, unanswered.get(endpoint)!)
        unanswered.set(endpoint, unanswered.get(endpoint)! - take)
        load.set(endpoint, load.get(endpoint)! - take)
      }
      const one = async (request: ScoreRequest, index: number) => {
        const route = routes?.get(keys![index]!)
        try {
          signal?.throwIfAborted()
          return await scoreOne(settings, scrubber, stats, request, signal, route ?? settings.endpoints, letters)
        } finally {
          if (route) answered(route[0]!, 1)
        }
      }
      if (!keys) return await mapConcurrent(requests, settings.concurrency, one)
      // With several endpoints, each has a window of its own (a lane per assigned endpoint).
      const lane = routes ? (index: number) => settings.endpoints.indexOf(routes.get(keys[index]!)![0]!) : undefined
      const run = mapPrefixFirst(requests, (_, index) => (settings.prefixFirst ? keys[index]! : String(index)), settings.concurrency, one, lane)
      return await (routes ? run.finally(() => unanswered.forEach((n, endpoint) => answered(endpoint, n))) : run)
    } finally {
      fan?.release()
    }
  }
  return Object.assign(score, {
    ...identity(settings),
    stats: () => ({ ...structuredClone(stats), endpoints: endpointCounts(settings.endpoints) }),
    manifestEntries: () => ({ endpoints: endpointCounts(settings.endpoints), ...(settings.mode === 'logprobs' ? { readouts: { ...stats.readouts } } : {}) }),
  })
}

/** Requests per affinity key, keys in order of first appearance. */
function groupSizes(keys: readonly string[]): Map<string, number> {
  const sizes = new Map<string, number>()
  for (const key of keys) sizes.set(key, (sizes.get(key) ?? 0) + 1)
  return sizes
}

/** The scorer's report line and cache identity: endpoint(s) without credentials, model, API, mode and sampling settings; never the key. */
function identity({ endpoints, several, model, api, mode, temperature, maxTokens, topLogprobs, letterReadout }: HttpSettings): Pick<OpenAIScorer, 'description' | 'cacheIdentity'> {
  const where = several ? `${endpoints.length} replicas (${endpoints.map((e) => e.label).join(', ')})` : redactUrl(endpoints[0]!.url.href)
  return {
    description: `openai ${model} ${api}${mode === 'generate' ? ' generate' : ''}${letterReadout === 'top-k' ? '' : ` exact letters (${letterReadout})`} at ${where}`,
    cacheIdentity: {
      kind: 'http',
      label: `${model} at ${where}`,
      // A server can load new weights under the same name: hits are re-checked live, unless sampled.
      remote: true,
      sampled: mode === 'generate' && temperature > 0,
      settings: {
        // Replicas serve one model: their URLs are deployment, not identity, so adding or
        // moving one keeps the cache valid (docs/cache.md). One URL stays in the key as before.
        url: several ? 'replicas' : redactUrl(endpoints[0]!.url.href),
        model,
        api,
        mode,
        // An exact readout reads other numbers than the top-k: its own key (the top-k's key is unchanged).
        ...(mode === 'generate' ? { temperature, maxTokens } : letterReadout === 'top-k' ? { topLogprobs } : { letterReadout }),
      },
    },
  }
}
