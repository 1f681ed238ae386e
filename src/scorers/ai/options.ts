/** The options of `decisionModelScorer` (docs/decision-models.md). */
import type { experimental_decide } from 'ai'
import { z } from 'zod'
import { MAX_TIMER_MS } from '../../core/support/abort.ts'
import type { SameKeys } from '../../core/support/options.ts'

/** `providerOptions` as `experimental_decide` takes it. */
export type DecideProviderOptions = NonNullable<Parameters<typeof experimental_decide>[0]['providerOptions']>

/** Options for {@link decisionModelScorer}. */
export interface DecisionModelScorerOptions {
  /** Retries of a failed call by the AI SDK (`maxRetries` of `experimental_decide`). Default 2. */
  maxRetries?: number
  /** Calls in flight at once. Default 8. */
  concurrency?: number
  /** Time limit per call, retries included, in milliseconds; a call past it is a `timeout` failure. Default 60,000. */
  timeoutMs?: number
  /** Extra request headers (scrubbed from messages like secrets). */
  headers?: Record<string, string>
  /** Provider-specific options, passed through (`providerOptions` of `experimental_decide`). */
  providerOptions?: DecideProviderOptions
  /** The report's model line. Default `decide <provider> <model id>`. */
  description?: string
  /**
   * `'state'`: the requests that share a state (the orderings of a decision, several
   * criteria on one state) go in one call as several questions, at most
   * {@link MAX_QUESTIONS_PER_CALL}. Off by default: providers do not promise that
   * questions in one call do not see each other.
   */
  batch?: 'state' | false
  /** More strings to scrub from every message (keys the provider holds where the scorer cannot see them). */
  secrets?: readonly string[]
}

/** Most retries of one call: the AI SDK doubles its wait per retry (2 s, 4 s, …), so ten already wait about half an hour. */
export const MAX_AI_RETRIES = 10

/** Most questions sent in one call under `batch: 'state'`. */
export const MAX_QUESTIONS_PER_CALL = 32

/** The keys of {@link DecisionModelScorerOptions}, checked where they are given. */
export const DecisionModelScorerOptionsSchema = z.strictObject({
  // Every number bounded: the AI SDK's back-off doubles per retry, and setTimeout reads a longer wait as 1 ms.
  maxRetries: z.number().int().min(0).max(MAX_AI_RETRIES).optional(),
  concurrency: z.number().int().min(1).max(1024).optional(),
  timeoutMs: z.number().int().min(1).max(MAX_TIMER_MS).optional(),
  headers: z.record(z.string(), z.string()).optional(),
  // Provider-specific: passed through as given, its keys are the provider's.
  providerOptions: z.custom<DecideProviderOptions>().optional(),
  description: z.string().optional(),
  batch: z.union([z.literal('state'), z.literal(false)]).optional(),
  secrets: z.array(z.string()).readonly().optional(),
})
true satisfies SameKeys<z.input<typeof DecisionModelScorerOptionsSchema>, DecisionModelScorerOptions>
