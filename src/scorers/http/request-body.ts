/** The JSON body posted for one request: completions `prompt` or one chat message, log-probs or sampling settings, or SGLang's native `/generate`. */
import type { ScoreRequest } from '../../core/scorer/contract.ts'
import { idsFor, type LetterIds } from './letter-ids.ts'
import type { HttpSettings } from './settings.ts'

/**
 * The body for `request`: `max_tokens: 1` at temperature 0 with top log-probs, or `generate`
 * mode's sampling settings. With `letters` (an exact readout), the log-probs asked for are the
 * request's letters' tokens: vLLM's `allowed_token_ids` (named by id in the answer), or SGLang's
 * native `token_ids_logprob`.
 */
export function requestBody(settings: HttpSettings, request: ScoreRequest, letters?: LetterIds): string {
  const { model, mode, api, maxTokens, temperature, topLogprobs, letterReadout } = settings
  const ids = letters ? idsFor(letters, request.criterion.options.length) : undefined
  if (ids && letterReadout === 'sglang')
    return JSON.stringify({ text: request.prompt, sampling_params: { max_new_tokens: 1, temperature: 0 }, return_logprob: true, token_ids_logprob: ids, logprob_start_len: -1 })
  const common = { model, max_tokens: mode === 'generate' ? maxTokens : 1, temperature: mode === 'generate' ? temperature : 0 }
  const k = ids ? ids.length : topLogprobs
  const logprobs = mode === 'generate' ? {} : api === 'chat' ? { logprobs: true, top_logprobs: k } : { logprobs: k }
  const exact = ids ? { allowed_token_ids: ids, return_tokens_as_token_ids: true } : {}
  const input = api === 'chat' ? { messages: [{ role: 'user', content: request.prompt }] } : { prompt: request.prompt }
  return JSON.stringify({ ...common, ...input, ...logprobs, ...exact })
}
