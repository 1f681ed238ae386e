/**
 * Watch mode reruns an eval file when what it reads changes. Its scorer module is an
 * import, so Vite's module graph already covers it; decision files and baselines are read
 * from disk, so the plugin adds them to Vitest's `forceRerunTriggers` (a change reruns the
 * eval files, as a config change does).
 */

/** Decision files: JSONL anywhere under the root (Vite's watcher skips node_modules). */
export const DATA_TRIGGER = '**/*.jsonl'

/**
 * The `test.forceRerunTriggers` to use: the config's own (or Vitest's default when it sets
 * none, which a set value would otherwise replace), plus decision files and the baseline
 * directory.
 *
 * @param user - the config's `test.forceRerunTriggers`, or `undefined` when unset
 * @param baseline - the plugin's `baseline` directory as given (relative to the root, or absolute), if any
 * @param vitestDefault - Vitest's default (`configDefaults.forceRerunTriggers`)
 */
export function withRerunTriggers(user: readonly string[] | undefined, baseline: string | undefined, vitestDefault: readonly string[]): string[] {
  const base = user ?? vitestDefault
  const ours = [DATA_TRIGGER]
  if (baseline !== undefined) {
    const dir = baseline.replace(/\\/g, '/').replace(/^\.\//, '').replace(/\/+$/, '')
    ours.push(dir.startsWith('/') ? `${dir}/**` : `**/${dir}/**`)
  }
  return [...base, ...ours.filter((glob) => !base.includes(glob))]
}
