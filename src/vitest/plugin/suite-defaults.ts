/**
 * Suite defaults a team sets once on the plugin (docs/vitest.md#suite-defaults-on-the-plugin):
 * the evaluation settings that are a project policy rather than a property of one suite.
 * The plugin checks them (a `ConfigError` naming the option) and hands them to test
 * workers through the provided context; `describeDecisions` fills every option the suite
 * leaves unset from them, so a suite's own option always wins.
 *
 * Only JSON values can cross from Vitest's main process to the workers, so a reducer is
 * given by name (`'median'`, `'pass_at_2'`), never as a function; thresholds, custom
 * metrics, templates, data and scorers stay per suite.
 */
import { z } from 'zod'
import { AVERAGE_MODES, ConfigError, DEBIAS_MODES, resolveReducer } from '../../core/index.ts'
import { MAX_DEADLINE_MS } from '../../core/support/abort.ts'
import { MAX_CHUNK_SIZE, MAX_EPOCHS } from '../../core/evaluate/options.ts'
import { MAX_RESAMPLES } from '../../core/math/bootstrap.ts'

/** The plugin-level defaults of `describeDecisions` options, checked on the way in. */
export const SuiteDefaultsSchema = z.strictObject({
  /** Debias mode of every suite (`none`, `cyclic`, `permutation`, `calibrated`, `pride`). */
  debias: z.enum(DEBIAS_MODES).optional(),
  /** How orderings are combined: `probability` or `log`. */
  average: z.enum(AVERAGE_MODES).optional(),
  /** Share of decisions `debias: 'pride'` scores under every rotation, in (0, 1]. */
  prideFraction: z.number().gt(0).lte(1).optional(),
  /** `true`, `false` (no bootstrap) or `{ resamples?, level? }` (integer ≥ 1; in (0, 1)). */
  statistics: z
    .union([z.boolean(), z.strictObject({ resamples: z.number().int().min(1).max(MAX_RESAMPLES).optional(), level: z.number().gt(0).lt(1).optional() })])
    .optional(),
  /** Requests per scorer call: an integer from 1 to 100,000. */
  chunkSize: z.number().int().min(1).max(MAX_CHUNK_SIZE).optional(),
  /** Times each (decision, ordering) is scored: an integer from 1 to 1000. */
  epochs: z.number().int().min(1).max(MAX_EPOCHS).optional(),
  /** Epoch reducer by name: `mean`, `median`, `mode`, `max`, `at_least_K`, `pass_at_K`. */
  reducer: z.string().optional(),
  /** Scoring timeout of each suite, in ms (> 0, at most 10^12). */
  timeout: z.number().positive().max(MAX_DEADLINE_MS).optional(),
  /** Largest share of labelled decisions allowed to fail scoring, in [0, 1]. */
  maxFailureRate: z.number().min(0).max(1).optional(),
  /** Stop scoring once every threshold is decided anytime-valid: `true`, `false` or `{ alpha?, batch?, minDecisions? }`. */
  stopEarly: z
    .union([
      z.boolean(),
      z.strictObject({ alpha: z.number().gt(0).lt(1).optional(), batch: z.number().int().min(1).optional(), minDecisions: z.number().int().min(0).optional() }),
    ])
    .optional(),
})

/** See {@link SuiteDefaultsSchema}. */
export type SuiteDefaults = z.infer<typeof SuiteDefaultsSchema>

/** The option names a plugin may set for every suite, in documentation order. */
export const SUITE_DEFAULT_KEYS = Object.keys(SuiteDefaultsSchema.shape) as readonly (keyof SuiteDefaults)[]

/**
 * Pick the suite defaults out of the plugin's options and check them: a bad one is a
 * `ConfigError` naming the option and the value, before any test runs.
 */
export function suiteDefaultsFrom(options: Readonly<Record<string, unknown>>): SuiteDefaults {
  const picked: Record<string, unknown> = {}
  for (const key of SUITE_DEFAULT_KEYS) if (options[key] !== undefined) picked[key] = options[key]
  const parsed = SuiteDefaultsSchema.safeParse(picked)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const path = issue.path.map(String)
    const value = path.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), picked)
    throw new ConfigError(`vitest-sceptic: sceptic({ ${path[0]} }): ${path.join('.')} ${issue.message.toLowerCase()}, got ${describe(value)}`)
  }
  if (parsed.data.reducer !== undefined) {
    try {
      resolveReducer(parsed.data.reducer as Parameters<typeof resolveReducer>[0])
    } catch (error) {
      throw new ConfigError(`vitest-sceptic: sceptic({ reducer }): ${(error as Error).message}`)
    }
  }
  return parsed.data
}

/** A suite's options with every unset suite default filled in from the plugin's; the suite's own values win. */
export function withSuiteDefaults<T extends object>(options: T, defaults: SuiteDefaults | undefined): T {
  if (!defaults) return options
  const merged = { ...options } as Record<string, unknown>
  for (const key of SUITE_DEFAULT_KEYS) if (merged[key] === undefined && defaults[key] !== undefined) merged[key] = defaults[key]
  return merged as T
}

function describe(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}
