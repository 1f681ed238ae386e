/** Default cap on one response body: 8 MiB. A letter's log-probabilities fit in a few kB. */
export const DEFAULT_MAX_RESPONSE_BYTES = 8 * 1024 * 1024

/** A response body larger than the cap: the request fails, the rest of the body is never read. */
export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError'
}

/**
 * Read a response body as UTF-8 text, holding at most `maxBytes` of it: a
 * `content-length` above the cap is refused before reading, and a body that grows past
 * it is cancelled mid-stream (memory stays bounded by the cap plus one chunk).
 */
export async function readCappedText(response: Response, maxBytes: number): Promise<string> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {})
    throw new BodyTooLargeError(`response body of ${declared} bytes is over the ${maxBytes}-byte cap (maxResponseBytes)`)
  }
  if (!response.body) return ''
  const reader = response.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  let bytes = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.byteLength
    if (bytes > maxBytes) {
      await reader.cancel().catch(() => {})
      throw new BodyTooLargeError(`response body grew past the ${maxBytes}-byte cap (maxResponseBytes); the rest was not read`)
    }
    text += decoder.decode(value, { stream: true })
  }
  return text + decoder.decode()
}
