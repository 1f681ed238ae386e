/**
 * `Math.max(...values)` and `list.push(...items)` pass every element as one call argument,
 * and V8 runs out of stack at about 125,000 of them. Any array that grows with a run
 * (decisions, requests, records, model nodes) goes through these loops instead; a
 * structure test keeps spread arguments out of `src/`.
 */

/** `Math.max(...values)` for any count: `-Infinity` when empty, `NaN` when any value is. */
export function largest(values: Iterable<number>): number {
  let top = -Infinity
  for (const value of values) top = Math.max(top, value)
  return top
}

/** `Math.min(...values)` for any count: `Infinity` when empty, `NaN` when any value is. */
export function smallest(values: Iterable<number>): number {
  let bottom = Infinity
  for (const value of values) bottom = Math.min(bottom, value)
  return bottom
}

/** `target.push(...items)` for any count; returns `target`. */
export function appendAll<T>(target: T[], items: Iterable<T>): T[] {
  for (const item of items) target.push(item)
  return target
}
