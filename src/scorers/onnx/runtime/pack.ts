/** Packing per-row token ids into the flat arrays that cross between threads. Pure. */

/** The parts end to end. */
export function concat(parts: readonly Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}
