/**
 * `vitest-sceptic/report`: turn results into what people look at. The terminal
 * report and comparison, the HTML page (self-contained, inline SVG), GitHub Actions
 * summaries and annotations, and the verdict rule. No Vitest, no onnxruntime.
 */
export { renderHtmlReport } from './html.ts'
export type { HtmlReportOptions } from './html.ts'
export { chanceByCriterion, expectedLetterShares, reliabilityBins } from '../core/metrics/from-records.ts'
export { eceFromBins } from '../core/metrics/headline.ts'
export type { ReliabilityBin } from '../core/metrics/headline.ts'
export { readExtras } from '../core/result/extras.ts'
export type { Range, ReportExtras } from '../core/result/extras.ts'
export { parseRecordsJsonl, parseResultJson } from './run-files.ts'
export type { ReportRun } from './run-files.ts'
export { githubAnnotations, githubSummary, thresholdChecks } from './github.ts'
export type { GitHubSuite } from './github.ts'
export { comparisonVerdict, runVerdict, significantChanges, VERDICT_RULE } from './run-verdict.ts'
export type { PairedChange, RunVerdict, VerdictSeverity } from './run-verdict.ts'
export { colorEnabled, render } from './terminal.ts'
export type { RenderOptions } from './terminal.ts'
export { renderComparison } from './terminal-comparison.ts'
export type { RenderComparisonOptions } from './terminal-comparison.ts'
export { eceNote } from '../core/statistics/ece-note.ts'
export type { EceNote } from '../core/statistics/ece-note.ts'
export { formatInterval } from './format.ts'
