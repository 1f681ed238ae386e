/**
 * fast-check as `npm run test:stress` sees it: every `fc.assert` runs many more times, with
 * a fresh random seed each run of the suite (a pinned `seed` is ignored, pinned `examples`
 * still run first). A property that fails one seed in a thousand turns CI red now and then;
 * here it fails in minutes, and fast-check prints the seed and the shrunk counterexample.
 *
 * - `STRESS_RUNS`: runs per property (overrides the factor).
 * - `STRESS_FACTOR`: multiplies each property's `numRuns` (default 100 runs); default 20.
 * - `STRESS_CAP`: at most this many runs per property; default 5000.
 */
import fcDefault, * as fc from '../../node_modules/fast-check/lib/fast-check.js'

export * from '../../node_modules/fast-check/lib/fast-check.js'

const positive = (name: string, fallback: number): number => {
  const value = Number(process.env[name])
  return Number.isFinite(value) && value > 0 ? value : fallback
}

function stressed<Ts>(params: fc.Parameters<Ts> = {}): fc.Parameters<Ts> {
  const numRuns = process.env.STRESS_RUNS
    ? positive('STRESS_RUNS', 100)
    : Math.min(positive('STRESS_CAP', 5000), (params.numRuns ?? 100) * positive('STRESS_FACTOR', 20))
  const { seed: _pinned, ...rest } = params
  return { ...rest, numRuns }
}

/** `fc.assert` with {@link stressed} parameters. */
export const assert = ((property: fc.IRawProperty<unknown>, params?: fc.Parameters<unknown>) =>
  fc.assert(property as never, stressed(params) as never)) as typeof fc.assert

export default { ...fcDefault, assert }
