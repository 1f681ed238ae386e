/** The JSON body posted for one request: completions `prompt` or one chat message, log-probs or sampling settings. */
import type { ScoreRequest } from '../../core/scorer/contract.ts'
import type { HttpSettings } from './settings.ts'

/** The body for `request`: `max_tokens: 1` at temperature 0 with top log-probs, or `generate` mode's sampling settings. */
export function requestBody(settings: HttpSettings, request: ScoreRequest): string {
  const { model, mode, api, maxTokens, temperature, topLogprobs } = settings
  const common = { model, max_tokens: mode === 'generate' ? maxTokens : 1, temperature: mode === 'generate' ? temperature : 0 }
  const logprobs = mode === 'generate' ? {} : api === 'chat' ? { logprobs: true, top_logprobs: topLogprobs } : { logprobs: topLogprobs }
  const input = api === 'chat' ? { messages: [{ role: 'user', content: request.prompt }] } : { prompt: request.prompt }
  return JSON.stringify({ ...common, ...input, ...logprobs })
}
