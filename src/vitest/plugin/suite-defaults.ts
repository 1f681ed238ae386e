/**
 * Suite defaults a team sets once on the plugin (docs/vitest-plugin.md#suite-defaults-on-the-plugin):
 * the run settings that are a project policy rather than a property of one suite, a view of
 * `RunSettings`. The plugin checks them and hands them to test workers through the provided
 * context; `describeDecisions` fills every option the suite leaves unset from them.
 */
import { parseSuiteDefaults, SUITE_DEFAULT_KEYS, type SuiteDefaults } from '../../run/settings.ts'

/** Pick the suite defaults out of the plugin's options and check them: a bad one is a `ConfigError` naming the option. */
export function suiteDefaultsFrom(options: Readonly<Record<string, unknown>>): SuiteDefaults {
  const picked: Record<string, unknown> = {}
  for (const key of SUITE_DEFAULT_KEYS) if (options[key] !== undefined) picked[key] = options[key]
  return parseSuiteDefaults(picked, { where: (option) => `vitest-sceptic: sceptic({ ${option} }): ` })
}

/** A suite's options with every unset suite default filled in from the plugin's; the suite's own values win. */
export function withSuiteDefaults<T extends object>(options: T, defaults: SuiteDefaults | undefined): T {
  if (!defaults) return options
  const merged = { ...options } as Record<string, unknown>
  for (const key of SUITE_DEFAULT_KEYS) if (merged[key] === undefined && defaults[key] !== undefined) merged[key] = defaults[key]
  return merged as T
}
