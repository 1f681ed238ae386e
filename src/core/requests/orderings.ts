/** Debias modes and the orderings of a criterion's options each one scores. */
import { ConfigError } from '../support/errors.ts'

/**
 * Debias modes (docs/debias-modes.md). `pride` (Zheng et al., ICLR 2024) scores a
 * seeded sample of decisions under every cyclic rotation to estimate the slot prior,
 * then every other decision once, dividing that prior out.
 */
export const DEBIAS_MODES = ['none', 'cyclic', 'permutation', 'calibrated', 'pride'] as const
/** How a decision's options are re-ordered and the results combined. */
export type DebiasMode = (typeof DEBIAS_MODES)[number]
/**
 * The default debias mode of the CLI, the library and `describeDecisions`: `cyclic`, because
 * order consistency (does the answer survive re-ordering?) is the point; `none` scores one
 * ordering and cannot measure it.
 */
export const DEFAULT_DEBIAS: DebiasMode = 'cyclic'

/** `permutation` scores n! orderings; above this many options it is refused. */
export const MAX_PERMUTATION_OPTIONS = 6

/** An ordering: slot `i` shows original option `ordering[i]`. */
export type Ordering = readonly number[]

/**
 * How per-ordering probabilities are combined per option id. `probability` (the
 * reference behaviour) takes the arithmetic mean, which cancels an *additive* slot
 * bonus exactly. `log` takes the mean of log p (floored at {@link LOG_FLOOR}) and
 * renormalises (a normalised geometric mean), which cancels a *multiplicative* slot
 * prior exactly, as PriDe and contextual calibration model it (docs/debias-modes.md#what-averaging-repairs-the-multiplicative-prior-caveat).
 */
export const AVERAGE_MODES = ['probability', 'log'] as const
/** See {@link AVERAGE_MODES}. */
export type AverageMode = (typeof AVERAGE_MODES)[number]

/** Floor on a probability before its log is taken (PriDe's ε): 1e-10. */
export const LOG_FLOOR = 1e-10

/** Throw a {@link ConfigError} unless `mode` is one of {@link AVERAGE_MODES}. */
export function assertAverageMode(mode: unknown): asserts mode is AverageMode {
  if (!AVERAGE_MODES.includes(mode as AverageMode))
    throw new ConfigError(`average=${JSON.stringify(mode)} is not a mode. Choose one of: ${AVERAGE_MODES.join(', ')}.`)
}

/** Throw a {@link ConfigError} unless `mode` is one of {@link DEBIAS_MODES}. */
export function assertDebiasMode(mode: unknown): asserts mode is DebiasMode {
  if (!DEBIAS_MODES.includes(mode as DebiasMode))
    throw new ConfigError(`debias=${JSON.stringify(mode)} is not a mode. Choose one of: ${DEBIAS_MODES.join(', ')}.`)
}

/**
 * The option orderings to score for one n-option decision. `none` is the identity;
 * `cyclic`, `calibrated` and `pride` rotate the unpinned options over the unpinned slots
 * (`order_k[i] = (i + k) % n` without pins; under `pride` only sampled decisions);
 * `permutation` is every arrangement of them, lexicographic. Each unpinned option visits
 * each unpinned slot equally often (a Latin design), so an additive slot prior cancels.
 *
 * @param pinned slots whose option stays put (`"pinned": true`); default none
 */
export function orderings(optionCount: number, debias: DebiasMode, pinned: readonly number[] = []): Ordering[] {
  assertDebiasMode(debias)
  const identity = Array.from({ length: optionCount }, (_, i) => i)
  if (debias === 'none') return [identity]
  const fixed = new Set(pinned)
  const movable = identity.filter((slot) => !fixed.has(slot))
  const m = movable.length
  const place = (arrangement: readonly number[]) => {
    const ordering = [...identity]
    movable.forEach((slot, i) => (ordering[slot] = arrangement[i]!))
    return ordering
  }
  if (debias === 'permutation') {
    if (m > MAX_PERMUTATION_OPTIONS)
      throw new ConfigError(
        `debias='permutation' would score ${m}! = ${factorial(m)} orderings of a ` +
          `${optionCount}-option decision${m < optionCount ? ` (${m} unpinned)` : ''}. Use debias='cyclic', which cancels a position prior with ` +
          `${m} orderings instead.`,
      )
    return permutations(movable).map(place)
  }
  return movable.map((_, k) => place(movable.map((_, i) => movable[(i + k) % m]!)))
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
