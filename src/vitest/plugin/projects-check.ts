/**
 * The plugin with Vitest `projects` (docs/vitest.md#projects): a root `sceptic()` reaches a
 * project only through `extends: true` or the project's own plugins.
 */
import { ConfigError } from '../../core/support/errors.ts'

/** The name this plugin registers under (also how a project's plugin list is searched for it). */
export const PLUGIN_NAME = 'vitest:sceptic'

/**
 * A root `sceptic()` reaches a Vitest project only through `extends: true`: with `projects`
 * none of which inherits it nor lists it, no suite gets its gates, reporter or setup, and the
 * run would pass without them. Refused at startup. Projects given as paths or globs are read
 * by Vitest later and cannot be checked here; they are left alone.
 */
export function refuseUninheritedProjects(projects: unknown): void {
  if (!Array.isArray(projects) || projects.length === 0) return
  if (!projects.every((entry) => entry !== null && typeof entry === 'object')) return
  const reaches = (entry: { extends?: unknown; plugins?: unknown }) => Boolean(entry.extends) || hasPlugin(entry.plugins)
  if (projects.some(reaches)) return
  const error = new ConfigError(
    `vitest-sceptic: sceptic() is in the root config, but none of its ${projects.length} test.projects inherits it; add \`extends: true\` to the projects that run evals, or put sceptic() in their own plugins (docs/vitest.md#projects)`,
  )
  // Vitest prints a startup error's stack: this one is the user's config, not a bug here.
  error.stack = `${error.name}: ${error.message}`
  Object.defineProperty(error, 'exitCode', { enumerable: false })
  throw error
}

function hasPlugin(plugins: unknown): boolean {
  if (!Array.isArray(plugins)) return false
  return plugins.some((plugin) => (Array.isArray(plugin) ? hasPlugin(plugin) : (plugin as { name?: unknown } | null)?.name === PLUGIN_NAME))
}
