/**
 * Where the sceptic report goes. A machine-readable reporter (`json`, `junit`, `tap`,
 * `tap-flat`) may write its file format to stdout (`vitest run --reporter=json > r.json`),
 * and then nothing else may: the report goes to stderr. Otherwise it goes to stdout, after
 * Vitest's own summary. Vitest 4.1 writes these to stdout whenever they have no output
 * file; Vitest 5 writes `json`/`junit` to `.vitest/<name>/` unless given `{ stdout: true }`.
 */

/** Vitest's built-in reporters whose stdout output is a file format. */
const MACHINE_REPORTERS = new Set(['json', 'junit', 'tap', 'tap-flat'])

/** The parts of Vitest's resolved config this reads. */
export interface ReporterConfig {
  /** `test.reporters`: names, `[name, options]` tuples or reporter instances. */
  reporters?: readonly unknown[]
  /** `test.outputFile`: one path for every reporter, or a path per reporter name. */
  outputFile?: string | Readonly<Record<string, string>>
}

/** Reporters that Vitest 5 writes to a file by default (stdout only with `{ stdout: true }`). */
const FILE_BY_DEFAULT_SINCE_5 = new Set(['json', 'junit'])

/**
 * Whether some machine-readable reporter writes its output to stdout in this run.
 *
 * @param config - the resolved Vitest config
 * @param vitestVersion - the running Vitest's version, e.g. `'4.1.12'` or `'5.1.2'`
 */
export function machineReporterOnStdout(config: ReporterConfig, vitestVersion: string): boolean {
  const major = Number.parseInt(vitestVersion, 10)
  return (config.reporters ?? []).some((entry) => {
    const [name, options] = (Array.isArray(entry) ? entry : [entry, undefined]) as [unknown, { outputFile?: unknown; stdout?: unknown } | undefined]
    if (typeof name !== 'string' || !MACHINE_REPORTERS.has(name)) return false
    if (typeof options?.outputFile === 'string' && options.outputFile !== '') return false
    const file = typeof config.outputFile === 'string' ? config.outputFile : config.outputFile?.[name]
    if (typeof file === 'string' && file !== '') return false
    return !(major >= 5 && FILE_BY_DEFAULT_SINCE_5.has(name)) || options?.stdout === true
  })
}
