/** Epoch reducers: how per-epoch correctness becomes one value per decision. */
import { own } from '../support/dict.ts'
import { ConfigError } from '../support/errors.ts'
import { largest } from '../support/spreadless.ts'

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
  /** Fewest epochs it is defined for (`pass_at_K`: K), checked with the settings before scoring. */
  readonly minEpochs?: number
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
  reduce: (values) => largest(values),
}

/**
 * 1 when at least `k` epochs score ≥ `threshold` (default 1, i.e. correct), else 0
 * (Inspect `at_least(k, value=1.0)`): `[1, 0, 1]` with k = 2 → 1. Named `at_least_K`,
 * or `at_least_K_ge_T` when the threshold T is not 1 (see {@link reducerName}).
 */
export function atLeast(k: number, threshold = 1): Reducer {
  checkParameters('atLeast', k, threshold)
  return {
    name: reducerName('at_least', k, threshold),
    reduce: (values) => (values.filter((v) => v >= threshold).length >= k ? 1 : 0),
  }
}

/**
 * Unbiased pass@k estimator (Chen et al. 2021, "Evaluating Large Language Models
 * Trained on Code"; Inspect `pass_at(k)`): with n epochs of which c pass,
 * `1 − C(n−c, k) / C(n, k)`, and 1 when n − c < k. n = 3, c = 2 → 2/3 at k = 1, 1 at k = 2.
 * An epoch passes when it scores ≥ `threshold` (default 1). Named `pass_at_K`, or
 * `pass_at_K_ge_T` when T is not 1 (see {@link reducerName}).
 */
export function passAt(k: number, threshold = 1): Reducer {
  checkParameters('passAt', k, threshold)
  return {
    name: reducerName('pass_at', k, threshold),
    minEpochs: k,
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
 * for {@link atLeast} / {@link passAt}: `'at_least_3'`, `'pass_at_2'` (threshold 1), or
 * with a threshold T other than 1, `'at_least_3_ge_0.6'`, `'pass_at_2_ge_0.5'`.
 */
export type ReducerLike =
  | Reducer
  | keyof typeof REDUCERS
  | `at_least_${number}`
  | `pass_at_${number}`
  | `at_least_${number}_ge_${number}`
  | `pass_at_${number}_ge_${number}`

/**
 * The name grammar of the parameterised reducers: `at_least_K` / `pass_at_K` (K a positive
 * integer without leading zeros), optionally followed by `_ge_T`, T a finite decimal number
 * as JavaScript writes it (`0.6`, `-0.5`, `1e-7`).
 */
const PARAMETERISED = /^(at_least|pass_at)_([1-9][0-9]{0,8})(?:_ge_(-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:e[+-][0-9]+)?))?$/

/**
 * A parameterised reducer's name: `${kind}_${k}`, plus `_ge_${threshold}` when
 * the threshold is not the default 1. `String(threshold)` is JavaScript's shortest
 * round-tripping form, so the name resolves back to exactly this threshold.
 */
export function reducerName(kind: 'at_least' | 'pass_at', k: number, threshold: number): string {
  return threshold === 1 ? `${kind}_${k}` : `${kind}_${k}_ge_${String(threshold)}`
}

/** k an integer ≥ 1 and a threshold in [0, 1] (an epoch scores 0 or 1), or a ConfigError naming the factory. */
function checkParameters(factory: 'atLeast' | 'passAt', k: number, threshold: number): void {
  if (!(Number.isInteger(k) && k >= 1)) throw new ConfigError(`${factory}(k): k must be an integer ≥ 1, got ${k}`)
  if (typeof threshold !== 'number' || !Number.isFinite(threshold))
    throw new ConfigError(`${factory}(k, threshold): threshold must be a finite number, got ${String(threshold)}`)
  // Outside [0, 1] every epoch would pass (T < 0) or none could (T > 1): a reducer that cannot tell runs apart.
  if (!(threshold >= 0 && threshold <= 1))
    throw new ConfigError(`${factory}(k, threshold): threshold must be in [0, 1] (an epoch scores 0 or 1), got ${String(threshold)}`)
}

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
    if (match) {
      const k = Number(match[2])
      const threshold = match[3] === undefined ? 1 : Number(match[3])
      if (Number.isFinite(threshold) && !(threshold >= 0 && threshold <= 1))
        throw new ConfigError(`reducer ${JSON.stringify(reducer)}: T must be in [0, 1] (an epoch scores 0 or 1), got ${match[3]}`)
      if (Number.isFinite(threshold)) return match[1] === 'at_least' ? atLeast(k, threshold) : passAt(k, threshold)
    }
  }
  throw new ConfigError(
    `reducer ${JSON.stringify(reducer)} is not known. Choose one of: ${Object.keys(REDUCERS).join(', ')}, at_least_K, pass_at_K (K an integer ≥ 1), ` +
      'at_least_K_ge_T, pass_at_K_ge_T (an epoch counts when it scores ≥ T; T = 1 when left out), or atLeast(k, threshold), passAt(k, threshold).',
  )
}
