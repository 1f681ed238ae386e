/**
 * `vitest-sceptic/report`: turn results into what people look at. The HTML page
 * (self-contained, inline SVG) and GitHub Actions summaries and annotations. No
 * Vitest, no onnxruntime.
 */
export {
  chanceByCriterion,
  eceFromBins,
  expectedLetterShares,
  parseRecordsJsonl,
  parseResultJson,
  readExtras,
  reliabilityBins,
  renderHtmlReport,
} from './html.ts'
export type { HtmlReportOptions, Range, ReliabilityBin, ReportExtras, ReportRun } from './html.ts'
export { escapeData, escapeProperty, githubAnnotations, githubSummary, thresholdChecks } from './github.ts'
export type { GitHubSuite } from './github.ts'
