/**
 * One HTTP attempt of one request against one endpoint: post, read the capped body,
 * judge the status, parse and read the letters. It reports the endpoint's health for
 * failover and says whether another attempt could help; it never throws for a
 * per-request problem, only when the run was cancelled (the signal's reason).
 */
import { deadline } from '../../core/support/abort.ts'
import type { FailureReason, ScoreRequest } from '../../core/scorer/contract.ts'
import { BodyTooLargeError, readCappedText } from './body.ts'
import { settle, type Endpoint } from './endpoints.ts'
import type { LetterIds } from './letter-ids.ts'
import { readGenerated, readLogprobs, readSglangLetters, type Readout } from './read-response.ts'
import { requestBody } from './request-body.ts'
import type { Scrubber } from './scrub.ts'
import { NULL_BODY, UnusableStatusError } from './transport.ts'
import type { HttpSettings } from './settings.ts'

/** A failed attempt's bucket and its message (scrubbed of secrets). */
export interface AttemptFailure {
  readonly reason: FailureReason
  readonly message: string
}

/** How an attempt ended. */
export type AttemptResult =
  /** Letter probabilities, and the letters floored for lack of a log-prob. */
  | { readonly kind: 'scored'; readonly probabilities: number[]; readonly missing: readonly string[]; readonly readout?: Readout }
  /**
   * A timeout, network error, 429 or 5xx: worth another attempt, after `retryAfter` ms when
   * the server said (≤ 30 s). `refused`: nothing listens at the address (ECONNREFUSED).
   */
  | { readonly kind: 'retry'; readonly failure: AttemptFailure; readonly retryAfter?: number; readonly refused?: boolean }
  /** Another 4xx, or a body that cannot be read as an answer: asking again will not help. */
  | { readonly kind: 'give-up'; readonly failure: AttemptFailure }

/** Post `request` to `target` once (asking for exactly `letters` when given); see {@link AttemptResult}. */
export async function attemptOnce(
  settings: HttpSettings,
  scrubber: Scrubber,
  target: Endpoint,
  request: ScoreRequest,
  signal: AbortSignal | undefined,
  letters?: LetterIds,
): Promise<AttemptResult> {
  const endpoint = settings.several ? `POST ${target.label}` : `POST ${target.url.pathname}`
  /** This attempt's verdict on the endpoint: a failure takes it out (with several). */
  const health = (ok: boolean) => settle(target, ok, settings.endpointBackoffMs, Date.now(), settings.several)
  const exchange = await post(settings, scrubber, target, request, signal, endpoint, health, letters)
  if ('kind' in exchange) return exchange
  return judge(settings, scrubber, request, exchange, endpoint, health, letters)
}

/** The HTTP exchange: the response and its body text (capped), or a retryable failure. Throws only when the run was cancelled. */
async function post(
  settings: HttpSettings,
  { scrub }: Scrubber,
  target: Endpoint,
  request: ScoreRequest,
  signal: AbortSignal | undefined,
  endpoint: string,
  health: (ok: boolean) => void,
  letters: LetterIds | undefined,
): Promise<{ response: Response; text: string } | AttemptResult> {
  const { timeoutMs } = settings
  // A timer that holds its controller (cleared when the exchange ends), not
  // AbortSignal.any([AbortSignal.timeout(ms), signal]): on Node 20 and 22 a garbage
  // collection can drop a timeout signal inside such a composite (fixed in Node 24), and a
  // server that stalled mid-body then held the attempt forever.
  const limit = deadline(timeoutMs, () => new DOMException('This operation was aborted due to timeout', 'TimeoutError'), signal)
  try {
    return await postWithin(settings, scrub, target, request, signal, endpoint, health, limit.signal, letters)
  } finally {
    limit.clear()
  }
}

/** {@link post} under the attempt's time limit `limited` (which also aborts with the run's `signal`). */
async function postWithin(
  settings: HttpSettings,
  scrub: Scrubber['scrub'],
  target: Endpoint,
  request: ScoreRequest,
  signal: AbortSignal | undefined,
  endpoint: string,
  health: (ok: boolean) => void,
  limited: AbortSignal,
  letters: LetterIds | undefined,
): Promise<{ response: Response; text: string } | AttemptResult> {
  const { timeoutMs } = settings
  let response: Response
  try {
    response = await settings.fetch(target.url, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        ...settings.headers,
        ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}),
      },
      body: requestBody(settings, request, letters),
      signal: limited,
    })
  } catch (error) {
    // The run was cancelled: no failure to count, the evaluator reports the cancellation.
    if (signal?.aborted) throw signal.reason
    if (error instanceof UnusableStatusError) return statusFailure(error.status, '', endpoint, health)
    health(false)
    const name = (error as Error)?.name
    if (name === 'TimeoutError' || name === 'AbortError') return retry('timeout', `${endpoint} took longer than ${timeoutMs} ms`)
    const refused = (error as { cause?: { code?: string } })?.cause?.code === 'ECONNREFUSED'
    return { ...retry('error', `${endpoint} failed: ${scrub(causeMessage(error))}${refused ? ' (nothing listens there: is the server running?)' : ''}`), ...(refused ? { refused } : {}) }
  }
  try {
    return { response, text: await readCappedText(response, settings.maxResponseBytes) }
  } catch (error) {
    if (signal?.aborted) throw signal.reason
    health(error instanceof BodyTooLargeError)
    return error instanceof BodyTooLargeError
      ? retry('error', `${endpoint}: ${error.message}`)
      : (error as Error)?.name === 'TimeoutError'
      ? retry('timeout', `${endpoint} body took longer than ${timeoutMs} ms`)
      : retry('error', `${endpoint} body could not be read: ${scrub(causeMessage(error))}`)
  }
}

/** What a response says: retry on 429/5xx (after `Retry-After` ≤ 30 s), give up on another 4xx or an unreadable body, else the letters. */
function judge(
  settings: HttpSettings,
  { scrub, clip }: Scrubber,
  request: ScoreRequest,
  { response, text }: { response: Response; text: string },
  endpoint: string,
  health: (ok: boolean) => void,
  letters: LetterIds | undefined,
): AttemptResult {
  if (!response.ok || NULL_BODY.has(response.status)) return statusFailure(response.status, clip(text, 200), endpoint, health, response.headers.get('retry-after'))
  health(true)
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    return giveUp('parse_failure', `${endpoint} returned a body that is not JSON: ${clip(text, 120)}`)
  }
  const optionCount = request.criterion.options.length
  const read =
    settings.mode === 'generate'
      ? readGenerated(json, settings.api, optionCount, clip)
      : letters && settings.letterReadout === 'sglang'
      ? readSglangLetters(json, optionCount, letters)
      : readLogprobs(json, settings.api, optionCount, letters)
  if ('failure' in read) return giveUp(read.failure, `${endpoint}: ${scrub(read.message)}`)
  return { kind: 'scored', probabilities: read.probabilities, missing: read.missing, ...(read.readout ? { readout: read.readout } : {}) }
}

/**
 * An `http_error` for a status that is no answer: retried on 429 and 5xx and up (after
 * `Retry-After` ≤ 30 s), given up on otherwise (another 4xx, a 1xx, a 2xx without a body).
 */
function statusFailure(status: number, text: string, endpoint: string, health: (ok: boolean) => void, retryAfter: string | null = null): AttemptResult {
  const why = status < 200 ? 'not a final response status' : status > 599 ? 'not a valid response status' : NULL_BODY.has(status) ? 'a status without a body' : text
  const failure = { reason: 'http_error' as const, message: `HTTP ${status} from ${endpoint}: ${why}` }
  if (status === 429 || status >= 500) {
    health(false)
    const seconds = Number(retryAfter)
    return { kind: 'retry', failure, ...(retryAfter !== null && Number.isFinite(seconds) && seconds >= 0 && seconds <= 30 ? { retryAfter: seconds * 1000 } : {}) }
  }
  health(true)
  return { kind: 'give-up', failure } // asking again will not change the status
}

const retry = (reason: FailureReason, message: string): AttemptResult => ({ kind: 'retry', failure: { reason, message } })
const giveUp = (reason: FailureReason, message: string): AttemptResult => ({ kind: 'give-up', failure: { reason, message } })

/** The most specific text of a fetch error: its cause's code or message, else its own message. */
function causeMessage(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } })?.cause
  return cause?.code ?? cause?.message ?? (error as Error)?.message ?? String(error)
}
