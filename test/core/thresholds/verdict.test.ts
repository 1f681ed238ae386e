import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { render } from '../../../src/report/terminal.ts'
import { resultToJson, type EvalResult, type EvalResultJson } from '../../../src/core/result/result.ts'
import { evaluateThreshold, evaluateThresholds } from '../../../src/core/thresholds/metrics.ts'
import { assertThreshold, thresholdTestName, thresholdVerdict } from '../../../src/core/thresholds/verdict.ts'
import { githubAnnotations, githubSummary, thresholdChecks, type GitHubSuite } from '../../../src/report/github.ts'
import { renderHtmlReport } from '../../../src/report/html.ts'
import { thresholdMark } from '../../../src/suite/assertions/format.ts'
import { byId, decision } from '../../helpers/decisions.ts'

const quiet = { onWarning: () => {} }

/** 10 decisions, 7 answered right by a content reader: accuracy 7/10 = 0.7 as the evaluator computes it. */
async function sevenOfTen(): Promise<EvalResult> {
  const rows = Array.from({ length: 10 }, (_, i) => decision(2, 0, { id: `d${i}`, state: String(i) }))
  const reader = byId((id, state) => (Number(state) < 7 ? (id === 'o0' ? 0.9 : 0.1) : id === 'o1' ? 0.9 : 0.1))
  return evaluateWithScorer(rows, reader, { debias: 'cyclic', statistics: false, metrics: { hitRate: (s) => s.filter((x) => x.value === 1).length / s.length }, ...quiet })
}

describe('threshold verdict: one rule', () => {
  it('lower bounds and ranges, with float slack; fails closed on missing, null and NaN', () => {
    expect(thresholdVerdict('a', 0.7, 0.6999999999999998)).toMatchObject({ pass: true, reason: null })
    expect(thresholdVerdict('a', 0.7, 0.69)).toMatchObject({ pass: false, reason: '0.690 is below the bound 0.70' })
    expect(thresholdVerdict('g', { max: 0.1 }, 0.15)).toMatchObject({ pass: false, reason: '0.150 is above the bound 0.10' })
    expect(thresholdVerdict('g', { max: 0.1 }, 0.1000000000001).pass).toBe(true)
    expect(thresholdVerdict('f', { min: -0.05, max: 0.05 }, -0.05).pass).toBe(true)
    expect(thresholdVerdict('f', { min: -0.05, max: 0.05 }, -0.06).pass).toBe(false)
    for (const value of [null, undefined, Number.NaN, Infinity]) {
      const verdict = thresholdVerdict('x', { max: 1 }, value)
      expect(verdict.pass).toBe(false)
      expect(verdict.reason).toMatch(/not measurable/)
    }
  })

  it('test names say the condition as written', () => {
    expect(thresholdTestName('orderConsistency', 0.8)).toBe('orderConsistency ≥ 0.8')
    expect(thresholdTestName('slotSensitivityGap', { max: 0.1 })).toBe('slotSensitivityGap ≤ 0.1')
    expect(thresholdTestName('preferenceFairness', { min: -0.05, max: 0.05 })).toBe('preferenceFairness in [-0.05, 0.05]')
  })

  it('malformed thresholds are a clear error naming the key', () => {
    expect(() => assertThreshold('suite', 'x', { max: 0.1, foo: 1 })).toThrow(/threshold x must be a finite number .* or \{ min\?, max\? \}/)
    expect(() => assertThreshold('suite', 'x', {})).toThrow(/needs `min`, `max` or both/)
    expect(() => assertThreshold('suite', 'x', { min: 0.5, max: 0.1 })).toThrow(/`min` must not exceed `max`/)
    expect(() => assertThreshold('suite', 'x', Number.NaN)).toThrow(/got NaN/)
    expect(() => assertThreshold('suite', 'x', 1.5, [0, 1])).toThrow(/must lie in \[0, 1\], got 1.5/)
    expect(() => assertThreshold('suite', 'x', { max: 0.1 }, [0, 1])).not.toThrow()
  })

  it('a measured 7/10 passes the test AND shows ✅ in the job summary (regression: github.ts used value >= bound)', async () => {
    // 7/10 as a float sum gives 0.6999999999999998 (e.g. ten 0.1 steps of a running mean).
    const result = { ...resultToJson(await sevenOfTen()), accuracy: 0.6999999999999998 }
    const suite: GitHubSuite = { suite: 's', file: 'e.eval.ts', thresholds: { accuracy: 0.7 }, result }
    expect(evaluateThreshold(result, 'accuracy', 0.7).pass).toBe(true)
    expect(thresholdChecks(suite)[0]!.pass).toBe(true)
    expect(githubSummary([suite])).toContain('### ✅ s')
    expect(githubSummary([suite])).toMatch(/\| accuracy \| 70\.0% .*\| ≥ 70\.0% \| ✅ \|/)
    expect(githubAnnotations([suite])).toEqual([])
  })

  it('a custom-metric threshold reads the custom metric (regression: "n/a is below the bound")', async () => {
    const result = resultToJson(await sevenOfTen())
    const passing: GitHubSuite = { suite: 's', file: 'e.eval.ts', thresholds: { hitRate: 0.6 }, result }
    expect(githubSummary([passing])).toMatch(/\| hitRate \| 0\.7 \| ≥ 0\.6 \| ✅ \|/)
    expect(githubAnnotations([passing])).toEqual([])
    const failing: GitHubSuite = { ...passing, thresholds: { hitRate: 0.8 } }
    expect(githubAnnotations([failing])).toEqual(['::error file=e.eval.ts,title=s > hitRate ≥ 0.8::hitRate 0.7 is below the bound 0.8; letters picked A:50%25 B:50%25'])
  })

  it('an unknown key fails with its reason everywhere, never a skipped gate', async () => {
    const result = resultToJson(await sevenOfTen())
    const verdict = evaluateThreshold(result, 'balancedAcuracy', 0.5)
    expect(verdict.pass).toBe(false)
    expect(verdict.reason).toMatch(/unknown threshold "balancedAcuracy"/)
    const suite: GitHubSuite = { suite: 's', file: 'e.eval.ts', thresholds: { balancedAcuracy: 0.5 }, result }
    expect(githubSummary([suite])).toContain('### ❌ s')
    expect(githubAnnotations([suite])[0]).toMatch(/unknown threshold/)
    // No result (scoring failed): every threshold fails.
    expect(evaluateThresholds(undefined, { accuracy: 0.1 })[0]).toMatchObject({ pass: false, reason: 'the suite was not scored' })
  })

  it('property: the test, the terminal mark and the job summary always agree', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 0, max: 40 }),
        fc.boolean(),
        (hits, extra, boundHits, asRange) => {
          const n = hits + extra
          const value = hits / n
          const bound = Math.min(boundHits, n) / n
          const threshold = asRange ? { min: bound } : bound
          const test = evaluateThreshold({ accuracy: value } as EvalResultJson, 'accuracy', threshold).pass
          const suite: GitHubSuite = { suite: 's', file: 'f', thresholds: { accuracy: threshold }, result: { accuracy: value, metrics: {} } as unknown as EvalResultJson }
          const mark = thresholdMark(thresholdChecks(suite)[0]!.pass, threshold).startsWith('✓')
          expect(mark).toBe(test)
          expect(thresholdChecks(suite)[0]!.pass).toBe(test)
          expect(test).toBe(hits >= Math.min(boundHits, n))
        },
      ),
    )
  })
})

describe('ECE reliability: terminal and HTML agree', () => {
  it('both flag or both trust, from the same rule (regression: the page used n < 300 alone)', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => decision(2, i % 2, { id: `d${i}`, state: String(i) }))
    const base = await evaluateWithScorer(rows, byId((id) => (id === 'o0' ? 0.7 : 0.3)), { debias: 'cyclic', ...quiet })
    const variants: [string, EvalResult][] = [
      ['small n', base],
      ['large n, within the noise floor', { ...base, n: 400, statistics: { ...base.statistics!, eceReliable: false } }],
      ['large n, above the noise floor', { ...base, n: 400, statistics: { ...base.statistics!, eceReliable: true } }],
    ]
    const flagged: Record<string, [boolean, boolean]> = {}
    for (const [name, result] of variants) {
      const terminal = /^ece .*read the Brier score/m.test(render(result, { color: false }))
      const html = /data-metric="ece"[^]*?read the Brier score/.test(renderHtmlReport({ result: resultToJson(result), records: null }))
      flagged[name] = [terminal, html]
    }
    expect(flagged).toEqual({
      'small n': [true, true],
      'large n, within the noise floor': [true, true],
      'large n, above the noise floor': [false, false],
    })
  })
})

describe('describeDecisions refuses bad thresholds when the suite is declared', () => {
  const base = { data: [decision(2, 0, { id: 'a' })], scorer: byId(() => 1) }
  it.each([
    [{ slotSensitivityGap: { max: 0.1, maximum: 1 } }, 'cyclic', /unknown option `thresholds\.slotSensitivityGap\.maximum` in describeDecisions\("s"\) options \(known: `thresholds\.slotSensitivityGap\.min`, `thresholds\.slotSensitivityGap\.max`\)/],
    [{ preferenceFairness: { min: 0.1, max: -0.1 } }, 'cyclic', /`min` must not exceed `max`/],
    [{ preferenceFairness: { min: -2 } }, 'cyclic', /threshold preferenceFairness must lie in \[-1, 1\], got -2/],
    [{ circularAcuracy: 0.5 }, 'cyclic', /unknown threshold "circularAcuracy"/],
    [{ slotSensitivityGap: { max: 0.1 } }, 'none', /a slotSensitivityGap threshold needs more than one ordering, but debias is "none"/],
    [{ positionConsistency: 0.9 }, 'none', /a positionConsistency threshold needs more than one ordering/],
  ] as const)('%j with debias %s', async (thresholds, debias, message) => {
    const { describeDecisions } = await import('../../../src/vitest/suite/describe-decisions.ts')
    expect(() => describeDecisions('s', { ...base, debias, thresholds: thresholds as never })).toThrow(message)
  })
})
