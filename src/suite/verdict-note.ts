/**
 * A suite's verdict where people look inside a test run: a test annotation (the Vitest
 * UI, the HTML and JUnit reporters, GitHub notices) and one line of test output (what
 * editor integrations show beside a test). Same sentence as the report's first line.
 */
import type { EvalResultJson } from '../core/result/result.ts'
import { lettersLine, percent } from '../report/format.ts'
import { runVerdict, type VerdictSeverity } from '../report/run-verdict.ts'

/** The annotation type Vitest shows beside the message. */
export const VERDICT_ANNOTATION = 'sceptic:verdict'

/** The verdict and the headline numbers, as one line: `answers by position: … · n = 56 · balanced accuracy 33.3% · …`. */
export function verdictNote(result: EvalResultJson): { severity: VerdictSeverity; message: string } {
  const { severity, sentence } = runVerdict(result)
  const numbers = [
    `n = ${result.n}`,
    `balanced accuracy ${percent(result.balancedAccuracy)}`,
    `order consistency ${percent(result.orderConsistency)}`,
    `letters picked ${lettersLine(result.letterDistribution, ' ')}`,
  ]
  return { severity, message: [sentence, ...numbers].join(' · ') }
}

/** The line of test output: the suite, then its verdict note. */
export function verdictOutputLine(suite: string, result: EvalResultJson): string {
  return `vitest-sceptic › ${suite}: ${verdictNote(result).message}`
}
