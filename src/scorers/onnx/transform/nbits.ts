/**
 * Weight blocks for ORT's `com.microsoft.MatMulNBits` (weight-only quantization:
 * activations stay float32, so results do not depend on what shares a batch). Pure.
 *
 * Layout (ORT contrib op spec): `B` is `[N, ceil(K / block), block * bits / 8]` bytes, column
 * `n`'s block `b` holding `W[b*block .. b*block+block-1, n]`, two 4-bit values per byte low
 * nibble first (or one byte each at 8 bits); `scales` is `[N * blocks]` float32; without
 * `zero_points` the zero point is `2^(bits-1)`, so the scheme here is symmetric:
 * `q = clamp(round(w / scale) + 2^(bits-1))`, `scale = max|w| / (2^(bits-1) - 1)`.
 */

/** The packed weight and scales of one `[K, N]` float matrix (row-major, as ONNX MatMul takes B). */
export interface NBitsWeight {
  /** `[N, blocks, block * bits / 8]` bytes. */
  readonly packed: Uint8Array
  /** `[N * blocks]` scales. */
  readonly scales: Float32Array
  /** Blocks along K per column. */
  readonly blocks: number
}

/** Quantize `weight` (`[K, N]`, row-major) into `bits`-bit blocks of `block` along K. */
export function packNBits(weight: ArrayLike<number>, K: number, N: number, bits: 4 | 8, block: number): NBitsWeight {
  const blocks = Math.ceil(K / block)
  const blob = (block * bits) / 8
  const zero = 2 ** (bits - 1)
  const top = 2 ** bits - 1
  const packed = new Uint8Array(N * blocks * blob)
  const scales = new Float32Array(N * blocks)
  for (let n = 0; n < N; n++)
    for (let b = 0; b < blocks; b++) {
      let amax = 0
      for (let k = b * block; k < Math.min(K, (b + 1) * block); k++) amax = Math.max(amax, Math.abs(weight[k * N + n]!))
      const scale = amax / (zero - 1) || 1
      scales[n * blocks + b] = scale
      const base = (n * blocks + b) * blob
      for (let i = 0; i < block; i++) {
        const k = b * block + i
        const q = k < K ? Math.max(0, Math.min(top, Math.round(weight[k * N + n]! / scale) + zero)) : zero
        if (bits === 8) packed[base + i] = q
        else packed[base + (i >> 1)]! |= i & 1 ? q << 4 : q
      }
    }
  return { packed, scales, blocks }
}
