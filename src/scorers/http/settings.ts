/**
 * `openAIScorer`'s options resolved once, before any request: defaults filled in, the
 * endpoints parsed, every bound checked (a ConfigError names the option), the API key
 * read from its environment variable.
 */
import { ConfigError } from '../../core/support/errors.ts'
import { DEFAULT_MAX_RESPONSE_BYTES } from './body.ts'
import type { Endpoint } from './endpoints.ts'
import { OPENAI_SCORER_RULES, OpenAIScorerOptionsSchema, type LetterReadoutMode, type OpenAIScorerOptions } from './options.ts'
import { parseSettings } from '../../core/evaluate/settings.ts'
import { refuseUnknownOptions } from '../../core/support/options.ts'
import { redactUrl } from './redact-url.ts'
import { pooledFetch } from './transport.ts'

/** Everything a request needs, defaults applied (see {@link OpenAIScorerOptions} for each meaning). */
export interface HttpSettings {
  readonly model: string
  readonly api: 'completions' | 'chat'
  readonly mode: 'logprobs' | 'generate'
  /** Requests in flight at once, ≥ 1. */
  readonly concurrency: number
  /** Time limit per attempt, ms. */
  readonly timeoutMs: number
  /** Extra attempts after a retryable failure. */
  readonly retries: number
  /** Extra attempts after a refused connection (one endpoint); within `retries`. */
  readonly connectRetries: number
  /** First back-off delay, ms; doubles per retry. */
  readonly backoffMs: number
  /** How the letters' log-probabilities are asked for: the top-k, or exactly the letters' tokens in a server's dialect. */
  readonly letterReadout: LetterReadoutMode
  /** Where the letters' token ids are looked up (one per endpoint, same order), for an exact readout; empty for `top-k`. */
  readonly tokenizeUrls: readonly URL[]
  readonly topLogprobs: number
  readonly temperature: number
  readonly maxTokens: number
  /** Largest response body read, bytes, ≥ 1. */
  readonly maxResponseBytes: number
  readonly prefixFirst: boolean
  /** How long a failed endpoint is taken out, ms, ≥ 0. */
  readonly endpointBackoffMs: number
  /** The endpoints, in the order given; each label distinct. */
  readonly endpoints: readonly Endpoint[]
  /** Whether there are several endpoints (affinity, failover and per-endpoint labels in messages). */
  readonly several: boolean
  /** Extra request headers (not secrets). */
  readonly headers: Readonly<Record<string, string>> | undefined
  /** The API key read from `apiKeyEnv`, if any. Never logged: every message is scrubbed of it. */
  readonly apiKey: string | undefined
  /** The `fetch` to call: the user's, else keep-alive sockets pooled up to `concurrency`. */
  readonly fetch: typeof fetch
}

/** Resolve and check `options`; a ConfigError names the first bad option. */
export function resolveHttpSettings(options: OpenAIScorerOptions): HttpSettings {
  refuseUnknownOptions(OpenAIScorerOptionsSchema, options, 'openAIScorer options')
  if (!options.model) throw new ConfigError('openAIScorer: `model` is required')
  // Every value against its bounds in the schema (NaN, Infinity, negatives, fractions refused here, not per request).
  parseSettings(OpenAIScorerOptionsSchema, options, OPENAI_SCORER_RULES, { where: 'openAIScorer: ' })
  const {
    model,
    api = 'completions',
    mode = 'logprobs',
    concurrency = 4,
    timeoutMs = 60_000,
    retries = 2,
    connectRetries = 0,
    backoffMs = 500,
    letterReadout = 'top-k',
    topLogprobs = 20,
    temperature = 0,
    maxTokens = 8,
    maxResponseBytes = DEFAULT_MAX_RESPONSE_BYTES,
    prefixFirst = true,
    endpointBackoffMs = 5_000,
  } = options
  if (letterReadout !== 'top-k' && mode === 'generate') throw new ConfigError(`openAIScorer: letterReadout '${letterReadout}' reads log-probabilities; mode 'generate' reads a generated letter (use one or the other)`)
  if (letterReadout === 'sglang' && api === 'chat') throw new ConfigError("openAIScorer: letterReadout 'sglang' posts the prompt to SGLang's native /generate; use api 'completions' (the prompt as text)")
  const endpoints = parseEndpoints(options.baseURL, api, letterReadout)
  // Keep-alive sockets pooled per scorer, up to the concurrency limit per endpoint (a user's `fetch` replaces it).
  const doFetch = (options.fetch ?? pooledFetch(concurrency)) as typeof fetch
  return {
    model,
    api,
    mode,
    concurrency,
    timeoutMs,
    retries,
    connectRetries,
    backoffMs,
    letterReadout,
    tokenizeUrls: letterReadout === 'top-k' ? [] : endpoints.map((endpoint) => tokenizeUrl(endpoint.url, letterReadout)),
    topLogprobs,
    temperature,
    maxTokens,
    maxResponseBytes,
    prefixFirst,
    endpointBackoffMs,
    endpoints,
    several: endpoints.length > 1,
    headers: options.headers,
    apiKey: readApiKey(options.apiKeyEnv),
    fetch: doFetch,
  }
}

/**
 * One {@link Endpoint} per base URL, the API path appended (any query kept in place): SGLang's
 * native `/generate` sits beside `/v1`, not under it. Refuses an empty list, a non-URL and a repeat.
 */
function parseEndpoints(baseURL: string | readonly string[], api: 'completions' | 'chat', letterReadout: LetterReadoutMode): Endpoint[] {
  const bases = typeof baseURL === 'string' ? [baseURL] : [...baseURL]
  if (bases.length === 0) throw new ConfigError('openAIScorer: baseURL is an empty list; give at least one endpoint')
  const endpoints: Endpoint[] = bases.map((base) => {
    let url: URL
    try {
      // Append to the path, keeping any query (Azure-style `?api-version=`) in place.
      url = new URL(base)
      const path = url.pathname.replace(/\/+$/, '')
      url.pathname = letterReadout === 'sglang' ? path.replace(/\/v1$/, '') + '/generate' : path + (api === 'chat' ? '/chat/completions' : '/completions')
    } catch {
      throw new ConfigError(`openAIScorer: baseURL ${JSON.stringify(redactUrl(String(base)))} is not a URL`)
    }
    return { url, label: redactUrl(url.href), counts: { requests: 0, failures: 0, failovers: 0 }, downUntil: 0, strikes: 0 }
  })
  if (new Set(endpoints.map((e) => e.label)).size !== endpoints.length) throw new ConfigError('openAIScorer: baseURL lists the same endpoint twice')
  return endpoints
}

/** The tokenize endpoint beside an endpoint's API path: vLLM serves `/tokenize` at the root, SGLang `/v1/tokenize`. */
function tokenizeUrl(posted: URL, letterReadout: Exclude<LetterReadoutMode, 'top-k'>): URL {
  const url = new URL(posted)
  const root = url.pathname.replace(/\/(?:chat\/)?completions$|\/generate$/, '').replace(/\/v1$/, '')
  url.pathname = root + (letterReadout === 'sglang' ? '/v1/tokenize' : '/tokenize')
  return url
}

/** The API key from environment variable `name`; a ConfigError when it is named but unset. */
function readApiKey(name: string | undefined): string | undefined {
  if (name === undefined) return undefined
  const key = process.env[name]
  if (!key) throw new ConfigError(`openAIScorer: the environment variable ${name} (apiKeyEnv) is not set`)
  return key
}
