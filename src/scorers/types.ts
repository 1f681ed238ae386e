// The scorer contract lives in the core (the evaluator consumes it); scorers import it from here.
export type { ScoreFn, ScoreRequest } from '../core/scorer/contract.ts'
export { buildPrompt } from '../core/requests/prompt.ts'
