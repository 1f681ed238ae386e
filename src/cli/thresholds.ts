/** `--threshold KEY=VALUE` of `sceptic evaluate`: parsing, and the lines and exit code of the verdicts. */
import { evaluateThresholds, thresholdLabel } from '../core/thresholds/metrics.ts'
import type { EvalResult } from '../core/result/result.ts'
import { thresholdTestName, type Threshold } from '../core/thresholds/verdict.ts'
import { UsageError } from './usage-error.ts'
import { refuseUnknownThreshold } from '../core/thresholds/keys.ts'

/**
 * `KEY=VALUE` flags as thresholds: `accuracy=0.7` (a lower bound), `slotSensitivityGap=..0.1`
 * (an upper bound), `preferenceFairness=-0.05..0.05` (a range). A key given twice is refused.
 */
export function parseThresholdFlags(flags: readonly string[] | undefined): Record<string, Threshold> {
  const out: Record<string, Threshold> = {}
  for (const flag of flags ?? []) {
    const match = /^([A-Za-z][A-Za-z0-9_]*)=(.+)$/.exec(flag)
    if (!match) throw new UsageError(`--threshold takes KEY=VALUE (accuracy=0.7, slotSensitivityGap=..0.1, preferenceFairness=-0.05..0.05), got "${flag}"`)
    const [, key, value] = match as unknown as [string, string, string]
    if (Object.hasOwn(out, key)) throw new UsageError(`--threshold ${key} is given twice`)
    // No custom metric on the command line: any other name would gate nothing, after the whole run.
    refuseUnknownThreshold('--threshold: ', key, [])
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
  return out
}

/** One line per threshold (`✓ accuracy ≥ 0.7   0.812   decided after …`) and whether all passed. */
export function thresholdReport(result: EvalResult, thresholds: Readonly<Record<string, Threshold>>): { lines: string[]; pass: boolean } {
  const verdicts = evaluateThresholds(result, thresholds)
  const lines = verdicts.map((v) => {
    const name = thresholdTestName(v.key, thresholds[v.key]!)
    const detail = v.pass ? (v.sequential ?? '') : `${v.reason}${v.sequential && v.sequential !== v.reason ? ` (${v.sequential})` : ''}`
    return `${v.pass ? '✓' : '✗'} ${name.padEnd(28)} ${v.value === null ? 'n/a' : v.value.toFixed(3)}   ${thresholdLabel(v.key)}${detail ? `: ${detail}` : ''}`
  })
  return { lines, pass: verdicts.every((v) => v.pass) }
}
