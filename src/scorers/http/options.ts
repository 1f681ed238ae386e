/** The options of `openAIScorer` (docs/remote-scorers.md): what a user passes in. */
import { z } from 'zod'
import type { SameKeys } from '../../core/support/options.ts'

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

/** The keys of {@link OpenAIScorerOptions}, checked where they are given (`baseUrl` is refused: did you mean `baseURL`?). */
export const OpenAIScorerOptionsSchema = z.strictObject({
  baseURL: z.union([z.string(), z.array(z.string()).readonly()]),
  model: z.string(),
  api: z.enum(['completions', 'chat']).optional(),
  mode: z.enum(['logprobs', 'generate']).optional(),
  apiKeyEnv: z.string().optional(),
  concurrency: z.number().optional(),
  timeoutMs: z.number().optional(),
  retries: z.number().optional(),
  connectRetries: z.number().optional(),
  backoffMs: z.number().optional(),
  topLogprobs: z.number().optional(),
  temperature: z.number().optional(),
  maxTokens: z.number().optional(),
  maxResponseBytes: z.number().optional(),
  // Header names are the user's data, not options.
  headers: z.record(z.string(), z.string()).optional(),
  prefixFirst: z.boolean().optional(),
  endpointBackoffMs: z.number().optional(),
  fetch: z.custom<typeof fetch>().optional(),
})
true satisfies SameKeys<z.input<typeof OpenAIScorerOptionsSchema>, OpenAIScorerOptions>
