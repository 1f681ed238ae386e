/**
 * The plugin adds, never removes: the eval globs join the project's own test globs, so
 * adding `sceptic()` to an existing config keeps its unit tests running.
 */

/**
 * The `test.include` to use with the plugin: the user's globs (or, when the config sets
 * none, Vitest's default `**\/*.{test,spec}.?(c|m)[jt]s?(x)`, which a set include would
 * otherwise replace) followed by each eval glob not already listed.
 *
 * @param user - the config's `test.include`, or `undefined` when it sets none
 * @param evals - the plugin's eval globs (default `['evals/**\/*.eval.{ts,mts,cts,js,mjs,cjs}']`)
 * @param vitestDefault - Vitest's default include (`configDefaults.include`)
 */
export function withEvalInclude(user: readonly string[] | undefined, evals: readonly string[], vitestDefault: readonly string[]): string[] {
  const base = user ?? vitestDefault
  return [...base, ...evals.filter((glob) => !base.includes(glob))]
}
