/** The seeded PRNG every sampled statistic uses. */

/** Small seeded PRNG (mulberry32, Ettinger 2017): uniform in [0, 1), deterministic per seed. */
export function mulberry32(seed: number): () => number {
  // State kept as int32 (`| 0`), not uint32 (`>>> 0`): the same bits, but V8 keeps an int32
  // in a register where a uint32 above 2^31 becomes a double (about 20% slower per draw).
  let a = seed | 0
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** A seeded Fisher–Yates shuffle, in place (`random` from {@link mulberry32}). */
export function shuffleInPlace<T>(items: T[], random: () => number): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1))
    ;[items[i], items[j]] = [items[j]!, items[i]!]
  }
  return items
}
