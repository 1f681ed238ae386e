/**
 * Batch layout for a decoder: rows of token ids, left-padded to one width. Pure
 * (no onnxruntime), so it is shared by the worker and unit-tested on its own.
 */

/** A left-padded batch as flat row-major int64 arrays (what ORT's int64 tensors take). */
export interface PaddedBatch {
  /** Number of rows (sequences). */
  readonly rows: number
  /** Padded length of every row, in tokens (the longest row's length). */
  readonly width: number
  /** `[rows, width]` token ids; pads hold `padId`. */
  readonly inputIds: BigInt64Array
  /** `[rows, width]`: 1 for real tokens, 0 for pads. */
  readonly attentionMask: BigInt64Array
  /** `[rows, width]`: cumulative sum of the mask minus one, pads at 0, so positions count real tokens only. */
  readonly positionIds: BigInt64Array
}

/**
 * Left-pad rows given as one flat id array plus per-row lengths. Left, not right:
 * the readout takes the last position's logits, which must be every row's last
 * real token.
 */
export function leftPad(ids: ArrayLike<number>, lengths: ArrayLike<number>, padId = 0): PaddedBatch {
  const rows = lengths.length
  let width = 0
  for (let r = 0; r < rows; r++) width = Math.max(width, lengths[r]!)
  const inputIds = new BigInt64Array(rows * width)
  const attentionMask = new BigInt64Array(rows * width)
  const positionIds = new BigInt64Array(rows * width)
  const pad = BigInt(padId)
  let source = 0
  for (let r = 0; r < rows; r++) {
    const length = lengths[r]!
    const start = r * width + (width - length)
    // A plain loop: BigInt64Array.from(..., BigInt) is several times slower on long batches.
    for (let c = r * width; c < start; c++) inputIds[c] = pad
    for (let i = 0; i < length; i++) {
      inputIds[start + i] = BigInt(ids[source + i]!)
      attentionMask[start + i] = 1n
      positionIds[start + i] = BigInt(i)
    }
    source += length
  }
  return { rows, width, inputIds, attentionMask, positionIds }
}

/** A batch of suffixes continuing one shared prefix of `prefixLength` tokens. */
export interface SuffixBatch extends PaddedBatch {
  /** `[rows, prefixLength + width]`: the prefix (all 1), then each suffix left-padded (pads 0). */
  readonly attentionMask: BigInt64Array
  /** `[rows, width]`: `prefixLength + i` for a row's i-th real suffix token, pads at 0. */
  readonly positionIds: BigInt64Array
}

/**
 * Feeds for suffixes run against a prefix's key/value cache. Suffixes are left-padded
 * like full prompts, so every row's last column is its last real token (the readout
 * position, and the only one an optimized model computes). The pads sit between the
 * prefix and the suffix: the mask hides them, and positions continue from the prefix
 * over real tokens only, so each row sees exactly the positions of its full prompt.
 */
export function suffixPad(ids: ArrayLike<number>, lengths: ArrayLike<number>, prefixLength: number, padId = 0): SuffixBatch {
  const padded = leftPad(ids, lengths, padId)
  const { rows, width } = padded
  const total = prefixLength + width
  const attentionMask = new BigInt64Array(rows * total)
  const positionIds = new BigInt64Array(rows * width)
  const offset = BigInt(prefixLength)
  for (let r = 0; r < rows; r++) {
    attentionMask.fill(1n, r * total, r * total + prefixLength)
    for (let c = 0; c < width; c++) {
      const real = padded.attentionMask[r * width + c]!
      attentionMask[r * total + prefixLength + c] = real
      if (real) positionIds[r * width + c] = padded.positionIds[r * width + c]! + offset
    }
  }
  return { rows, width, inputIds: padded.inputIds, attentionMask, positionIds }
}
