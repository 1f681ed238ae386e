/**
 * The line the report's `model` row and `manifest.scorer` show for what scored the requests:
 * a scorer's `description` property, overridden by the `scorerDescription` option.
 */

/** Anything that may carry a description: a scorer function with a `description` property. */
export interface Described {
  /** One line saying what scores, e.g. `onnx models/tiny (2 workers × 1 thread, batch ≤ 4)`. Never a secret. */
  readonly description?: string
}

/** The scorer's own `description` string, or `undefined` when it carries none (or an empty one). */
export function ownDescription(score: unknown): string | undefined {
  const text = (score as Described | null | undefined)?.description
  return typeof text === 'string' && text !== '' ? text : undefined
}

/**
 * The description recorded for a scorer when the caller gave none: its own `description`,
 * else its function name as `name (ScoreFn)`, else `(injected scorer)`.
 */
export function describeScorer(score: unknown): string {
  const own = ownDescription(score)
  if (own !== undefined) return own
  const name = typeof score === 'function' ? score.name : ''
  return name ? `${name} (ScoreFn)` : '(injected scorer)'
}
