/**
 * A pure function of two counts, each pair computed once: the simulations that walk hundreds
 * of seeded paths revisit the same counts, and compare the same numbers at every look.
 */
export function onceByCounts<T>(fn: (a: number, b: number) => T): (a: number, b: number) => T {
  const known = new Map<number, T>()
  return (a, b) => {
    if (!(Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && b < 2 ** 20)) throw new RangeError(`counts must be integers in [0, 2^20), got ${a} and ${b}`)
    const key = a * 2 ** 20 + b
    let value = known.get(key)
    if (value === undefined) known.set(key, (value = fn(a, b)))
    return value
  }
}
