/** Epoch reducers: how per-epoch correctness becomes one value per decision. */
import { own } from './dict.ts'
import { ConfigError } from './errors.ts'

/**
 * An epoch reducer: many per-epoch scores of one decision in, one number out.
 * Scores are numbers (1 = correct, 0 = incorrect, or any value in between), so
 * every reducer's output is a plain float that every metric can average: the
 * hazard of Inspect's IEBP014 (a metric narrowing `0.667` to `0`) cannot arise.
 */
export interface Reducer {
  /** Shown in the report and manifest, e.g. `mean` or `pass_at_2`. */
  readonly name: string
  /** Reduce one decision's epoch scores (at least one) to one value. */
  reduce(values: readonly number[]): number
}

/** Mean of the epoch scores (Inspect's default `mean_score`): C, I, C → 0.6667. */
export const meanReducer: Reducer = {
  name: 'mean',
  reduce: (values) => values.reduce((a, b) => a + b, 0) / values.length,
}

/** Median of the epoch scores (Inspect `median_score`): mean of the two middle values for an even count. */
export const median: Reducer = {
  name: 'median',
  reduce: (values) => {
    const sorted = [...values].sort((a, b) => a - b)
    const mid = sorted.length >> 1
    return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
  },
}

/** Most frequent epoch score (Inspect `mode_score`); ties go to the value seen first. */
export const mode: Reducer = {
  name: 'mode',
  reduce: (values) => {
    const counts = new Map<number, number>()
    for (const v of values) counts.set(v, (counts.get(v) ?? 0) + 1)
    let best = values[0]!
    for (const [value, count] of counts) if (count > counts.get(best)!) best = value
    return best
  },
}

/** Highest epoch score (Inspect `max_score`). */
export const max: Reducer = {
  name: 'max',
  reduce: (values) => Math.max(...values),
}

/**
 * 1 when at least `k` epochs score ≥ `threshold` (default 1, i.e. correct), else 0
 * (Inspect `at_least(k, value=1.0)`): `[1, 0, 1]` with k = 2 → 1.
 */
export function atLeast(k: number, threshold = 1): Reducer {
  if (!(Number.isInteger(k) && k >= 1)) throw new ConfigError(`atLeast(k): k must be an integer ≥ 1, got ${k}`)
  return {
    name: `at_least_${k}`,
    reduce: (values) => (values.filter((v) => v >= threshold).length >= k ? 1 : 0),
  }
}

/**
 * Unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language Models
 * Trained on Code"; Inspect `pass_at(k)`): with n epochs of which c pass,
 * `1 − C(n−c, k) / C(n, k)`, and 1 when n − c < k. n = 3, c = 2 → 2/3 at k = 1, 1 at k = 2.
 */
export function passAt(k: number, threshold = 1): Reducer {
  if (!(Number.isInteger(k) && k >= 1)) throw new ConfigError(`passAt(k): k must be an integer ≥ 1, got ${k}`)
  return {
    name: `pass_at_${k}`,
    reduce: (values) => {
      const n = values.length
      if (k > n) throw new ConfigError(`passAt(${k}) needs at least ${k} epochs, got ${n}`)
      const c = values.filter((v) => v >= threshold).length
      if (n - c < k) return 1
      // 1 − Π_{i=n−c+1..n} (1 − k/i): the product form avoids huge binomials.
      let fail = 1
      for (let i = n - c + 1; i <= n; i++) fail *= 1 - k / i
      return 1 - fail
    },
  }
}

/** Reducers by name, for options and the CLI. */
export const REDUCERS = { mean: meanReducer, median, mode, max } as const

/**
 * A reducer object, the name of one in {@link REDUCERS}, or the name a manifest records
 * for {@link atLeast} / {@link passAt} (`'at_least_3'`, `'pass_at_2'`, k an integer ≥ 1,
 * threshold 1).
 */
export type ReducerLike = Reducer | keyof typeof REDUCERS | `at_least_${number}` | `pass_at_${number}`

/** `at_least_K` / `pass_at_K` (K a positive integer without leading zeros), as {@link atLeast} and {@link passAt} name them. */
const PARAMETERISED = /^(at_least|pass_at)_([1-9][0-9]{0,8})$/

/**
 * Resolve a {@link ReducerLike}: every name a reducer reports (and the manifest records)
 * resolves to a reducer of that name. An unknown name is a ConfigError listing the choices.
 */
export function resolveReducer(reducer: ReducerLike = 'mean'): Reducer {
  if (typeof reducer === 'object' && typeof reducer.reduce === 'function') return reducer
  if (typeof reducer === 'string') {
    const named = own<Reducer>(REDUCERS, reducer)
    if (named) return named
    const match = PARAMETERISED.exec(reducer)
    if (match) return match[1] === 'at_least' ? atLeast(Number(match[2])) : passAt(Number(match[2]))
  }
  throw new ConfigError(
    `reducer ${JSON.stringify(reducer)} is not known. Choose one of: ${Object.keys(REDUCERS).join(', ')}, at_least_K, pass_at_K (K an integer ≥ 1), or atLeast(k), passAt(k).`,
  )
}
