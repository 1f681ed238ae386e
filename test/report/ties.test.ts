// A tie is no answer, and every output says how many there were: terminal, HTML page, job summary.
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { resultToJson } from '../../src/core/result/result.ts'
import { githubSummary } from '../../src/report/github.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { render } from '../../src/report/terminal.ts'
import type { ScoreFn } from '../../src/core/scorer/contract.ts'
import { byId, decision } from '../helpers/decisions.ts'

/** 0.8 on slot A whatever the options: under cyclic every decision's totals tie, and no pick does. */
const alwaysFirst: ScoreFn = (requests) =>
  requests.map(({ criterion }) => criterion.options.map((_, slot) => (slot === 0 ? 0.8 : 0.1)))

const quiet = { onWarning: () => {}, statistics: false as const }
const data = Array.from({ length: 6 }, (_, i) => decision(3, i % 3, { id: `t${i}` }))

describe('tie counts in every output', () => {
  it('a positional scorer: 6 tied decisions in the terminal, the HTML page and the job summary, in the same words', async () => {
    const result = await evaluateWithScorer(data, alwaysFirst, quiet)
    expect(result.manifest.tied).toEqual({ decisions: 6, picks: 0 })
    const sentence = '6 decisions with no single answer (counted wrong); 0 tied picks (letter split evenly)'
    expect(render(result, { color: false })).toMatch(/^tied {15}6 {3}decisions with no single answer \(counted wrong\); 0 tied picks/m)
    const json = resultToJson(result)
    expect(renderHtmlReport({ result: json, label: 'run' })).toContain(`<span class="note" title="${sentence}">6 tied: no single answer, counted wrong</span>`)
    expect(githubSummary([{ suite: 's', file: 'x.eval.ts', result: json }])).toContain(`decisions | 6, ${sentence}`)
  })

  it('a scorer that reads the options: no tie line anywhere', async () => {
    const result = await evaluateWithScorer(data, byId((id) => (id === 'o0' ? 3 : 1)), quiet)
    expect(result.manifest.tied ?? { decisions: 0, picks: 0 }).toEqual({ decisions: 0, picks: 0 })
    const json = resultToJson(result)
    for (const text of [render(result, { color: false }), renderHtmlReport({ result: json, label: 'run' }), githubSummary([{ suite: 's', file: 'x.eval.ts', result: json }])])
      expect(text).not.toContain('no single answer')
  })
})
