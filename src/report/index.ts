/**
 * `vitest-sceptic/report`: turn results into what people look at. The HTML page
 * (self-contained, inline SVG) and GitHub Actions summaries and annotations. No
 * Vitest, no onnxruntime.
 */
export { renderHtmlReport } from './html.ts'
export type { HtmlReportOptions } from './html.ts'
export { chanceByCriterion, eceFromBins, expectedLetterShares, readExtras, reliabilityBins } from './rederive.ts'
export type { Range, ReliabilityBin, ReportExtras } from './rederive.ts'
export { parseRecordsJsonl, parseResultJson } from './run-files.ts'
export type { ReportRun } from './run-files.ts'
export { githubAnnotations, githubSummary, thresholdChecks } from './github.ts'
export type { GitHubSuite } from './github.ts'
export { comparisonVerdict, runVerdict, significantChanges, VERDICT_RULE } from './run-verdict.ts'
export type { PairedChange, RunVerdict, VerdictSeverity } from './run-verdict.ts'
