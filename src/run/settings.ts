/**
 * `RunSettings`: every option of one evaluation run, its rule and its default, for both
 * front ends (`sceptic evaluate` and `describeDecisions`). The plugin's suite defaults and a
 * shard's part-file settings are views of it.
 */
import { z } from 'zod'
import { checkAcross, EVALUATE_DEFAULTS, EVALUATE_FIELDS, EVALUATE_RULES, parseSettings, settingsSchema, settingsView, type SettingsNaming } from '../core/evaluate/settings.ts'
import { MAX_DEADLINE_MS } from '../core/support/abort.ts'

/** Each run option's rule: the evaluation's, and how long and how badly a run may go. */
export const RUN_FIELDS = {
  ...EVALUATE_FIELDS,
  /** Bound on the whole run, in ms. */
  timeout: z.number().positive().max(MAX_DEADLINE_MS),
}

/** What each run option's rule asks for, by option path. */
export const RUN_RULES: Readonly<Record<string, string>> = {
  ...EVALUATE_RULES,
  timeout: 'a positive number of milliseconds up to 1e12 (about 31 years)',
}

/** The run options' defaults; `timeout` has none (no bound). */
export const RUN_DEFAULTS = { ...EVALUATE_DEFAULTS } as const

/** Every option of one run, checked, with its default. */
export const RunSettingsSchema = settingsSchema(RUN_FIELDS, RUN_DEFAULTS).superRefine(checkAcross)
/** See {@link RunSettingsSchema}. */
export type RunSettings = z.output<typeof RunSettingsSchema>
/** The run options as a user gives them (each optional). */
export type RunSettingsInput = z.input<typeof RunSettingsSchema>

/** The run options among `options` (others are ignored), checked and with defaults: the one check of each. */
export function parseRunSettings(options: Readonly<Record<string, unknown>>, naming?: SettingsNaming): RunSettings {
  const picked: Record<string, unknown> = {}
  for (const key of Object.keys(RUN_FIELDS)) if (options[key] !== undefined) picked[key] = options[key]
  return parseSettings(RunSettingsSchema, picked, RUN_RULES, naming)
}

// A reducer by name, with the reducer rule's own message.
const reducerName = z.string().superRefine((value, ctx) => {
  const parsed = EVALUATE_FIELDS.reducer.safeParse(value)
  if (!parsed.success) ctx.addIssue({ code: 'custom', message: parsed.error.issues[0]!.message })
})

/** The options a plugin may set for every suite, in documentation order. */
export const SUITE_DEFAULT_KEYS = ['debias', 'average', 'prideFraction', 'statistics', 'chunkSize', 'epochs', 'reducer', 'timeout', 'maxFailureRate', 'stopEarly'] as const

/**
 * The plugin's suite defaults: a view of the run options without defaults (a suite's own
 * value wins). Only JSON crosses to the test workers, so a reducer is given by name.
 */
export const SuiteDefaultsSchema = settingsView({ ...RUN_FIELDS, reducer: reducerName }, SUITE_DEFAULT_KEYS)
/** See {@link SuiteDefaultsSchema}. */
export type SuiteDefaults = z.infer<typeof SuiteDefaultsSchema>

/** Check the suite defaults a plugin was given; a bad one is a ConfigError naming it. */
export function parseSuiteDefaults(picked: Readonly<Record<string, unknown>>, naming?: SettingsNaming): SuiteDefaults {
  return parseSettings(SuiteDefaultsSchema, picked, RUN_RULES, naming)
}
