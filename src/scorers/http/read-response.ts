/**
 * Reading one completions or chat response into a probability vector: the letters'
 * top log-probabilities at the answer position (`logprobs` mode) or the letter a short
 * generated answer names (`generate` mode, one-hot). Pure: parsed JSON in, vector or
 * failure out.
 */
import type { FailureReason } from '../../core/scorer/contract.ts'
import { idsFor, type LetterIds } from './letter-ids.ts'
import { absurdLogprob, asLogprob, parseAnswerLetter, readLetters, type TokenLogprob } from './letters.ts'

/**
 * How a request's letters were read: `exact` when the server gave the log-prob of every
 * token of every letter asked for by id, `top-k` when they were read from a top-k list (a
 * letter outside it floored and flagged `missing_logprobs`).
 */
export type Readout = 'exact' | 'top-k'

/** What a response said: letter probabilities (and the letters floored, and how they were read), or why it could not be read. */
export type Read = { probabilities: number[]; missing: string[]; readout?: Readout } | { failure: FailureReason; message: string }

/**
 * Letter probabilities from a completions or chat response's first-position top log-probs;
 * with `letters` (vLLM asked for exactly the letters' ids), tokens named `token_id:N` are read
 * as the letter spelling of id N, and the readout is exact when every id asked for came back.
 */
export function readLogprobs(json: any, api: 'completions' | 'chat', optionCount: number, letters?: LetterIds): Read {
  const choice = json?.choices?.[0]
  if (!choice) return { failure: 'parse_failure', message: 'response has no choices' }
  const top = topList(choice.logprobs, api)
  if (!letters || !top) return readTop(top, optionCount, 'top-k')
  const seen = new Set<number>()
  const named = top.map(({ token, logprob }) => {
    const id = /^token_id:(\d+)$/.exec(token)?.[1]
    const spelling = id === undefined ? undefined : letters.spelling.get(Number(id))
    if (spelling === undefined) return { token, logprob }
    if (Number.isFinite(logprob)) seen.add(Number(id))
    return { token: spelling, logprob }
  })
  return readTop(named, optionCount, idsFor(letters, optionCount).every((id) => seen.has(id)) ? 'exact' : 'top-k')
}

/**
 * Letter probabilities from SGLang's native `/generate` answer: `meta_info.output_token_ids_logprobs[0]`,
 * one `[logprob, token id, text]` per id asked for, at the first generated position.
 */
export function readSglangLetters(json: any, optionCount: number, letters: LetterIds): Read {
  const answer = Array.isArray(json) ? json[0] : json
  const rows = answer?.meta_info?.output_token_ids_logprobs?.[0]
  if (!Array.isArray(rows)) return { failure: 'no_logprobs', message: 'response carries no meta_info.output_token_ids_logprobs (does the server take token_ids_logprob?)' }
  const seen = new Set<number>()
  const top: TokenLogprob[] = []
  for (const row of rows) {
    const spelling = Array.isArray(row) && Number.isSafeInteger(row[1]) ? letters.spelling.get(row[1]) : undefined
    if (spelling === undefined) continue
    const logprob = asLogprob(row[0])
    if (Number.isFinite(logprob)) seen.add(row[1])
    top.push({ token: spelling, logprob })
  }
  return readTop(top, optionCount, idsFor(letters, optionCount).every((id) => seen.has(id)) ? 'exact' : 'top-k')
}

/** The first position's top log-probs of a completions or chat choice, if any. */
function topList(logprobs: any, api: 'completions' | 'chat'): TokenLogprob[] | undefined {
  let top: TokenLogprob[] | undefined
  if (api === 'chat') {
    const first = logprobs?.content?.[0]?.top_logprobs
    if (Array.isArray(first)) top = first.filter((t: any) => typeof t?.token === 'string').map((t: any) => ({ token: t.token, logprob: asLogprob(t.logprob) }))
  } else {
    const first = logprobs?.top_logprobs?.[0]
    if (first && typeof first === 'object') top = Object.entries(first).map(([token, logprob]) => ({ token, logprob: asLogprob(logprob) }))
  }
  return top
}

/** The letters read from a list of log-probs; `readout` says how the list was asked for (`top-k` when some letter is missing). */
function readTop(top: TokenLogprob[] | undefined, optionCount: number, readout: Readout): Read {
  if (!top || top.length === 0) return { failure: 'no_logprobs', message: 'response carries no top log-probabilities (does the server support logprobs?)' }
  const absurd = absurdLogprob(top)
  if (absurd) return { failure: 'parse_failure', message: absurd }
  const read = readLetters(top, optionCount)
  if (!read) return { failure: 'parse_failure', message: `none of the letters A-${String.fromCharCode(64 + optionCount)} is among the top ${top.length} tokens` }
  return { ...read, readout: read.missing.length === 0 ? readout : 'top-k' }
}

/** A one-hot vector from the letter a generated text answers with. */
export function readGenerated(json: any, api: 'completions' | 'chat', optionCount: number, clip: (text: string, max: number) => string): Read {
  const choice = json?.choices?.[0]
  const text = api === 'chat' ? choice?.message?.content : choice?.text
  if (typeof text !== 'string') return { failure: 'parse_failure', message: 'response has no generated text' }
  const index = parseAnswerLetter(text, optionCount)
  if (index === null) return { failure: 'parse_failure', message: `no answer letter in ${JSON.stringify(clip(text, 60))}` }
  return { probabilities: Array.from({ length: optionCount }, (_, i) => (i === index ? 1 : 0)), missing: [] }
}
