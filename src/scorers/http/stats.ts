/** What an `openAIScorer` counts across calls: attempts, retries, failures by bucket, floored letters, per-endpoint counts. */
import type { FailureReason } from '../../core/scorer/contract.ts'
import type { EndpointCounts } from './endpoints.ts'

/** Counts kept by an `openAIScorer` across calls. */
export interface OpenAIScorerStats {
  /** HTTP attempts made, retries included. */
  attempts: number
  /** Retries made. */
  retries: number
  /** Requests that ended as failures, by bucket. */
  failures: Partial<Record<FailureReason, number>>
  /** Requests answered with some letters floored (`missing_logprobs`). */
  missingLogprobs: number
  /**
   * Requests scored by how their letters were read: `exact` (every letter's tokens asked for by id
   * and given, `letterReadout` `vllm` or `sglang`) or `top-k` (from the top log-probs; a letter
   * outside them floored and flagged). The run's manifest records them as `readouts`.
   */
  readouts: { exact: number; 'top-k': number }
  /** Attempts, failures and failovers per endpoint, keyed by its URL without credentials or query. */
  endpoints: Record<string, EndpointCounts>
}

/** The counters kept per scorer rather than per endpoint (those live on the endpoints). */
export type RequestStats = Omit<OpenAIScorerStats, 'endpoints'>
