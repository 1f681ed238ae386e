// The scorer contract lives in the core (the evaluator consumes it); scorers import it from here.
export type { ScoreFn, ScoreRequest } from '../core/score.ts'
export { buildPrompt } from '../core/prompt.ts'
