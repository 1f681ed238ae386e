/** The public entry `vitest-sceptic/gguf`: the GGUF scorer (llama.cpp in-process through node-llama-cpp). */
export { ConfigError, ScorerError } from '../../core/support/errors.ts'
export type { FallibleScoreFn, ScoreContext, ScoreFailure, ScoreFn, ScoreRequest } from '../../core/scorer/contract.ts'
export type { ChatOptions } from '../prompt/chat-template.ts'
export { ggufScorer, type GgufOutcome, type GgufScorer } from './scorer.ts'
export type { GgufLifecycle, GgufModelInfo } from './lifecycle.ts'
export { KV_CACHE_TYPES, type GgufScorerOptions, type GgufScorerSettings, type GgufScorerStats, type KvCacheType } from './options.ts'
