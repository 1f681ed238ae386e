// One gate: pass or fail of a run is decided in src/run/gate.ts alone. The primitives that
// compare a measured value with a threshold are called only there, in their own home
// (src/core/thresholds, whose looks decide when a run may stop) and in the user's own
// matchers (src/vitest/assertions); every other module renders the gate's verdict.
import { readFileSync } from 'node:fs'
import { relative, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sourceFiles } from './source-files.ts'

const SRC = resolve(import.meta.dirname, '../../src')

/** Functions that decide whether a value meets a threshold, or whether a run passes. */
const DECIDERS = ['thresholdVerdict', 'evaluateThreshold', 'evaluateThresholds', 'meetsLowerBound', 'withStopEarly', 'failureRateProblem', 'boundsVerdict', 'lookStops', 'decideRun']

/** Where deciding may happen, as paths relative to src/ (a trailing `/` is a folder). */
const MAY_DECIDE = [
  'run/gate.ts',
  'run/failure-rate.ts',
  // Their home, and the looks of a run that may stop early.
  'core/thresholds/',
  'core/evaluate/stop-early.ts',
  // The user's own matchers (`toHaveBalancedAccuracy({ atLeast })`): assertions, not the run's gate.
  'vitest/assertions/',
]

/** Where `decideRun` may be called: the faces that render it. */
const RENDER_THE_GATE = ['run/gate.ts', 'cli/thresholds.ts', 'vitest/suite/describe-decisions.ts', 'vitest/shards/merge.ts', 'report/github.ts', 'report/html.ts', 'jest/decide.ts']

const allowed = (file: string, list: readonly string[]) => list.some((entry) => (entry.endsWith('/') ? file.startsWith(entry) : file === entry))

/** Code without comments and string literals, so a doc comment naming a rule is no call. */
function code(source: string): string {
  return source
    .replace(/\/\*[\s\S]*?\*\//g, '')
    .replace(/(^|[^:])\/\/.*$/gm, '$1')
    .replace(/`(?:\\.|[^`\\])*`|'(?:\\.|[^'\\\n])*'|"(?:\\.|[^"\\\n])*"/g, "''")
}

/** What a module does that decides pass or fail: calls of a decider, and comparisons with a threshold's bound or the failure rate. */
export function decisionsIn(source: string): string[] {
  const text = code(source)
  const found: string[] = []
  for (const name of DECIDERS) {
    const call = new RegExp(`(?<!function\\s)(?<![\\w.])${name}\\s*\\(`, 'g')
    for (const _ of text.matchAll(call)) found.push(`calls ${name}`)
  }
  const bound = /[<>]=?[ \t]*[\w.!?]*\b(?:bounds?|threshold)[!?]?\.(?:min|max)\b|\b(?:bounds?|threshold)[!?]?\.(?:min|max)!?[ \t]*(?:[-+][ \t]*\w+[ \t]*)?[<>]=?/g
  for (const match of text.matchAll(bound)) found.push(`compares with a bound: ${match[0]}`)
  const rate = /[<>]=?[ \t]*(?:[\w.]+\.)?maxFailureRate\b|\bmaxFailureRate[ \t]*(?:[-+][ \t]*\w+[ \t]*)?[<>]=?/g
  for (const match of text.matchAll(rate)) found.push(`compares with maxFailureRate: ${match[0]}`)
  return found
}

describe('one gate decides a run', () => {
  it('sees a planted decision: a decider call, a comparison with a bound, with the failure rate', () => {
    const planted = [
      "import { evaluateThreshold } from '../core/thresholds/metrics.ts'",
      'const ok = evaluateThreshold(result, key, 0.8).pass',
      'if (value < bounds.min) fail()',
      'const over = threshold.max! <= value',
      'if (failed / n > settings.maxFailureRate) fail()',
      '// evaluateThreshold(result) in a comment is no call',
      "const text = 'thresholdVerdict(x) in a string'",
    ].join('\n')
    expect(decisionsIn(planted)).toEqual([
      'calls evaluateThreshold',
      'compares with a bound: < bounds.min',
      'compares with a bound: threshold.max! <=',
      'compares with maxFailureRate: > settings.maxFailureRate',
    ])
  })

  it('no module outside the gate (and the deciders’ own homes) compares a value with a threshold or decides pass or fail', () => {
    const offenders = sourceFiles(SRC)
      .map((file) => relative(SRC, file))
      .filter((file) => file !== 'index.ts' && file !== 'core/index.ts' && !allowed(file, MAY_DECIDE))
      .flatMap((file) =>
        decisionsIn(readFileSync(resolve(SRC, file), 'utf8'))
          .filter((finding) => !(finding === 'calls decideRun' && allowed(file, RENDER_THE_GATE)))
          .map((finding) => `${file}: ${finding}`),
      )
    expect(offenders).toEqual([])
  })

  it('every face reaches the gate: the suites, the CLI, the shard merge, the job summary and the HTML page call decideRun', () => {
    for (const file of RENDER_THE_GATE.filter((f) => f !== 'run/gate.ts'))
      expect(decisionsIn(readFileSync(resolve(SRC, file), 'utf8')), file).toContain('calls decideRun')
  })
})
