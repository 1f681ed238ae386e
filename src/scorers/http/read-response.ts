/**
 * Reading one completions or chat response into a probability vector: the letters'
 * top log-probabilities at the answer position (`logprobs` mode) or the letter a short
 * generated answer names (`generate` mode, one-hot). Pure: parsed JSON in, vector or
 * failure out.
 */
import type { FailureReason } from '../../core/scorer/contract.ts'
import { absurdLogprob, asLogprob, parseAnswerLetter, readLetters, type TokenLogprob } from './letters.ts'

/** What a response said: letter probabilities (and the letters floored), or why it could not be read. */
export type Read = { probabilities: number[]; missing: string[] } | { failure: FailureReason; message: string }

/** Letter probabilities from a completions or chat response's first-position top log-probs. */
export function readLogprobs(json: any, api: 'completions' | 'chat', optionCount: number): Read {
  const choice = json?.choices?.[0]
  if (!choice) return { failure: 'parse_failure', message: 'response has no choices' }
  const logprobs = choice.logprobs
  let top: TokenLogprob[] | undefined
  if (api === 'chat') {
    const first = logprobs?.content?.[0]?.top_logprobs
    if (Array.isArray(first)) top = first.filter((t: any) => typeof t?.token === 'string').map((t: any) => ({ token: t.token, logprob: asLogprob(t.logprob) }))
  } else {
    const first = logprobs?.top_logprobs?.[0]
    if (first && typeof first === 'object') top = Object.entries(first).map(([token, logprob]) => ({ token, logprob: asLogprob(logprob) }))
  }
  if (!top || top.length === 0) return { failure: 'no_logprobs', message: 'response carries no top log-probabilities (does the server support logprobs?)' }
  const absurd = absurdLogprob(top)
  if (absurd) return { failure: 'parse_failure', message: absurd }
  const read = readLetters(top, optionCount)
  if (!read) return { failure: 'parse_failure', message: `none of the letters A-${String.fromCharCode(64 + optionCount)} is among the top ${top.length} tokens` }
  return read
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
