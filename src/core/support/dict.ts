/**
 * Objects keyed by user strings (criterion keys, option ids, flags): on a plain `{}`,
 * `__proto__` replaces the prototype and `constructor` reads a function, so they are
 * built with {@link dict} (no prototype) and read with {@link own} (own properties only).
 */
/** An object keyed by user strings: no prototype, every key an own data property. */
export type Dict<T> = Record<string, T>

/** A null-prototype object holding `entries` (later entries win on repeated keys). */
export function dict<T>(entries: Iterable<readonly [string, T]> = []): Dict<T> {
  const out = Object.create(null) as Dict<T>
  for (const [key, value] of entries) out[key] = value
  return out
}

/** `object[key]` when `key` is the object's own property, else `undefined` (never an inherited member). */
export function own<T>(object: Readonly<Record<string, T>> | null | undefined, key: string): T | undefined {
  return object != null && Object.hasOwn(object, key) ? object[key] : undefined
}

/** `dict` of how often each value occurs, in first-seen order. */
export function countBy(values: Iterable<string>): Dict<number> {
  const out = dict<number>()
  for (const value of values) out[value] = (own(out, value) ?? 0) + 1
  return out
}
