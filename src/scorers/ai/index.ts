/** `vitest-sceptic/ai`: evaluate the decisions of an AI SDK 7 decision model (docs/decision-models.md). */
export { decisionModelScorer } from './scorer.ts'
export { NO_DISTRIBUTION } from '../../core/metrics/no-distribution.ts'
export type { DecideCounts, DecisionModelInstance, DecisionModelScorer } from './scorer.ts'
export { criterionFromDecideQuestion } from './criterion.ts'
export { MAX_QUESTIONS_PER_CALL } from './options.ts'
export type { DecideProviderOptions, DecisionModelScorerOptions } from './options.ts'
