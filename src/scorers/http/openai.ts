/** `openAIScorer`: score decisions with an OpenAI-compatible completions endpoint (docs/remote-scorers.md). */
import type { CacheIdentity } from '../../cache/key.ts'
import { fanOut } from '../../core/abort.ts'
import type { FallibleScoreFn, ScoreRequest } from '../../core/score.ts'
import { mapConcurrent } from './concurrency.ts'
import { affinityKey, endpointCounts, type EndpointCounts } from './endpoints.ts'
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
  const settings = resolveHttpSettings(options)
  // Every message is scrubbed whole before it is cut, so no cut point can leave part of a key.
  const scrubber = secretScrubber([settings.apiKey])
  const stats: RequestStats = { attempts: 0, retries: 0, failures: {}, missingLogprobs: 0 }
  const one = (request: ScoreRequest, context: Parameters<FallibleScoreFn>[1]) => {
    context?.signal.throwIfAborted()
    return scoreOne(settings, scrubber, stats, request, context?.signal)
  }
  const score: FallibleScoreFn = async (requests, context) => {
    // Every request in flight waits on the run's signal: through one fan-out, not a listener each.
    const fan = context ? fanOut(context.signal) : undefined
    const call = fan ? { signal: fan.signal } : undefined
    try {
      return await (settings.prefixFirst
        ? mapPrefixFirst(requests, affinityKey, settings.concurrency, (request) => one(request, call))
        : mapConcurrent(requests, settings.concurrency, (request) => one(request, call)))
    } finally {
      fan?.release()
    }
  }
  return Object.assign(score, {
    ...identity(settings),
    stats: () => ({ ...structuredClone(stats), endpoints: endpointCounts(settings.endpoints) }),
    manifestEntries: () => ({ endpoints: endpointCounts(settings.endpoints) }),
  })
}

/** The scorer's report line and cache identity: endpoint(s) without credentials, model, API, mode and sampling settings; never the key. */
function identity({ endpoints, several, model, api, mode, temperature, maxTokens, topLogprobs }: HttpSettings): Pick<OpenAIScorer, 'description' | 'cacheIdentity'> {
  const where = several ? `${endpoints.length} replicas (${endpoints.map((e) => e.label).join(', ')})` : redactUrl(endpoints[0]!.url.href)
  return {
    description: `openai ${model} ${api}${mode === 'generate' ? ' generate' : ''} at ${where}`,
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
        ...(mode === 'generate' ? { temperature, maxTokens } : { topLogprobs }),
      },
    },
  }
}
