/** How requests are grouped into runs. Pure. */

/** Limits for {@link planBatches}. */
export interface BatchLimits {
  /** Most rows per run. */
  readonly batchSize: number
  /** Workers that can run at once: small calls are split so none sits idle. */
  readonly workers: number
  /** Logits columns (vocabulary size), to bound the `[rows, width, vocab]` output. */
  readonly vocab: number
  /** Largest logits tensor a run may produce, in bytes (float32). */
  readonly maxLogitsBytes: number
  /** Only rows of equal length share a run (models without `attention_mask` cannot be padded). */
  readonly equalLengthsOnly: boolean
}

/**
 * Group request indices into runs. Rows are taken shortest first, so each run holds
 * similar lengths and left padding wastes little; a decision's rotations (same
 * tokens, reordered) usually land together.
 */
export function planBatches(lengths: readonly number[], limits: BatchLimits): number[][] {
  const order = lengths.map((_, index) => index).sort((a, b) => lengths[a]! - lengths[b]! || a - b)
  const rowsCap = Math.max(1, Math.min(limits.batchSize, Math.ceil(lengths.length / Math.max(1, limits.workers))))
  const batches: number[][] = []
  let current: number[] = []
  for (const index of order) {
    const length = lengths[index]!
    if (current.length > 0) {
      const width = Math.max(length, lengths[current[0]!]!)
      const tooBig = (current.length + 1) * width * limits.vocab * 4 > limits.maxLogitsBytes
      const mismatch = limits.equalLengthsOnly && length !== lengths[current[0]!]
      if (current.length >= rowsCap || tooBig || mismatch) {
        batches.push(current)
        current = []
      }
    }
    current.push(index)
  }
  if (current.length > 0) batches.push(current)
  return batches
}
