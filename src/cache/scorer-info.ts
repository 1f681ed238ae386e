/** What the score cache records of each scorer id (one JSON file per id under the cache directory). */

/** What `cache stats` and `cache clear --model` know of a scorer id. Never holds a secret. */
export interface ScorerInfo {
  /** Scorer kind: `onnx`, `http`, `user`, … */
  readonly kind: string
  /** What it was: a model directory (absolute), a model name at a redacted URL, a module. */
  readonly label: string
}
