/**
 * node-llama-cpp reads `CI` as a strict boolean when it is imported (and again in the child
 * process that tests its binary): `CI=woodpecker`, `CI=yes` or an empty `CI` make its import
 * throw. CI systems set `CI` to whatever they like, meaning "this is CI", so while node-llama-cpp
 * loads, `CI` is given as the boolean it means (empty, "false", "0", "no", "off": false; anything
 * else: true) and put back as it was afterwards.
 */

/** The values node-llama-cpp's parser accepts. */
const ACCEPTED = new Set(['true', 'false', 'TRUE', 'FALSE', '1', '0'])
let active = 0
let saved: string | undefined

/** What `CI` means, as node-llama-cpp's parser accepts it; `undefined` when it already accepts it (or `CI` is unset). */
export function ciAsBoolean(value: string | undefined): string | undefined {
  if (value === undefined || ACCEPTED.has(value)) return undefined
  return ['', 'false', '0', 'no', 'off'].includes(value.trim().toLowerCase()) ? 'false' : 'true'
}

/** Run `load` (an import of node-llama-cpp, its binding's start) with `CI` as a boolean; overlapping calls share one window. */
export async function withCiAsBoolean<T>(load: () => Promise<T>): Promise<T> {
  if (active++ === 0) {
    saved = process.env.CI
    const meant = ciAsBoolean(saved)
    if (meant !== undefined) process.env.CI = meant
  }
  try {
    return await load()
  } finally {
    if (--active === 0) {
      if (saved === undefined) delete process.env.CI
      else process.env.CI = saved
    }
  }
}
