/** The sceptic reporters' options, checked where they are given: a misspelt key is refused by name, a mistyped value by its key. */
import { z } from 'zod'
import { ConfigError } from '../core/index.ts'
import { firstIssue } from '../core/decisions/zod-issue.ts'
import { refuseUnknownOptions, type SameKeys } from '../core/support/options.ts'

/** Options of the Vitest reporter (`vitest-sceptic/reporter`). */
export interface ScepticReporterOptions {
  /** Colour the report. Default: on for a terminal, off for a pipe or under `NO_COLOR`. */
  color?: boolean
  /**
   * On GitHub Actions, append a Markdown table per suite to the job summary
   * (`GITHUB_STEP_SUMMARY`). Default `true`.
   */
  githubSummary?: boolean
  /**
   * On GitHub Actions, also print `::error` annotations for failed thresholds,
   * regressions and scoring failures. Default `false`: Vitest's own `github-actions`
   * reporter already annotates every failed test, including these.
   */
  githubAnnotations?: boolean
  /**
   * Also write the HTML report (see `sceptic report`) to this path, relative to the
   * Vitest root: one self-contained page per suite. With several suites the suite's
   * slug goes before the extension (`eval-report.support-triage.html`).
   */
  html?: string
}

/** The keys of {@link ScepticReporterOptions}, checked where they are given (the reporter, the plugin's `reporter`). */
export const ScepticReporterOptionsSchema = z.strictObject({
  color: z.boolean().optional(),
  githubSummary: z.boolean().optional(),
  githubAnnotations: z.boolean().optional(),
  html: z.string().optional(),
})

/** The keys of {@link ScepticJestReporterOptions}: the Vitest reporter's that the Jest reporter has. */
export const ScepticJestReporterOptionsSchema = ScepticReporterOptionsSchema.pick({ color: true, githubSummary: true })

/** Options of the Jest reporter (the second element of its `reporters` entry, `vitest-sceptic/jest/reporter`). */
export interface ScepticJestReporterOptions extends Pick<ScepticReporterOptions, 'color' | 'githubSummary'> {}

true satisfies SameKeys<z.input<typeof ScepticReporterOptionsSchema>, ScepticReporterOptions>
true satisfies SameKeys<z.input<typeof ScepticJestReporterOptionsSchema>, ScepticJestReporterOptions>

/** `options` checked against `schema`: a {@link ConfigError} naming an unknown key (and the nearest known one) or a value of the wrong type. */
export function checkReporterOptions<T>(schema: z.ZodType<T>, options: unknown, where: string): T {
  refuseUnknownOptions(schema, options, where)
  const parsed = schema.safeParse(options)
  if (parsed.success) return parsed.data
  const { field, message } = firstIssue(parsed.error)
  throw new ConfigError(`${where}: \`${field || 'options'}\` ${message}`)
}
