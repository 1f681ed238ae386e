/** The public entry `vitest-sceptic/gguf`: the GGUF scorers (llama.cpp in-process through node-llama-cpp): the letter readout and node-llama-cpp's native decisions. */
export { ConfigError, ScorerError } from '../../core/support/errors.ts'
export type { FallibleScoreFn, ScoreContext, ScoreFailure, ScoreFn, ScoredOutcome, ScoreOutcome, ScoreRequest } from '../../core/scorer/contract.ts'
export type { ChatOptions } from '../prompt/chat-template.ts'
export { ggufScorer, type GgufOutcome, type GgufScorer } from './scorer.ts'
export type { GgufLifecycle, GgufModelInfo } from './lifecycle.ts'
export { KV_CACHE_TYPES, type GgufScorerOptions, type GgufScorerSettings, type GgufScorerStats, type KvCacheType } from './options.ts'
export { ggufDecisionScorer, TIED_CHOICE, type GgufDecisionScorer, type GgufDecisionScorerStats } from './decision-scorer.ts'
export { DECISION_CHAT_WRAPPERS, type DecisionChatWrapper, type GgufDecisionScorerOptions, type GgufDecisionScorerSettings } from './decision-options.ts'
