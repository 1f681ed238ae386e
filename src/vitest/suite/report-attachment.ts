/**
 * The suite's sceptic page where Vitest shows it: the HTML report of this suite's run and its
 * letters-picked histogram, attached to the suite's first test as annotations with a file. An
 * annotation attachment (Vitest ≥ 3.2, on 4.1 and 5 alike) is what Vitest's UI and HTML
 * reporter list beside the test; `recordArtifact` would do the same but is experimental.
 */
import type { TestContext } from 'vitest'
import type { EvalResult } from '../../core/index.ts'
import { resultToJson } from '../../core/result/result.ts'
import { renderHtmlReport, renderLettersSvg } from '../../report/html.ts'

/** Annotation types of the two attachments. */
export const REPORT_ANNOTATION = 'sceptic:report'
export const LETTERS_ANNOTATION = 'sceptic:letters'

/** Past this many records the page carries the aggregates only (its per-record charts say what is missing), so an attachment stays small. */
export const ATTACHED_RECORDS_LIMIT = 5_000

/** Attach the suite's page and letter histogram to the calling test. */
export async function attachReport(annotate: TestContext['annotate'], suite: string, result: EvalResult): Promise<void> {
  const run = { result: resultToJson(result), label: suite, ...(result.records.length <= ATTACHED_RECORDS_LIMIT ? { records: result.records } : {}) }
  const page = renderHtmlReport(run, { title: `Sceptic report: ${suite}` })
  await annotate(`sceptic report of "${suite}" (HTML)`, REPORT_ANNOTATION, { contentType: 'text/html', body: page, bodyEncoding: 'utf-8' })
  await annotate(`letters picked in "${suite}" (SVG)`, LETTERS_ANNOTATION, { contentType: 'image/svg+xml', body: renderLettersSvg(run), bodyEncoding: 'utf-8' })
}
