import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { render } from '../../src/report/terminal.ts'
import { resultToJson, type EvalResultJson } from '../../src/core/result/result.ts'
import type { Decision } from '../../src/core/decisions/schema.ts'
import type { ScoreFn } from '../../src/core/scorer/contract.ts'
import { githubAnnotations, githubSummary, type GitHubSuite } from '../../src/report/github.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { renderSuite } from '../../src/suite/suite-report.ts'
import { alwaysFirst, byId, decision } from '../helpers/decisions.ts'

const quiet = { onWarning: () => {}, statistics: false as const }

/** A two-candidate judgement with a pinned "Tie" last. */
const pair = (i: number): Decision => ({
  id: `p${i}`,
  state: `Question ${i}`,
  criterion: {
    key: 'judge',
    options: [
      { id: 'x', text: 'Answer 1' },
      { id: 'y', text: 'Answer 2' },
      { id: 'tie', text: 'Tie', pinned: true },
    ],
  },
  answer_id: i % 2 ? 'x' : 'y',
})

const firstShown: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((_, slot) => (slot === 0 ? 0.7 : 0.15)))

async function positional(): Promise<EvalResultJson> {
  const rows = Array.from({ length: 8 }, (_, i) => decision(4, i % 4, { id: `d${i}` }))
  return resultToJson(await evaluateWithScorer(rows, alwaysFirst, { debias: 'cyclic', ...quiet }))
}

describe('order-robustness panel in every report', () => {
  it('terminal: one block, each number beside its chance reference', async () => {
    const text = render({ ...(await positional()), records: [] }, { color: false })
    expect(text).toMatch(/^ {2}circular {9}0\.0% {3}right under every ordering; a uniform guesser 0\.4%$/m)
    expect(text).toMatch(/^ {2}gold at slot {5}A:100% {2}B:0% {2}C:0% {2}D:0%$/m)
    expect(text).toMatch(/^ {2}slot gap {9}100\.0 pp {3}max − min of the above; a position-blind reader 0$/m)
    expect(text).toMatch(/^ {2}slot bias {8}χ² 96\.0, df 3, p < 0\.0001, V 1\.00$/m)
    const judged = await evaluateWithScorer(Array.from({ length: 6 }, (_, i) => pair(i)), firstShown, { debias: 'cyclic', ...quiet })
    const pairs = render(judged, { color: false })
    expect(pairs).toMatch(/^ {2}pairs {12}6 judged in both orders: consistent 0\.0%, primacy 6, recency 0$/m)
    expect(pairs).toMatch(/^ {2}fairness {9}-1\.00 {3}\(recency − primacy\)\/pairs; fair 0, negative favours the first shown; first shown picked 100\.0%$/m)
    // One ordering: nothing to show.
    const once = await evaluateWithScorer([decision(3, 0, { id: 'a' })], alwaysFirst, { debias: 'none', ...quiet })
    expect(render(once, { color: false })).not.toMatch(/order robustness/)
  })

  it('terminal: a non-significant slot test at accuracy above 95% is called weak evidence', async () => {
    const rows = Array.from({ length: 12 }, (_, i) => decision(3, i % 3, { id: `d${i}`, state: String(i) }))
    const reader = byId((id, state) => (Number(id.slice(1)) === Number(state) % 3 ? 0.9 : 0.05))
    const text = render(await evaluateWithScorer(rows, reader, { debias: 'cyclic', ...quiet }), { color: false })
    expect(text).toMatch(/slot bias .*p = 1, .*accuracy outside 60–95%: a non-significant test is weak evidence/)
  })

  it('reporter marks and job summary: range thresholds, one verdict', async () => {
    const result = await positional()
    const meta = { schema: 1 as const, suite: 's', thresholds: { slotSensitivityGap: { max: 0.1 }, circularAccuracy: 0 }, result }
    const block = renderSuite({ file: 'e.eval.ts', meta }, false)
    // Each bound in its value's unit: points beside points, percent beside percent.
    expect(block).toMatch(/slot gap {9}100\.0 pp ✗ ≤ 10\.0 pp/)
    expect(block).toMatch(/circular {9}0\.0% ✓ ≥ 0\.0%/)
    const suite: GitHubSuite = { suite: 's', file: 'e.eval.ts', thresholds: meta.thresholds, result }
    const md = githubSummary([suite])
    expect(md).toContain('| circular accuracy | 0.0% (uniform guesser 0.4%) | ≥ 0.0% | ✅ |')
    expect(md).toContain('| slot sensitivity gap | 100.0% (position-blind 0) | ≤ 10.0% | ❌ |')
    expect(githubAnnotations([suite])).toEqual([
      '::error file=e.eval.ts,title=s > slotSensitivityGap ≤ 0.1::slot sensitivity gap 100.0%25 is above the bound 10.0%25; letters picked A:100%25 B:0%25 C:0%25 D:0%25',
    ])
  })

  it('job summary: pairwise rows and a preferenceFairness range', async () => {
    const judged = resultToJson(await evaluateWithScorer(Array.from({ length: 4 }, (_, i) => pair(i)), firstShown, { debias: 'cyclic', ...quiet }))
    const suite: GitHubSuite = { suite: 'judge', file: 'j.eval.ts', thresholds: { preferenceFairness: { min: -0.05, max: 0.05 }, positionConsistency: 0.9 }, result: judged }
    const md = githubSummary([suite])
    expect(md).toContain('| position consistency (pairs) | 0.0% of 4 | ≥ 90.0% | ❌ |')
    expect(md).toContain('| preference fairness (pairs) | -1 (fair 0) | in [-0.05, 0.05] | ❌ |')
    expect(githubAnnotations([suite]).map((l) => l.split('::')[1])).toEqual([
      'error file=j.eval.ts,title=judge > positionConsistency ≥ 0.9',
      'error file=j.eval.ts,title=judge > preferenceFairness in [-0.05%2C 0.05]',
    ])
  })

  it('HTML: accuracy by gold slot as a chart, the panel as a table; older JSON without the panel has no block', async () => {
    const result = await positional()
    const html = renderHtmlReport({ result, records: null })
    expect(html).toContain('data-block="robustness"')
    expect(html).toMatch(/<svg[^>]*>[^]*Accuracy by gold slot/)
    expect(html).toContain('Accuracy over the orderings that showed the gold answer at each letter: A 100%, B 0%, C 0%, D 0%.')
    expect(html).toContain('<th scope="row">circular accuracy</th><td>0.0%</td>')
    const { circularAccuracy: _c, accuracyByGoldSlot: _a, ...older } = result
    expect(renderHtmlReport({ result: older as EvalResultJson, records: null })).not.toContain('data-block="robustness"')
  })
})
