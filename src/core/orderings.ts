import { ConfigError } from './errors.ts'

/** Debias modes (DESIGN.md "Debias modes"). */
export const DEBIAS_MODES = ['none', 'cyclic', 'permutation', 'calibrated'] as const
/** How a decision's options are re-ordered and the results combined. */
export type DebiasMode = (typeof DEBIAS_MODES)[number]

/** `permutation` scores n! orderings; above this many options it is refused. */
export const MAX_PERMUTATION_OPTIONS = 6

/** An ordering: slot `i` shows original option `ordering[i]`. */
export type Ordering = readonly number[]

/** Throw a {@link ConfigError} unless `mode` is one of {@link DEBIAS_MODES}. */
export function assertDebiasMode(mode: unknown): asserts mode is DebiasMode {
  if (!DEBIAS_MODES.includes(mode as DebiasMode))
    throw new ConfigError(`debias=${JSON.stringify(mode)} is not a mode. Choose one of: ${DEBIAS_MODES.join(', ')}.`)
}

/**
 * The option orderings to score for one n-option decision.
 *
 * `none` is the identity. `cyclic` and `calibrated` are the n rotations
 * `order_k[i] = (i + k) % n`. `permutation` is all n! orders (lexicographic).
 * Every mode but `none` puts each option in each slot equally often (a Latin
 * design), which is what makes an additive slot prior cancel under averaging.
 */
export function orderings(optionCount: number, debias: DebiasMode): Ordering[] {
  assertDebiasMode(debias)
  const identity = Array.from({ length: optionCount }, (_, i) => i)
  if (debias === 'none') return [identity]
  if (debias === 'permutation') {
    if (optionCount > MAX_PERMUTATION_OPTIONS)
      throw new ConfigError(
        `debias='permutation' would score ${optionCount}! = ${factorial(optionCount)} orderings of a ` +
          `${optionCount}-option decision. Use debias='cyclic', which cancels a position prior with ` +
          `${optionCount} orderings instead.`,
      )
    return permutations(identity)
  }
  return identity.map((k) => identity.map((i) => (i + k) % optionCount))
}

function permutations(items: readonly number[]): number[][] {
  if (items.length <= 1) return [[...items]]
  const out: number[][] = []
  items.forEach((head, index) => {
    const rest = [...items.slice(0, index), ...items.slice(index + 1)]
    for (const tail of permutations(rest)) out.push([head, ...tail])
  })
  return out
}

function factorial(n: number): number {
  return n <= 1 ? 1 : n * factorial(n - 1)
}
