/**
 * The evaluation settings as data: each option's zod rule, the sentence that states it and
 * its default. `evaluateWithScorer`, the part file and the run layer (`src/run/settings.ts`)
 * all check an option with its one rule here, so a bad value reads the same everywhere.
 */
import { z } from 'zod'
import { MAX_RESAMPLES } from '../math/bootstrap.ts'
import { AVERAGE_MODES, DEBIAS_MODES, DEFAULT_DEBIAS } from '../requests/orderings.ts'
import { ConfigError } from '../support/errors.ts'
import { optionKeysAt, unknownOptionText } from '../support/options.ts'
import { thousands } from '../support/thousands.ts'
import { resolveReducer, type Reducer, type ReducerLike } from './reducers.ts'
import { DEFAULT_PRIDE_FRACTION, MAX_EPOCHS } from './limits.ts'

/** Most requests per scorer call (`chunkSize`): a call's requests and prompts are built at once. */
export const MAX_CHUNK_SIZE = 100_000

/** Default requests per scorer call. */
export const DEFAULT_CHUNK_SIZE = 1024

// A reducer's own error says what is known (resolveReducer), so it is kept as the message.
const reducer = z.custom<ReducerLike>().superRefine((value, ctx) => {
  try {
    resolveReducer(value)
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: (error as Error).message })
  }
})

/** Each evaluation option's rule (without its default). */
export const EVALUATE_FIELDS = {
  debias: z.enum(DEBIAS_MODES),
  average: z.enum(AVERAGE_MODES),
  prideFraction: z.number().gt(0).lte(1),
  epochs: z.number().int().min(1).max(MAX_EPOCHS),
  reducer,
  statistics: z.union([
    z.boolean(),
    z.strictObject({ resamples: z.number().int().min(1).max(MAX_RESAMPLES).optional(), level: z.number().gt(0).lt(1).optional() }),
  ]),
  chunkSize: z.number().int().min(1).max(MAX_CHUNK_SIZE),
  seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
  storePrompts: z.boolean(),
  stopEarly: z.union([
    z.boolean(),
    z.strictObject({ alpha: z.number().gt(0).lt(1).optional(), batch: z.number().int().min(1).optional(), minDecisions: z.number().int().min(0).optional() }),
  ]),
  /** Largest share of labelled decisions allowed to fail scoring (with stopEarly, decided at the looks). */
  maxFailureRate: z.number().min(0).max(1),
}

/** What each rule asks for, as the error says it (`<option> must be <rule>, got <value>`), by option path. */
export const EVALUATE_RULES: Readonly<Record<string, string>> = {
  debias: `one of ${DEBIAS_MODES.join(', ')}`,
  average: `one of ${AVERAGE_MODES.join(', ')}`,
  prideFraction: 'a number in (0, 1]',
  epochs: `an integer ≥ 1 and ≤ ${MAX_EPOCHS}`,
  reducer: 'a reducer name (mean, median, mode, max, at_least_K, pass_at_K, …) or a reducer',
  statistics: 'true, false or { resamples?, level? }',
  'statistics.resamples': `an integer ≥ 1 and ≤ ${thousands(MAX_RESAMPLES)}`,
  'statistics.level': 'in (0, 1)',
  chunkSize: `an integer ≥ 1 and ≤ ${thousands(MAX_CHUNK_SIZE)} (requests per scorer call)`,
  seed: 'an integer ≥ 0',
  storePrompts: 'true or false',
  stopEarly: 'true, false or { alpha?, batch?, minDecisions? }',
  'stopEarly.alpha': 'in (0, 1)',
  'stopEarly.batch': 'an integer ≥ 1',
  'stopEarly.minDecisions': 'an integer ≥ 0',
  maxFailureRate: 'in [0, 1]',
}

/** The defaults of the evaluation options. */
export const EVALUATE_DEFAULTS = {
  debias: DEFAULT_DEBIAS,
  average: 'probability',
  prideFraction: DEFAULT_PRIDE_FRACTION,
  epochs: 1,
  reducer: 'mean',
  statistics: true,
  chunkSize: DEFAULT_CHUNK_SIZE,
  seed: 0,
  storePrompts: false,
  stopEarly: false,
  maxFailureRate: 0,
} as const satisfies { [K in keyof typeof EVALUATE_FIELDS]: z.input<(typeof EVALUATE_FIELDS)[K]> }

type Fields = Record<string, z.ZodType>
type WithDefaults<F extends Fields, D> = { [K in keyof F]: K extends keyof D ? z.ZodDefault<F[K]> : z.ZodOptional<F[K]> }

/** A strict schema of `fields`, each with its default from `defaults`, else optional. */
export function settingsSchema<F extends Fields, D extends Partial<Record<keyof F, unknown>>>(fields: F, defaults: D) {
  const shape = Object.fromEntries(
    Object.entries(fields).map(([key, field]) => [key, Object.hasOwn(defaults, key) ? field.default((defaults as Record<string, never>)[key]!) : field.optional()]),
  )
  return z.strictObject(shape as WithDefaults<F, D>)
}

/** A strict schema of `keys` of `fields`, all optional and without defaults (a view of given values). */
export function settingsView<F extends Fields, K extends keyof F & string>(fields: F, keys: readonly K[]) {
  const shape = Object.fromEntries(keys.map((key) => [key, fields[key]!.optional()]))
  return z.strictObject(shape as { [P in K]: z.ZodOptional<F[P]> })
}

/** How an error names the options and where they were given. */
export interface SettingsNaming {
  /** Leads the message, e.g. `describeDecisions("suite"): `. Default none. */
  where?: string | ((option: string) => string)
  /** The option as the user wrote it, e.g. `--pride-fraction` for `prideFraction`. Default the path. */
  name?: (path: string) => string
  /** The value as the user gave it, shown after `got` (e.g. the command line's string). */
  given?: (path: string) => unknown
}

/** Parse `input` with `schema`; the first problem is a one-line ConfigError stating the option's rule. */
export function parseSettings<S extends z.ZodType>(schema: S, input: unknown, rules: Readonly<Record<string, string>>, naming: SettingsNaming = {}): z.output<S> {
  const parsed = schema.safeParse(input)
  if (parsed.success) return parsed.data
  throw new ConfigError(settingsProblem(schema, parsed.error.issues[0]!, input, rules, naming))
}

function settingsProblem(schema: z.ZodType, issue: z.core.$ZodIssue, input: unknown, rules: Readonly<Record<string, string>>, naming: SettingsNaming): string {
  const keys = issue.path.map(String)
  const where = typeof naming.where === 'function' ? naming.where(keys[0] ?? (issue.code === 'unrecognized_keys' ? issue.keys[0]! : '')) : (naming.where ?? '')
  const name = (path: string) => (naming.name ? naming.name(path) : path)
  // The one sentence of every face for a misspelled key (a nested one: the top level is picked).
  if (issue.code === 'unrecognized_keys') return `${where}${unknownOptionText(keys, issue.keys[0]!, optionKeysAt(schema, keys))}`
  if (issue.code === 'custom') return `${where}${issue.message}`
  const path = keys.join('.')
  const value = naming.given ? naming.given(path) : keys.reduce<unknown>((at, key) => (at !== null && typeof at === 'object' ? (at as Record<string, unknown>)[key] : undefined), input)
  const rule = rules[path] ?? rules[keys[0] ?? ''] ?? issue.message.toLowerCase()
  return `${where}${name(path)} must be ${rule}, got ${shown(value)}`
}

/** A value as an error shows it: numbers as written (NaN too), strings quoted, the rest as JSON where it can be. */
export function shown(value: unknown): string {
  if (typeof value === 'number') return String(value)
  try {
    return JSON.stringify(value) ?? String(value)
  } catch {
    return String(value)
  }
}

/** Rules across options: a reducer defined only from K epochs (`pass_at_K`) needs `epochs ≥ K`, known before scoring. */
export function checkAcross(settings: { readonly epochs: number; readonly reducer: ReducerLike }, ctx: z.core.$RefinementCtx): void {
  let reducer: Reducer
  try {
    reducer = resolveReducer(settings.reducer)
  } catch {
    return // the reducer's own rule reports it
  }
  const { minEpochs, name } = reducer
  if (minEpochs !== undefined && settings.epochs < minEpochs)
    ctx.addIssue({ code: 'custom', path: ['reducer'], message: `reducer ${name} needs at least ${minEpochs} epochs, got epochs ${settings.epochs}`, input: settings })
}

/** The evaluation options of `evaluateWithScorer`, with their defaults. */
export const EvaluateSettingsSchema = settingsSchema(EVALUATE_FIELDS, EVALUATE_DEFAULTS).superRefine(checkAcross)
/** See {@link EvaluateSettingsSchema}. */
export type EvaluateSettings = z.output<typeof EvaluateSettingsSchema>

/** The evaluation options among `options`, checked and with defaults. */
export function parseEvaluateSettings(options: Readonly<Record<string, unknown>>, naming?: SettingsNaming): EvaluateSettings {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(EVALUATE_FIELDS)) if (options[key] !== undefined) picked[key] = options[key]
  return parseSettings(EvaluateSettingsSchema, picked, EVALUATE_RULES, naming)
}
