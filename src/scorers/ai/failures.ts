/** The failure bucket and scrubbed message of one failed decide call. */
import { APICallError, Experimental_DecisionRefusalError, InvalidResponseDataError, JSONParseError, RetryError, TypeValidationError } from 'ai'
import { scoreFailure, type ScoreFailure } from '../../core/scorer/contract.ts'
import type { Scrubber } from '../http/scrub.ts'

/** Longest message kept, in characters (after scrubbing). */
const MESSAGE_MAX = 300

/** Bucket an error of `experimental_decide`; `timedOut` when this call's own time limit fired. */
export function classifyDecideError(error: unknown, timedOut: boolean, { clip }: Scrubber): ScoreFailure {
  const say = (text: string) => clip(text.replace(/\s+/g, ' ').trim(), MESSAGE_MAX)
  if (timedOut) return scoreFailure('timeout', say(`no answer within the time limit`))
  let last = error
  let attempts = 1
  if (RetryError.isInstance(error)) {
    last = error.lastError
    attempts = error.errors.length
  }
  const after = attempts > 1 ? ` (after ${attempts} attempts)` : ''
  if (Experimental_DecisionRefusalError.isInstance(last)) return scoreFailure('refusal', say(`the model refused to answer`))
  if (InvalidResponseDataError.isInstance(last) || TypeValidationError.isInstance(last) || JSONParseError.isInstance(last))
    return scoreFailure('parse_failure', say(`unreadable answer: ${messageOf(last)}`))
  if (APICallError.isInstance(last)) {
    if (last.statusCode !== undefined) return scoreFailure('http_error', say(`HTTP ${last.statusCode}${after}: ${messageOf(last)}`))
    if (isTimeout(last.cause)) return scoreFailure('timeout', say(`timed out${after}: ${messageOf(last)}`))
    return scoreFailure('error', say(`network error${after}: ${messageOf(last)}${causeOf(last)}`))
  }
  if (isTimeout(last)) return scoreFailure('timeout', say(`timed out${after}: ${messageOf(last)}`))
  return scoreFailure('error', say(`${messageOf(last)}${after}`))
}

function messageOf(error: unknown): string {
  if (error instanceof Error) return error.message
  return String(error)
}

function causeOf(error: Error): string {
  const cause = error.cause
  return cause instanceof Error && cause.message !== error.message ? ` (${cause.message})` : ''
}

function isTimeout(error: unknown): boolean {
  const e = error as { name?: unknown; code?: unknown } | undefined
  return e?.name === 'TimeoutError' || e?.code === 'ETIMEDOUT' || e?.code === 'UND_ERR_HEADERS_TIMEOUT' || e?.code === 'UND_ERR_BODY_TIMEOUT'
}
