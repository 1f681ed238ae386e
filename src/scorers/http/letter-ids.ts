/**
 * The option letters' token ids on a remote server, for an exact readout (docs/remote-scorers.md,
 * "Exact letters"): each letter's spellings `" A"` and `"A"` tokenized on the server's own
 * tokenize endpoint, once per scorer; a spelling that is not one token is left out.
 */
import { LETTERS } from '../../core/decisions/schema.ts'
import { deadline } from '../../core/support/abort.ts'
import { readCappedText } from './body.ts'
import type { HttpSettings } from './settings.ts'

/** The letters' token ids: per letter (A, B, …) the ids of its one-token spellings, and each id's spelling. */
export interface LetterIds {
  /** Per letter, in order A–T, the ids of its one-token spellings (at least one). */
  readonly ids: readonly (readonly number[])[]
  /** An id's spelling (`" A"` or `"A"`): how the letter readout names the token. */
  readonly spelling: ReadonlyMap<number, string>
}

/** The ids of the first `optionCount` letters, in letter order. */
export function idsFor(letters: LetterIds, optionCount: number): number[] {
  return letters.ids.slice(0, optionCount).flat()
}

/**
 * Look the letters up on the first tokenize endpoint that answers (replicas serve one model).
 * Throws an Error saying which endpoint said what: a letter with no one-token spelling, or two
 * letters sharing an id, cannot be read exactly.
 */
export async function lookUpLetterIds(settings: HttpSettings, signal: AbortSignal | undefined, scrub: (text: string) => string): Promise<LetterIds> {
  let last: unknown
  for (const url of settings.tokenizeUrls) {
    try {
      return await lookUpAt(settings, url, signal)
    } catch (error) {
      if (signal?.aborted) throw signal.reason
      last = error
    }
  }
  throw new Error(`the letters' token ids could not be looked up (letterReadout '${settings.letterReadout}'): ${scrub(String((last as Error)?.message ?? last))}`)
}

async function lookUpAt(settings: HttpSettings, url: URL, signal: AbortSignal | undefined): Promise<LetterIds> {
  const spelling = new Map<number, string>()
  const ids: number[][] = []
  const where = `POST ${url.pathname}`
  // 40 short calls, all at once: the lookup is one round trip.
  const tokens = await Promise.all(LETTERS.split('').flatMap((letter) => [` ${letter}`, letter].map((text) => tokenize(settings, url, text, signal, where))))
  for (const [i, letter] of [...LETTERS].entries()) {
    const own: number[] = []
    for (const [j, text] of [` ${letter}`, letter].entries()) {
      const got = tokens[2 * i + j]!
      if (got.length !== 1) continue
      const id = got[0]!
      const other = spelling.get(id)
      if (other !== undefined && other.trim() !== letter) throw new Error(`${where}: letters ${JSON.stringify(other.trim())} and ${JSON.stringify(letter)} share the token id ${id}`)
      if (other === undefined) (spelling.set(id, text), own.push(id))
    }
    if (own.length === 0) throw new Error(`${where}: neither " ${letter}" nor "${letter}" is one token on this server`)
    ids.push(own)
  }
  return { ids, spelling }
}

/** One tokenize call: `{ model, prompt, add_special_tokens: false }` → its `tokens` (vLLM's and SGLang's shape). */
async function tokenize(settings: HttpSettings, url: URL, text: string, signal: AbortSignal | undefined, where: string): Promise<number[]> {
  const limit = deadline(settings.timeoutMs, () => new DOMException(`${where} took longer than ${settings.timeoutMs} ms`, 'TimeoutError'), signal)
  try {
    const response = await settings.fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...settings.headers, ...(settings.apiKey ? { authorization: `Bearer ${settings.apiKey}` } : {}) },
      body: JSON.stringify({ model: settings.model, prompt: text, add_special_tokens: false }),
      signal: limit.signal,
    })
    const body = await readCappedText(response, settings.maxResponseBytes)
    if (!response.ok) throw new Error(`${where}: HTTP ${response.status}`)
    const tokens = (JSON.parse(body) as { tokens?: unknown })?.tokens
    if (!Array.isArray(tokens) || !tokens.every((t) => Number.isSafeInteger(t) && t >= 0)) throw new Error(`${where}: the answer has no list of token ids (\`tokens\`)`)
    return tokens as number[]
  } finally {
    limit.clear()
  }
}
