/**
 * The sceptic reporter (`vitest-sceptic/reporter`, default export). After the run it
 * prints the sceptic report for every `describeDecisions` suite, with pass/fail
 * marks beside the thresholds and the baseline verdict (docs/vitest-plugin.md#the-reporter).
 */
import { appendToFileSync } from '../../core/support/files.ts'
import { planOutputs, writeOutputs } from '../../core/support/outputs.ts'
import { relative, resolve } from 'node:path'
import pc from 'picocolors'
import { checkReporterOptions, ScepticReporterOptionsSchema, type ScepticReporterOptions } from '../../suite/reporter-options.ts'
import type { UserConsoleLog } from 'vitest'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import { colorEnabled } from '../../report/index.ts'
import { githubAnnotations, githubSummary } from '../../report/github.ts'
import { withDeclaredChecks } from '../../report/suite-tests.ts'
import { renderHtmlReport } from '../../report/html.ts'
import { slug } from '../../suite/assertions/format.ts'
import { escapeControl } from '../../core/support/escape.ts'
import { readSuiteMeta } from '../../suite/meta.ts'
import { formatProgress, parseProgress } from '../../suite/progress.ts'
import { githubSuite, renderReports, type SuiteReport } from '../../suite/suite-report.ts'

// The report's renderers stay on this entry's public list; their home is the suite layer.
export { renderReports, renderSuite, type SuiteReport } from '../../suite/suite-report.ts'
export type { ScepticReporterOptions }
import { machineReporterOnStdout } from './report-stream.ts'


/**
 * Prints the sceptic report after Vitest's own summary. The report is built in
 * `onTestRunEnd` from the final task tree's suite meta, never from streamed events,
 * because `--merge-reports` replays the tree but not every event (docs/design.md#vitest-mechanics-the-code-relies-on).
 * Logging goes through `this.vitest.logger.log(...)` as a method call: taken off the
 * logger unbound it crashes (docs/design.md#vitest-mechanics-the-code-relies-on).
 */
export default class ScepticReporter implements Reporter {
  /** The Vitest instance, set in {@link onInit}. */
  protected vitest: Vitest | undefined
  private readonly options: ScepticReporterOptions

  constructor(options: ScepticReporterOptions = {}) {
    this.options = checkReporterOptions(ScepticReporterOptionsSchema, options, 'ScepticReporter options')
  }

  onInit(vitest: Vitest): void {
    this.vitest = vitest
  }

  /** Progress lines from workers (only sent on an interactive terminal; see progress.ts). */
  onUserConsoleLog(log: UserConsoleLog): void {
    const event = parseProgress(log.content)
    if (!event || !this.vitest || blobRun(this.vitest)) return
    this.print(this.colors().dim(`  ⋯ ${formatProgress(event)}`))
  }

  async onTestRunEnd(testModules: ReadonlyArray<TestModule>): Promise<void> {
    const vitest = this.vitest
    // A blob shard holds part of the run; the merged run prints the whole report.
    if (!vitest || blobRun(vitest)) return
    const reports = collectReports(testModules, vitest.config.root)
    if (reports.length === 0) return
    this.print(renderReports(reports, this.options.color ?? colorEnabled(this.stream())))
    this.writeGitHubOutput(reports)
    if (this.options.html) await this.writeHtml(reports, resolve(vitest.config.root, this.options.html))
  }

  /**
   * One HTML page per scored suite, planned as the CLI plans its outputs: a page over a
   * file a suite read, inside a suite's score cache, or two suites on one page, is refused (a ConfigError failing the
   * run) before any page is written. The paths written are logged.
   */
  private async writeHtml(reports: readonly SuiteReport[], path: string): Promise<void> {
    const scored = reports.filter((report) => report.meta.result)
    const pages = scored.map(({ meta }) => ({
      flag: `reporter html of "${meta.suite}"`,
      path: scored.length === 1 ? path : path.replace(/(\.html?)?$/, (ext) => `.${slug(meta.suite)}${ext || '.html'}`),
    }))
    const kept = reports.flatMap((report) => (report.meta.kept ?? []).map((path) => ({ flag: `the score cache of "${report.meta.suite}"`, path })))
    const planned = await planOutputs(pages, reports.flatMap((report) => report.meta.inputs ?? []), kept)
    try {
      await writeOutputs(planned.map((output, i) => ({ output, content: renderHtmlReport({ result: scored[i]!.meta.result!, records: scored[i]!.meta.records ?? null, label: scored[i]!.meta.suite }, { title: `Sceptic report: ${scored[i]!.meta.suite}` }) })))
    } catch (error) {
      this.failRun(`cannot write the HTML report: ${(error as Error).message}`)
      return
    }
    if (this.vitest) for (const { target } of planned) this.print(`vitest-sceptic: wrote ${relative(this.vitest.config.root, target)}`)
  }

  /** GitHub Actions job summary (and, when asked, annotations), from the same suite meta. */
  private writeGitHubOutput(reports: readonly SuiteReport[]): void {
    if (process.env.GITHUB_ACTIONS !== 'true') return
    const suites = reports.map(githubSuite)
    const summaryFile = process.env.GITHUB_STEP_SUMMARY
    if (this.options.githubSummary !== false && summaryFile) {
      try {
        appendToFileSync(summaryFile, githubSummary(suites) + '\n')
      } catch (error) {
        this.failRun(`cannot write the job summary to ${summaryFile}: ${(error as Error).message}`)
      }
    }
    if (this.options.githubAnnotations) for (const line of githubAnnotations(suites)) this.print(line)
  }

  /** An output the run promised was not written: one line, and the run fails (Vitest never resets a failing exit code). */
  private failRun(message: string): void {
    this.vitest?.logger.error(`vitest-sceptic: ${escapeControl(message.split('\n')[0]!)}`)
    process.exitCode = 1
  }

  /** stdout, unless a machine-readable reporter owns it (see report-stream.ts): then stderr. */
  private stream(): NodeJS.WriteStream {
    return this.vitest && machineReporterOnStdout(this.vitest.config, this.vitest.version) ? process.stderr : process.stdout
  }

  /** Print through Vitest's logger (as a method call) to {@link stream}. */
  private print(text: string): void {
    if (!this.vitest) return
    if (this.stream() === process.stderr) this.vitest.logger.error(text)
    else this.vitest.logger.log(text)
  }

  private colors() {
    return pc.createColors(this.options.color ?? colorEnabled(this.stream()))
  }
}

/** Whether the run writes blob reports (a shard of a run to be merged later). */
export function blobRun(vitest: Pick<Vitest, 'config'>): boolean {
  return (vitest.config.reporters ?? []).some((entry: unknown) => {
    const name = Array.isArray(entry) ? entry[0] : entry
    return name === 'blob'
  })
}

/** Every sceptic suite in the run, in module path order then declaration order. */
export function collectReports(testModules: ReadonlyArray<TestModule>, root: string): SuiteReport[] {
  const reports: SuiteReport[] = []
  const modules = [...testModules].sort((a, b) => (a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0))
  for (const module of modules) {
    const file = relative(root, module.moduleId) || module.moduleId
    for (const suite of module.children.allSuites()) {
      const meta = readSuiteMeta(suite.meta())
      if (!meta) continue
      const tests = [...suite.children.allTests()].map((test) => ({ name: test.name, state: test.result().state }))
      reports.push({ file, meta, tests: withDeclaredChecks(tests, meta.checks) })
    }
  }
  return reports
}
