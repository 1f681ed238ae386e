/** Closing a scorer the CLI opened, within a time bound. */
import { raceAbort } from '../core/support/abort.ts'
import { ScorerError } from '../core/support/errors.ts'

/** Default bound on a scorer's `close()`, in ms: long enough for an ONNX batch in flight to finish. */
export const DEFAULT_CLOSE_TIMEOUT_MS = 30_000

/** The bound on `close()`: `SCEPTIC_CLOSE_TIMEOUT_SECONDS` when set to a positive number, else {@link DEFAULT_CLOSE_TIMEOUT_MS}. */
export function closeTimeoutMs(env: NodeJS.ProcessEnv = process.env): number {
  const seconds = Number(env.SCEPTIC_CLOSE_TIMEOUT_SECONDS)
  return seconds > 0 && Number.isFinite(seconds) ? seconds * 1000 : DEFAULT_CLOSE_TIMEOUT_MS
}

/**
 * Call a scorer's `close()` and wait at most `ms` for it. Never throws: returns a
 * {@link ScorerError} when close threw, rejected or did not settle in time, so the
 * caller decides which error to report (an earlier one wins). The timer holds the
 * process alive while it waits, so a close that never settles cannot end the run early.
 */
export async function closeScorer(close: (() => unknown) | undefined, ms: number): Promise<ScorerError | undefined> {
  if (!close) return undefined
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<ScorerError>((resolve) => {
    timer = setTimeout(() => resolve(new ScorerError(`the scorer's close() did not settle within ${ms / 1000} s`)), ms)
  })
  const closed = (async () => {
    try {
      await close()
      return undefined
    } catch (error) {
      const message = String((error as Error)?.message ?? error).split('\n')[0]
      return new ScorerError(`the scorer's close() failed: ${message}`, { cause: error })
    }
  })()
  try {
    return await Promise.race([closed, timedOut])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * Load a scorer, use it, close it. Loading and use stop waiting when `signal` aborts
 * (rejecting with its reason); the close is bounded by {@link closeScorer}. A close
 * that fails after a successful use is the error thrown; after a failed use, the use's
 * error is thrown and the close's failure is dropped.
 */
export async function useScorer<S extends { readonly close?: () => unknown }, R>(
  load: () => Promise<S>,
  use: (scorer: S) => Promise<R>,
  signal: AbortSignal | undefined,
  ms: number = closeTimeoutMs(),
): Promise<R> {
  const scorer = await raceAbort(load(), signal)
  let result: R
  try {
    result = await use(scorer)
  } catch (error) {
    await closeScorer(scorer.close, ms)
    throw error
  }
  const closeError = await closeScorer(scorer.close, ms)
  if (closeError) throw closeError
  return result
}
