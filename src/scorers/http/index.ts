/** Remote scorers: `vitest-sceptic/http`. */
export { openAIScorer, redactUrl } from './openai.ts'
export type { OpenAIScorer, OpenAIScorerOptions, OpenAIScorerStats } from './openai.ts'
export type { EndpointCounts } from './endpoints.ts'
export { parseAnswerLetter, readLetters } from './letters.ts'
export type { LetterReadout, TokenLogprob } from './letters.ts'
export { DEFAULT_MAX_RESPONSE_BYTES } from './body.ts'
