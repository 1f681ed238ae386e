import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { compareResults } from '../../src/core/compare/compare.ts'
import { loadDecisions } from '../../src/core/decisions/load.ts'
import type { Decision } from '../../src/core/decisions/schema.ts'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { resultToJson, type DecisionRecord, type EvalResult, type EvalResultJson } from '../../src/core/result/result.ts'
import type { ScoreFn } from '../../src/core/scorer/contract.ts'
import { detectableChange, formatInterval, formatP, lettersLine, metricValue, percent, signedPoints } from '../../src/report/format.ts'
import { githubSummary } from '../../src/report/github.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { comparisonVerdict, runVerdict, significantChanges, VERDICT_RULE } from '../../src/report/run-verdict.ts'
import { render } from '../../src/report/terminal.ts'
import { renderComparison } from '../../src/report/terminal-comparison.ts'
import { baselineFromResult, compareWithBaseline } from '../../src/suite/baseline/file.ts'
import { ROOT } from '../helpers/run.ts'

const quiet = { onWarning: () => {} }

async function run(scorer: string, data: string, debias: 'cyclic' | 'none' = 'cyclic'): Promise<EvalResult> {
  const score = (await import(pathToFileURL(join(ROOT, 'examples/scorers', scorer)).href)).default as ScoreFn
  return evaluateWithScorer(await loadDecisions(join(ROOT, 'examples/data', data)), score, { debias, ...quiet })
}

describe('the run verdict on the example scorers', () => {
  let first: EvalResult, reader: EvalResult, pairwise: EvalResult, judge: EvalResult, once: EvalResult
  beforeAll(async () => {
    ;[first, reader, pairwise, judge, once] = await Promise.all([
      run('always-first.mjs', 'tickets.jsonl'),
      run('keyword-reader.mjs', 'tickets.jsonl'),
      run('pairwise-first-bias.mjs', 'pairs.jsonl'),
      run('judge-first-bias.mjs', 'judge.jsonl'),
      run('keyword-reader.mjs', 'tickets.jsonl', 'none'),
    ])
  })

  it('a positional scorer answers by position; a reader reads the evidence', () => {
    expect(runVerdict(first)).toEqual({ severity: 'fail', sentence: 'answers by position: order consistency 0%, letter A picked 100%' })
    expect(runVerdict(reader)).toEqual({ severity: 'pass', sentence: 'reads the evidence: 96% balanced accuracy, 100% order consistency' })
  })

  it('a judge that prefers the first-shown answer is caught by its pairs, at 100% accuracy', () => {
    expect(pairwise.accuracy).toBe(1)
    expect(runVerdict(pairwise)).toEqual({ severity: 'fail', sentence: 'answers by position: order consistency 58%, first-shown option picked 71%' })
  })

  it('mostly right but order-sensitive warns; one ordering cannot tell', () => {
    expect(runVerdict(judge)).toEqual({ severity: 'warn', sentence: 'answers change with the order shown: order consistency 83%, balanced accuracy 94%' })
    expect(runVerdict(once).severity).toBe('warn')
    expect(runVerdict(once).sentence).toMatch(/^order not tested: balanced accuracy 96% from one ordering per decision/)
  })

  it('a few decisions: letter shares alone never call a run positional; the tests say what 4 decisions can', async () => {
    const tiny = await evaluateWithScorer((await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl'))).slice(0, 4), (await import(pathToFileURL(join(ROOT, 'examples/scorers/always-first.mjs')).href)).default, { debias: 'cyclic', ...quiet })
    const verdict = runVerdict(tiny)
    expect(tiny.n).toBeLessThan(VERDICT_RULE.minDecisions)
    expect(verdict.sentence).not.toMatch(/^answers by position/)
    expect(verdict.severity).not.toBe('pass')
  })

  it("two decisions cannot tell a reader from guessing: getting-started's data, for the reader and the positional scorer alike", async () => {
    // The two-line data/eval.jsonl of docs/getting-started.md: one 4-option and one yes/no decision.
    const page = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8')
    const rows = /```jsonl\n([\s\S]*?)```/.exec(page.slice(page.indexOf('## In your own project')))![1]!.trim().split('\n').map((line) => JSON.parse(line) as Decision)
    expect(rows).toHaveLength(2)
    const byGold: ScoreFn = (requests) => requests.map(({ state, criterion }) => criterion.options.map((o) => (rows.find((r) => r.state === state && r.criterion.key === criterion.key)!.answer_id === o.id ? 3 : 1)))
    const alwaysFirst: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((_, slot) => (slot === 0 ? 1 : 0)))
    const right = await evaluateWithScorer(rows, byGold, { debias: 'cyclic', ...quiet })
    const positional = await evaluateWithScorer(rows, alwaysFirst, { debias: 'cyclic', ...quiet })
    expect([right.balancedAccuracy, positional.balancedAccuracy]).toEqual([1, 0])
    // Even both right: p = 1/4 · 1/2 = 0.125 against a guesser, and the majority baseline is already 100%.
    expect(right.statistics!.verdicts.balancedAccuracy.decidable).toBe(false)
    expect(positional.statistics!.verdicts.balancedAccuracy.decidable).toBe(false)
    // Before: "no better than guessing: balanced accuracy 100%, the majority baseline 100%" for the reader.
    expect(runVerdict(right)).toEqual({
      severity: 'unknown',
      sentence: 'too few decisions to tell: balanced accuracy 100% at n = 2, where even every decision right would not clear chance 38% and the majority baseline 100%',
    })
    expect(runVerdict(positional)).toEqual({
      severity: 'unknown',
      sentence: 'too few decisions to tell: balanced accuracy 0% at n = 2, where even every decision right would not clear chance 38% and the majority baseline 100%',
    })
    // The example sets can decide, so a scorer that ignores the evidence there is still called a guesser.
    expect([first, reader, pairwise, judge].map((r) => r.statistics!.verdicts.balancedAccuracy.decidable)).toEqual([true, true, true, true])
    const sameId: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((o) => (o.id === criterion.options.map((x) => x.id).sort()[0] ? 3 : 1)))
    const constant = await evaluateWithScorer(await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl')), sameId, { debias: 'cyclic', ...quiet })
    expect(runVerdict(constant)).toMatchObject({ severity: 'fail', sentence: expect.stringMatching(/^no better than guessing: balanced accuracy \d+%, /) })
  })

  it('every output opens with the same sentence', () => {
    for (const result of [first, reader, pairwise]) {
      const { sentence } = runVerdict(result)
      expect(render(result, { color: false }).split('\n')[0]).toBe(`verdict            ${sentence}`)
      const html = renderHtmlReport({ result: resultToJson(result), records: result.records })
      const verdict = /<p id="verdict" class="verdict-line (\w+)" data-severity="\w+">([^<]*)<\/p>/.exec(html)
      expect(verdict?.[2]).toBe(sentence)
      expect(verdict?.[1]).toBe(runVerdict(result).severity)
      expect(html.indexOf('id="verdict"')).toBeLessThan(html.indexOf('class="card'))
      const md = githubSummary([{ suite: 's', file: 'e.eval.ts', result: resultToJson(result) }])
      expect(md.split('\n').find((line) => line.includes(sentence))).toMatch(/^(🔴|🟢|🟠|⚪) \*\*/)
    }
  })

  it('property: any result gets one non-empty line; none at n = 0, and below the minimum no positional call from shares', () => {
    const share = fc.oneof(fc.constant(0), fc.constant(1), fc.double({ min: 0, max: 1, noNaN: true }))
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        share,
        fc.option(share),
        fc.dictionary(fc.constantFrom('A', 'B', 'C', 'AA'), share),
        fc.option(fc.record({ p: fc.double({ min: 0, max: 1, noNaN: true }), chiSquare: fc.constant(1), df: fc.constant(1), cramersV: fc.constant(0.1) })),
        fc.option(share),
        (n, ba, oc, letters, slotBias, firstShown) => {
          const result = {
            n,
            balancedAccuracy: ba,
            accuracy: ba,
            orderConsistency: oc,
            letterDistribution: letters,
            slotBias,
            pairwise: firstShown === null ? null : { firstShownRate: firstShown },
            manifest: { chance: 0.25 },
          } as unknown as EvalResultJson
          const v = runVerdict(result)
          expect(v.sentence.length).toBeGreaterThan(0)
          expect(v.sentence).not.toMatch(/\n|NaN|undefined/)
          if (n === 0) expect(v.severity).toBe('unknown')
          if (n < VERDICT_RULE.minDecisions) expect(v.sentence).not.toMatch(/^answers by position/)
          if (v.severity === 'pass') expect(oc).toBeGreaterThanOrEqual(VERDICT_RULE.readsOrderConsistency)
        },
      ),
    )
  })
})

/** Records of `n` decisions; `consistent(i)` decides whether decision i's picks agree over 2 orderings (always right at the end). */
function records(n: number, consistent: (i: number) => boolean): DecisionRecord[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    criterion: 'c',
    gold: 'x',
    prediction: 'x',
    probabilities: { x: 0.7, y: 0.3 },
    picks: consistent(i) ? ['x', 'x'] : ['x', 'y'],
    letters: consistent(i) ? ['A', 'B'] : ['A', 'A'],
  }))
}

describe('the comparison verdict', () => {
  it('order consistency falling 46.7 points with equal hits is the headline, not "no difference"', () => {
    // 30 decisions, all right on both sides; 14 stop being order-consistent: exact McNemar 2·(1/2)^14 = 1.2e-4.
    const c = compareResults({ records: records(30, () => true) }, { records: records(30, (i) => i >= 14) }, { labels: ['base', 'tuned'] })
    expect(c.mcnemar.discordant).toBe(0)
    expect(c.orderConsistency!.mcnemar.pTwoSided).toBeCloseTo(2 * 0.5 ** 14, 12)
    const verdict = comparisonVerdict(c)
    expect(verdict).toEqual({
      severity: 'fail',
      sentence: 'tuned is worse than base: order consistency −46.7 pp (exact p = 0.000122), decisions answered by position +46.7 pp (exact p = 0.000122)',
    })
    const text = renderComparison(c, { color: false })
    expect(text.split('\n')[0]).toBe(`verdict            ${verdict.sentence}`)
    expect(text).not.toMatch(/no difference/)
  })

  it('the two-run HTML page opens with the comparison verdict; each run keeps its own below', () => {
    const base = records(30, () => true)
    const tuned = records(30, (i) => i >= 14)
    const json = (rs: DecisionRecord[]) =>
      ({ accuracy: 1, balancedAccuracy: 1, orderConsistency: rs.filter((r) => r.picks[0] === r.picks[1]).length / rs.length, perCriterion: { c: 1 }, letterDistribution: { A: 0.5, B: 0.5 }, ece: null, brier: null, n: rs.length, manifest: { debias: 'cyclic', orderingsScored: 2, chance: 0.5, unlabelledSkipped: 0 } }) as unknown as EvalResultJson
    const paired = renderHtmlReport([{ result: json(base), records: base }, { result: json(tuned), records: tuned }])
    const page = /<p id="verdict" class="verdict-line (\w+)"[^>]*>([^<]*)<\/p>/.exec(paired)
    expect(page?.[1]).toBe('fail')
    expect(page?.[2]).toBe('B is worse than A: order consistency −46.7 pp (exact p = 0.000122), decisions answered by position +46.7 pp (exact p = 0.000122)')
    expect(paired.match(/class="verdict-line /g)).toHaveLength(3)
    expect(paired).not.toMatch(/No difference in hits/)
    const bare = renderHtmlReport([{ result: json(base) }, { result: json(tuned) }])
    // Without records to pair, both runs' verdicts (letters split evenly: no single slot to blame).
    expect(/<p id="verdict"[^>]*>([^<]*)<\/p>/.exec(bare)?.[1]).toBe(
      'A: reads the evidence: 100% balanced accuracy, 100% order consistency; B: answers change with the order shown: order consistency 53%, balanced accuracy 100%',
    )
  })

  it('every significant change is named, better ones apart from worse ones', () => {
    const base = records(40, () => true)
    // tuned: 20 more wrong (accuracy down) but all consistent.
    const tuned = base.map((r, i) => (i < 20 ? { ...r, prediction: 'y', picks: ['y', 'y'], letters: ['B', 'A'] } : r))
    const c = compareResults({ records: base }, { records: tuned }, { labels: ['a', 'b'] })
    const metrics = significantChanges(c).map((change) => [change.metric, change.better])
    expect(metrics).toEqual([['accuracy', false], ['balanced accuracy', false]])
    expect(comparisonVerdict(c).sentence).toMatch(/^b is worse than a: accuracy −50\.0 pp \(exact McNemar p < 0\.0001\), balanced accuracy −50\.0 pp/)
  })

  it('nothing significant says what the set could detect, and a tiny set says it detects nothing', () => {
    const same = compareResults({ records: records(2, () => true) }, { records: records(2, (i) => i > 0) })
    expect(comparisonVerdict(same)).toEqual({ severity: 'unknown', sentence: 'no significant change from A to B (accuracy 0.0 pp, p = 1); n = 2: too small to detect any change' })
  })
})

describe('numbers as people read them', () => {
  it('p-values: a statement with one comparison sign', () => {
    expect(formatP(2 ** -20)).toBe('p < 0.0001')
    expect(formatP(0.000122)).toBe('p = 0.000122')
    expect(formatP(0.0412)).toBe('p = 0.0412')
    expect(formatP(1)).toBe('p = 1')
    expect(formatP(0.5, 'mid-p')).toBe('mid-p = 0.5')
    fc.assert(
      fc.property(fc.double({ min: 0, max: 1, noNaN: true }), (p) => {
        expect(formatP(p)).toMatch(/^p (< 0\.0001|= [\d.]+)$/)
      }),
    )
  })

  it('the baseline gate never writes "p = < 0.0001"', () => {
    const row = (ok: boolean, i: number) => ({ id: `d${i}`, criterion: 'c', gold: 'a', prediction: 'a', probabilities: { a: 0.7, b: 0.3 }, picks: ok ? ['a', 'a'] : ['a', 'b'], letters: ok ? ['A', 'B'] : ['A', 'A'] })
    const result = (ok: (i: number) => boolean) =>
      ({ records: Array.from({ length: 40 }, (_, i) => row(ok(i), i)), orderConsistency: 0, circularAccuracy: 0, manifest: { debias: 'cyclic', scorer: 's' } }) as unknown as EvalResult
    const verdict = compareWithBaseline(baselineFromResult('s', result(() => true)), baselineFromResult('s', result(() => false)), { alpha: 0.05, detectableDrop: 0.1 })
    expect(verdict.pass).toBe(false)
    expect(verdict.message).toContain('one-sided exact McNemar p < 0.0001')
    expect(verdict.message).not.toMatch(/p = </)
  })

  it('a detectable change never exceeds 100 points', () => {
    expect(detectableChange(2.5, 2)).toBe('n = 2: too small to detect any change')
    expect(detectableChange(0.194, 56)).toBe('±19.4 pp')
    expect(detectableChange(0.3, 1)).toBe('n = 1: too small to detect any change')
    // Five pairs all flipping one way give p = 0.0625: no outcome is significant.
    expect(detectableChange(0.8, 5)).toBe('n = 5: too small to detect any change')
    expect(detectableChange(0.8, 6)).toBe('±80.0 pp')
  })

  it('the terminal report at n = 2 says the set is too small, not "±250.0 pp"', async () => {
    const rows = (await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl'))).filter((d) => d.answer_id).slice(0, 2)
    const result = await evaluateWithScorer(rows, (await import(pathToFileURL(join(ROOT, 'examples/scorers/keyword-reader.mjs')).href)).default, { debias: 'cyclic', ...quiet })
    expect(render(result, { color: false })).toMatch(/^detectable change  n = 2: too small to detect any change {3}/m)
  })

  it('a fallback interval names its method; the usual ones do not', () => {
    expect(formatInterval({ lower: 0.936, upper: 1, method: 'clopper-pearson' })).toBe('[93.6, 100.0] exact Clopper-Pearson')
    expect(formatInterval({ lower: 0.62, upper: 0.7981, method: 'percentile-bootstrap' })).toBe('[62.0, 79.8]')
    expect(formatInterval({ lower: 0.62, upper: 0.7981 })).toBe('[62.0, 79.8]')
  })

  it('thresholds in the unit of their value', () => {
    expect(metricValue('slotSensitivityGap', 0.35)).toBe('35.0 pp')
    expect(metricValue('orderConsistency', 0.8)).toBe('80.0%')
    expect(metricValue('cramersV', 0.3)).toBe('0.3')
  })

  it('shares, points, letters', () => {
    expect(percent(null)).toBe('n/a')
    expect(signedPoints(-0.467)).toBe('−46.7 pp')
    expect(signedPoints(0)).toBe('0.0 pp')
    expect(lettersLine({ B: 0.25, AA: 0.05, A: 0.7 })).toBe('A:70%  B:25%  AA:5%')
  })
})
