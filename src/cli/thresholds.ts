/** `--threshold KEY=VALUE` of `sceptic evaluate`: parsing, and the lines of the one gate's verdict. */
import { escapeControl } from '../core/support/escape.ts'
import { thresholdLabel } from '../core/thresholds/metrics.ts'
import type { Threshold } from '../core/thresholds/verdict.ts'
import type { EvalResultJson } from '../core/result/result.ts'
import { decideRun, type RunGate } from '../run/gate.ts'
import { UsageError } from './usage-error.ts'
import { checkThresholds } from '../core/thresholds/sequential/options.ts'
import { parseRunSettings } from '../run/settings.ts'

/**
 * `KEY=VALUE` flags as thresholds: `accuracy=0.7` (a lower bound), `slotSensitivityGap=..0.1`
 * (an upper bound), `preferenceFairness=-0.05..0.05` (a range). A key given twice is refused, and
 * a bound outside the metric's range or a range with min > max, as `evaluateWithScorer` refuses it.
 */
export function parseThresholdFlags(flags: readonly string[] | undefined): Record<string, Threshold> {
  const out: Record<string, Threshold> = {}
  for (const flag of flags ?? []) {
    const match = /^([A-Za-z][A-Za-z0-9_]*)=(.+)$/.exec(flag)
    if (!match) throw new UsageError(`--threshold takes KEY=VALUE (accuracy=0.7, slotSensitivityGap=..0.1, preferenceFairness=-0.05..0.05), got "${flag}"`)
    const [, key, value] = match as unknown as [string, string, string]
    if (Object.hasOwn(out, key)) throw new UsageError(`--threshold ${key} is given twice`)
    const number = (text: string) => {
      const n = Number(text)
      if (text.trim() === '' || !Number.isFinite(n)) throw new UsageError(`--threshold ${key}: "${value}" is not a number, ..MAX, MIN.. or MIN..MAX`)
      return n
    }
    const range = value.split('..')
    if (range.length === 1) out[key] = number(value)
    else if (range.length === 2 && (range[0] !== '' || range[1] !== ''))
      out[key] = { ...(range[0] !== '' ? { min: number(range[0]!) } : {}), ...(range[1] !== '' ? { max: number(range[1]!) } : {}) }
    else throw new UsageError(`--threshold ${key}: "${value}" is not a number, ..MAX, MIN.. or MIN..MAX`)
  }
  // The API's keys and ranges, here: `merge` gates without evaluateWithScorer, and evaluate refuses before loading a scorer.
  // No custom metric on the command line: any other name would gate nothing, after the whole run.
  return checkThresholds(out, [], '--threshold')
}

/** One line per check of the gate (`✓ accuracy ≥ 0.7   0.812   accuracy: …`, `✗ failure rate ≤ 0   …`); a metric or run name from data is escaped. */
export function gateLines(gate: RunGate): string[] {
  return gate.checks.map((check) => escapeControl(gateLine(check)))
}

/** One check's line, unescaped. */
function gateLine(check: RunGate['checks'][number]): string {
  const mark = check.verdict === 'pass' ? '✓' : '✗'
  if (check.key === 'failureRate') return `${mark} ${check.name.padEnd(28)} ${check.reason}`
  const value = check.value === undefined || check.value === null ? 'n/a' : check.value.toFixed(3)
  const detail = check.verdict === 'pass' ? (check.sequential ?? '') : `${check.reason}${check.sequential && !check.reason.includes(check.sequential) ? ` (${check.sequential})` : ''}`
  return `${mark} ${check.name.padEnd(28)} ${value}   ${thresholdLabel(check.key)}${detail ? `: ${detail}` : ''}`
}

/** `--max-failure-rate R` of `sceptic merge`: the run setting's one rule, refused in evaluate's words; default 0. */
export function parseMaxFailureRate(value: string | undefined): number {
  const rate = value === undefined ? undefined : value.trim() === '' ? Number.NaN : Number(value)
  return parseRunSettings({ maxFailureRate: rate }, { name: () => '--max-failure-rate', given: () => value }).maxFailureRate
}

/**
 * Gating outside Vitest: the one gate's verdict on `result`, one line per check on stdout,
 * and the exit code: 0 when the run passed (or nothing was declared and every decision
 * scored), 1 when a check failed. `part`: a shard's part, gated only once merged.
 */
export function gateExitCode(
  name: string,
  result: EvalResultJson,
  declared: { thresholds: Readonly<Record<string, Threshold>>; maxFailureRate: number; gated: boolean; part?: boolean },
): number {
  // The failure-rate rule holds at its default 0 even undeclared: failed decisions never exit 0 unsaid.
  if (!declared.gated && (declared.part || (result.failed ?? 0) === 0)) return 0
  const gate = decideRun({ name, thresholds: declared.thresholds, maxFailureRate: declared.maxFailureRate }, { result })
  process.stdout.write(['', 'gate:', ...gateLines(gate).map((line) => `  ${line}`), ''].join('\n'))
  return gate.passed ? 0 : 1
}
