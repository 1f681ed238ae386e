/** The options of `openAIScorer` (docs/remote-scorers.md): what a user passes in. */
import { z } from 'zod'
import { MAX_TIMER_MS } from '../../core/support/abort.ts'
import type { SameKeys } from '../../core/support/options.ts'
import { thousands } from '../../core/support/thousands.ts'
import { MAX_ENDPOINT_BACKOFF_MS } from './endpoints.ts'

/** Most extra attempts per request: each waits up to {@link MAX_ENDPOINT_BACKOFF_MS}, so a request ends within hours. */
export const MAX_RETRIES = 100

/** How the letters' log-probabilities are asked for (`letterReadout`). */
export type LetterReadoutMode = 'top-k' | 'vllm' | 'sglang'

/** Options for `openAIScorer`. */
export interface OpenAIScorerOptions {
  /**
   * API root as for the OpenAI SDK, ending in `/v1`, e.g. `http://127.0.0.1:8000/v1`; or
   * several roots serving the same model (replicas). With several, every request of a
   * decision goes to one endpoint, chosen by consistent hashing with bounded loads (no
   * endpoint gets more than 1.05 times its share), an endpoint that fails is taken out for a
   * back-off period, and its decisions go to the next (docs/scaling-out.md).
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
  /** Requests in flight at once, per endpoint: each of several replicas gets as many. Default 4. */
  concurrency?: number
  /** Time limit per attempt, in milliseconds. Default 60,000. */
  timeoutMs?: number
  /** Extra attempts after a timeout, a 429, a 5xx or a network error. Default 2. */
  retries?: number
  /**
   * Extra attempts after a refused connection (nothing listens at `baseURL`), within
   * `retries`. Default 0: a server that is down fails the run at once instead of after
   * every request's back-off. Raise it for a server that is still starting. With several
   * endpoints a refused one fails over to the next instead.
   */
  connectRetries?: number
  /** First back-off delay in milliseconds; doubles per retry up to 60 s. A `Retry-After` header (≤ 30 s) wins. Default 500. */
  backoffMs?: number
  /**
   * How the letters' log-probabilities are asked for (docs/remote-scorers.md, "Exact letters").
   * `top-k` (default): the top `topLogprobs` of the answer position, any server; a letter
   * outside them is floored and flagged `missing_logprobs`. `vllm`: exactly the letters'
   * tokens, with `allowed_token_ids` and `return_tokens_as_token_ids` (vLLM started with
   * `--logprobs-mode processed_logprobs`). `sglang`: SGLang's native `/generate` with
   * `token_ids_logprob` (completions API only). The letters' token ids are looked up once on the
   * server's tokenize endpoint. `manifest.readouts` counts the requests read each way.
   */
  letterReadout?: LetterReadoutMode
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

/** The keys of {@link OpenAIScorerOptions}, checked where they are given (`baseUrl` is refused: did you mean `baseURL`?). */
export const OpenAIScorerOptionsSchema = z.strictObject({
  baseURL: z.union([z.string(), z.array(z.string()).readonly()]),
  model: z.string(),
  api: z.enum(['completions', 'chat']).optional(),
  mode: z.enum(['logprobs', 'generate']).optional(),
  apiKeyEnv: z.string().optional(),
  // Every number bounded: finite, whole where it counts, and no wait past setTimeout's limit or the back-off cap.
  concurrency: z.number().int().min(1).max(1024).optional(),
  timeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).optional(),
  retries: z.number().int().min(0).max(MAX_RETRIES).optional(),
  connectRetries: z.number().int().min(0).max(MAX_RETRIES).optional(),
  backoffMs: z.number().int().min(0).max(MAX_ENDPOINT_BACKOFF_MS).optional(),
  letterReadout: z.enum(['top-k', 'vllm', 'sglang']).optional(),
  topLogprobs: z.number().int().min(1).max(100).optional(),
  temperature: z.number().min(0).max(2).optional(),
  maxTokens: z.number().int().min(1).max(100_000).optional(),
  maxResponseBytes: z.number().int().min(1).optional(),
  // Header names are the user's data, not options.
  headers: z.record(z.string(), z.string()).optional(),
  prefixFirst: z.boolean().optional(),
  endpointBackoffMs: z.number().int().min(0).max(MAX_ENDPOINT_BACKOFF_MS).optional(),
  fetch: z.custom<typeof fetch>().optional(),
})
/** Each bounded option's rule, as a ConfigError states it. */
export const OPENAI_SCORER_RULES: Readonly<Record<string, string>> = {
  concurrency: 'an integer ≥ 1 and ≤ 1024',
  timeoutMs: `an integer ≥ 1 and ≤ ${thousands(MAX_TIMER_MS)} (ms)`,
  retries: `an integer ≥ 0 and ≤ ${MAX_RETRIES}`,
  connectRetries: `an integer ≥ 0 and ≤ ${MAX_RETRIES}`,
  backoffMs: `an integer ≥ 0 and ≤ ${thousands(MAX_ENDPOINT_BACKOFF_MS)} (ms)`,
  topLogprobs: 'an integer ≥ 1 and ≤ 100',
  temperature: 'a number ≥ 0 and ≤ 2',
  maxTokens: 'an integer ≥ 1 and ≤ 100,000',
  maxResponseBytes: 'an integer ≥ 1',
  endpointBackoffMs: `an integer ≥ 0 and ≤ ${thousands(MAX_ENDPOINT_BACKOFF_MS)} (ms)`,
  baseURL: 'a URL or a list of URLs',
  model: 'a string',
  api: '`completions` or `chat`',
  mode: '`logprobs` or `generate`',
  letterReadout: '`top-k`, `vllm` or `sglang`',
  apiKeyEnv: 'the name of an environment variable',
  headers: 'an object of string values',
  prefixFirst: 'true or false',
}

true satisfies SameKeys<z.input<typeof OpenAIScorerOptionsSchema>, OpenAIScorerOptions>
