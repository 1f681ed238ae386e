/**
 * The sceptic reporter for Jest (`reporters: ['default', 'vitest-sceptic/jest/reporter']`):
 * after the run it prints the sceptic report of every `describeDecisions` suite, with the
 * marks of the Vitest reporter, and on GitHub Actions appends the job summary. Suite meta
 * comes from the workers through the run folder (channel.ts); each suite's tests as Jest
 * ended them come from the run's results, so a suite is never shown as passed when one of
 * its tests failed or did not run.
 */
import { relative } from 'node:path'
import { appendToFileSync } from '../core/support/files.ts'
import { openRunDir, readSuiteEntries } from './channel.ts'
import {
  checkReporterOptions,
  colorEnabled,
  githubSummary,
  renderReports,
  ScepticJestReporterOptionsSchema,
  withDeclaredChecks,
  type ScepticJestReporterOptions,
  type SuiteReport,
  type SuiteTest,
} from './decide.ts'

export type { ScepticJestReporterOptions }

/** The parts of Jest's global config this reads. */
interface JestGlobalConfig {
  rootDir: string
  json?: boolean
}

/** The parts of Jest's aggregated results this reads. */
interface JestResults {
  testResults: ReadonlyArray<{
    testFilePath: string
    /** Why the file did not run (it failed to load). */
    testExecError?: { message?: string }
    testResults: ReadonlyArray<{ ancestorTitles: readonly string[]; title: string; status: string }>
  }>
}

export default class ScepticJestReporter {
  private readonly dir: string
  private readonly root: string
  private readonly json: boolean
  private readonly options: ScepticJestReporterOptions
  /** An output the run promised that was not written: Jest fails the run on it. */
  private lastError: Error | undefined

  constructor(globalConfig: JestGlobalConfig, options: ScepticJestReporterOptions = {}) {
    // A misspelt option is an error before the run, never a summary silently written.
    this.options = checkReporterOptions(ScepticJestReporterOptionsSchema, options, 'vitest-sceptic/jest/reporter options')
    this.root = globalConfig.rootDir
    this.json = globalConfig.json === true
    // Jest builds its reporters before it starts a worker, so the workers inherit the folder's name.
    this.dir = openRunDir()
  }

  onRunComplete(_contexts: unknown, results: JestResults): void {
    for (const line of esmScorerHints(results, this.root)) process.stderr.write(`${line}\n`)
    const reports = collectReports(readSuiteEntries(this.dir), results, this.root)
    if (reports.length === 0) return
    // `jest --json` owns stdout; then the report goes to stderr, as Jest's own output does.
    const stream = this.json ? process.stderr : process.stdout
    stream.write(renderReports(reports, this.options.color ?? colorEnabled(stream)) + '\n')
    this.writeJobSummary(reports)
  }

  getLastError(): Error | undefined {
    return this.lastError
  }

  private writeJobSummary(reports: readonly SuiteReport[]): void {
    const file = process.env.GITHUB_STEP_SUMMARY
    if (process.env.GITHUB_ACTIONS !== 'true' || this.options.githubSummary === false || !file) return
    const suites = reports.map(({ file: path, meta, tests }) => ({ ...meta, file: path, ...(tests ? { tests } : {}), thresholds: meta.thresholds as Readonly<Record<string, number | undefined>> }))
    try {
      appendToFileSync(file, githubSummary(suites) + '\n')
    } catch (error) {
      this.lastError = new Error(`vitest-sceptic: cannot write the job summary to ${file}: ${(error as Error).message.split('\n')[0]}`)
      process.stderr.write(`${this.lastError.message}\n`)
    }
  }
}

/** Jest's test statuses in the words the report reads (Vitest's). */
const STATES: Readonly<Record<string, string>> = { passed: 'passed', failed: 'failed', pending: 'skipped', skipped: 'skipped', todo: 'skipped', disabled: 'skipped', focused: 'passed' }

/**
 * One report entry per suite entry, with its tests as Jest ended them: those under the suite's own
 * title path, at any depth. A suite none of whose tests ran has no path: its tests are those under
 * a describe block of its name that no other suite of the file claims.
 */
function collectReports(entries: ReturnType<typeof readSuiteEntries>, results: JestResults, root: string): SuiteReport[] {
  return entries.map(({ file, meta, path }) => {
    const claimed = new Set(entries.filter((entry) => entry.file === file && entry.path !== undefined).map((entry) => entry.path))
    const own = ({ ancestorTitles }: { ancestorTitles: readonly string[] }) =>
      path !== undefined ? ancestorTitles.join(' ') === path : ancestorTitles.at(-1) === meta.suite && !claimed.has(ancestorTitles.join(' '))
    const tests: SuiteTest[] = (results.testResults.find((r) => r.testFilePath === file)?.testResults ?? [])
      .filter(own)
      .map((t) => ({ name: t.title, state: STATES[t.status] ?? t.status }))
    return { file: relative(root, file) || file, meta, tests: withDeclaredChecks(tests, meta.checks) }
  })
}

/** Jest's words when its CommonJS mode cannot `require()` an ES module (Node before 24.9). */
const REQUIRE_ESM = /Must use import to load ES Module: (\S+\.mjs)\b/

/** One line per eval file that could not load an `.mjs` file (a scorer, say): the transform that loads it. */
function esmScorerHints(results: JestResults, root: string): string[] {
  return results.testResults.flatMap(({ testFilePath, testExecError }) => {
    const module = REQUIRE_ESM.exec(testExecError?.message ?? '')?.[1]
    if (module === undefined) return []
    return [`vitest-sceptic: ${relative(root, testFilePath)} cannot require() ${relative(root, module)}, an ES module, in Jest's CommonJS mode: add transform: { '\\\\.[mc]?[jt]sx?$': 'babel-jest' } to the Jest config`]
  })
}
