/**
 * The readout (docs/onnx.md#pointing-it-at-an-optimum-export): the last position's logits at each
 * option letter's token id, softmax over the request's letters. Pure, shared by the
 * worker and the tests.
 */

/** Softmax in float64 with the max subtracted, so large logits do not overflow. */
export function softmax(values: ArrayLike<number>): number[] {
  let max = -Infinity
  for (let i = 0; i < values.length; i++) max = Math.max(max, values[i]!)
  const out = new Array<number>(values.length)
  let sum = 0
  for (let i = 0; i < values.length; i++) sum += out[i] = Math.exp(values[i]! - max)
  for (let i = 0; i < values.length; i++) out[i] = out[i]! / sum
  return out
}

/**
 * Letter probabilities of one row of a `[rows, positions, vocab]` logits tensor,
 * read at the row's last position. Works for full-sequence logits and for exports
 * that return only the last position (`positions` = 1).
 */
export function letterProbabilities(
  logits: ArrayLike<number>,
  dims: readonly number[],
  row: number,
  letterIds: ArrayLike<number>,
): number[] {
  const positions = dims[1]!
  const vocab = dims[2]!
  const base = (row * positions + positions - 1) * vocab
  const picked = new Array<number>(letterIds.length)
  for (let i = 0; i < letterIds.length; i++) picked[i] = logits[base + letterIds[i]!]!
  return softmax(picked)
}

/**
 * Element `i` of a logits tensor's data as a number. A float16 tensor comes as raw bits
 * (Uint16Array) where the runtime has no Float16Array, and as a Float16Array of values where it
 * has one (Node 24): the array's kind decides, never the declared element type alone.
 */
export function logitAt(data: ArrayLike<number>): (i: number) => number {
  return data instanceof Uint16Array ? (i) => halfToFloat(data[i]!) : (i) => data[i]!
}

/** IEEE half → number, for float16 logits handed over as raw bits (a Uint16Array). */
export function halfToFloat(bits: number): number {
  const sign = bits & 0x8000 ? -1 : 1
  const exponent = (bits >> 10) & 0x1f
  const fraction = bits & 0x3ff
  if (exponent === 0) return sign * 2 ** -14 * (fraction / 1024)
  if (exponent === 0x1f) return fraction ? NaN : sign * Infinity
  return sign * 2 ** (exponent - 15) * (1 + fraction / 1024)
}
