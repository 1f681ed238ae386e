import { describe, expect, it } from 'vitest'
import { computeStatistics } from '../../src/core/statistics/compute.ts'
import { formatInterval } from '../../src/report/format.ts'
import { mcnemarExact } from '../../src/core/math/binomial.ts'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { DataError } from '../../src/core/support/errors.ts'
import { resultToJson, type DecisionRecord, type EvalResult, type EvalResultJson } from '../../src/core/result/result.ts'
import type { Decision } from '../../src/core/decisions/schema.ts'
import {
  chanceByCriterion,
  eceFromBins,
  expectedLetterShares,
  parseRecordsJsonl,
  parseResultJson,
  readExtras,
  reliabilityBins,
  renderHtmlReport,
} from '../../src/report/html.ts'
import { axisStep, niceMax } from '../../src/report/svg.ts'
import { escapeXml } from '../../src/report/escape.ts'
import { alwaysFirst, byId, decision } from '../helpers/decisions.ts'

const quiet = { onWarning: () => {} }

/** 8 four-option and 8 two-option decisions, gold spread over the options. */
function mixedSet(): Decision[] {
  const four = Array.from({ length: 8 }, (_, i) => decision(4, i % 4, { id: `q-${i}`, state: `s${i}` }))
  const yesNo = { key: 'yes_no', question: 'Yes?', options: [{ id: 'yes', text: 'Yes' }, { id: 'no', text: 'No' }] }
  const two = Array.from({ length: 8 }, (_, i): Decision => ({ id: `y-${i}`, state: `s${i}`, criterion: yesNo, answer_id: i % 2 === 0 ? 'yes' : 'no' }))
  return [...four, ...two]
}

/** A reader that is right on even-numbered states and prefers the last option otherwise: content-driven, never positional. */
const reader = byId((id, state) => {
  const k = Number(state.slice(1))
  return k % 2 === 0 ? (id === goldOf(k, id) ? 0.9 : 0.05) : id === 'o3' || id === 'no' ? 0.7 : 0.1
})
function goldOf(k: number, id: string): string {
  return id === 'yes' || id === 'no' ? ['yes', 'no'][k % 2]! : `o${k % 4}`
}

async function run(score = reader, debias: 'cyclic' | 'none' = 'cyclic'): Promise<EvalResult> {
  return evaluateWithScorer(mixedSet(), score, { debias, ...quiet })
}

/** The text of a headline card's value. */
function cardValue(html: string, metric: string, from = 0): string {
  const at = html.indexOf(`data-metric="${metric}"`, from)
  expect(at, `card ${metric}`).toBeGreaterThan(-1)
  return /<span class="value">([^<]*)<\/span>/.exec(html.slice(at))![1]!
}

const pct = (v: number) => `${(v * 100).toFixed(1)}%`

describe('renderHtmlReport: one run', () => {
  it('is one self-contained page: no script, no external resource, a CSP that forbids both', async () => {
    const result = await run()
    const html = renderHtmlReport({ result: resultToJson(result), records: result.records, label: 'reader.json' })
    expect(html.startsWith('<!doctype html>')).toBe(true)
    expect(html).toContain(`content="default-src 'none'; style-src 'unsafe-inline'; img-src data:"`)
    expect(html).not.toMatch(/<script/i)
    expect(html).not.toMatch(/(src|href)\s*=\s*["']?(https?:)?\/\//i)
    expect(html).not.toMatch(/@import|url\(/i)
    // The same input gives the same bytes (no counters, no clock unless asked).
    expect(renderHtmlReport({ result: resultToJson(result), records: result.records, label: 'reader.json' })).toBe(html)
  })

  it('shows every headline number as the JSON has it', async () => {
    const result = await run()
    const json = resultToJson(result)
    const html = renderHtmlReport({ result: json, records: result.records })
    expect(cardValue(html, 'balancedAccuracy')).toBe(pct(json.balancedAccuracy))
    expect(cardValue(html, 'orderConsistency')).toBe(pct(json.orderConsistency!))
    expect(cardValue(html, 'accuracy')).toBe(pct(json.accuracy))
    expect(html).toContain(`chance ${pct(json.manifest.chance)}`)
    expect(cardValue(html, 'ece')).toBe(json.ece!.toFixed(3))
    expect(cardValue(html, 'brier')).toBe(json.brier!.toFixed(3))
    expect(cardValue(html, 'n')).toBe(String(json.n))
    expect(cardValue(html, 'debias')).toBe('cyclic')
    // Every letter's bar carries its share; every criterion's row its balanced accuracy.
    for (const [letter, share] of Object.entries(json.letterDistribution))
      expect(html).toContain(`data-label="${letter}" data-value="${share}"`)
    for (const [key, value] of Object.entries(json.perCriterion)) expect(html).toContain(`data-label="${key}" data-value="${value}"`)
  })

  it('draws the four charts, each an accessible image with a title and a description', async () => {
    const result = await run()
    const html = renderHtmlReport({ result: resultToJson(result), records: result.records })
    const svgs = html.match(/<svg [^>]*>/g)!
    expect(svgs.map((s) => /data-chart="(\w+)"/.exec(s)![1])).toEqual(['columns', 'columns', 'reliability', 'rows'])
    for (const svg of svgs) {
      expect(svg).toMatch(/role="img"/)
      const [title, desc] = /aria-labelledby="([^"]+)"/.exec(svg)![1]!.split(' ')
      expect(html).toMatch(new RegExp(`<title id="${title}">[^<]+</title><desc id="${desc}">[^<]+</desc>`))
    }
    // The ids are unique within the page.
    const ids = [...html.matchAll(/ id="([^"]+)"/g)].map((m) => m[1])
    expect(new Set(ids).size).toBe(ids.length)
    // One bin group per confidence bin; their counts add up to n.
    const counts = [...html.matchAll(/data-bin="\d+" data-count="(\d+)"/g)].map((m) => Number(m[1]))
    expect(counts).toHaveLength(10)
    expect(counts.reduce((a, b) => a + b, 0)).toBe(result.n)
  })

  it('says which charts need records when there are none, and still draws the rest', async () => {
    const result = await run()
    const html = renderHtmlReport({ result: resultToJson(result) })
    expect(html).toMatch(/The reliability diagram needs the records of this run/)
    expect(html).not.toMatch(/data-chart="reliability"/)
    expect(html).toMatch(/data-chart="columns"/)
    expect(html).toMatch(/data-chart="rows"/)
    // Without records the reader line is 1/letters, and the page says what that assumes.
    expect(html).toMatch(/1\/4 per letter\. Without the records this assumes every decision has 4 options/)
  })

  it('marks order consistency n/a when one ordering was scored', async () => {
    const result = await run(reader, 'none')
    const html = renderHtmlReport({ result: resultToJson(result), records: result.records })
    expect(cardValue(html, 'orderConsistency')).toBe('n/a')
    expect(html).toMatch(/one ordering scored: nothing here could expose a position prior/)
  })

  it('escapes everything that comes from user data', async () => {
    const evil = '<img src=x onerror="alert(1)">&\''
    const decisions: Decision[] = [0, 1, 0, 1].map((answer, i) =>
      decision(2, answer, {
        id: `${evil}-${i}`,
        criterion: { key: evil, options: [{ id: 'o0', text: 'a' }, { id: 'o1', text: 'b' }] },
      }),
    )
    const result = await evaluateWithScorer(decisions, alwaysFirst, { debias: 'cyclic', scorerDescription: `<script>alert(2)</script>`, ...quiet })
    const html = renderHtmlReport([
      { result: resultToJson(result), records: result.records, label: `</title><b>${evil}` },
      { result: resultToJson(result), records: result.records, label: 'b' },
    ])
    expect(html).not.toContain(evil)
    expect(html).not.toContain('<script>')
    expect(html).not.toContain('<img')
    expect(html).not.toContain('</title><b>')
    expect(html).toContain(escapeXml(evil))
    expect(html).toContain('&lt;script&gt;alert(2)&lt;/script&gt;')
  })
})

describe('intervals, baselines and verdicts', () => {
  it('shows no interval when the JSON carries none', async () => {
    const result = await evaluateWithScorer(mixedSet(), reader, { debias: 'cyclic', statistics: false, ...quiet })
    const html = renderHtmlReport({ result: resultToJson(result) })
    expect(html).not.toMatch(/class="interval"/)
    expect(readExtras(resultToJson(result))).toEqual({
      intervals: { accuracy: null, balancedAccuracy: null, orderConsistency: null, level: null },
      majorityBaseline: null,
      verdicts: {},
    })
  })

  it('shows [lo, hi] arrays under their card, with baselines and verdicts', async () => {
    const result = await run()
    const json = {
      ...resultToJson(result),
      statistics: {
        ...result.statistics!,
        intervals: { accuracy: [0.5, 0.75], balancedAccuracy: [0.412, 0.798], orderConsistency: [0.9, 1] },
        majorityBaseline: { accuracy: 0.25, balancedAccuracy: 0.5 },
        verdicts: { balancedAccuracy: 'not better than the majority baseline', orderConsistency: null },
      },
    } as unknown as EvalResultJson
    const html = renderHtmlReport({ result: json })
    const cardText = (metric: string) => html.slice(html.indexOf(`data-metric="${metric}"`)).split('</div>')[0]!
    expect(cardText('balancedAccuracy')).toContain('interval [41.2, 79.8]')
    expect(cardText('balancedAccuracy')).toContain('majority baseline 50.0%')
    expect(cardText('balancedAccuracy')).toContain('not better than the majority baseline')
    expect(cardText('accuracy')).toContain('interval [50.0, 75.0]')
    expect(cardText('accuracy')).toContain('majority baseline 25.0%')
    expect(cardText('orderConsistency')).toContain('interval [90.0, 100.0]')
    expect(cardText('orderConsistency')).not.toContain('class="verdict"')
  })

  it('reads the statistics module’s Interval objects and their level', async () => {
    const result = await run()
    const json = {
      ...resultToJson(result),
      statistics: {
        ...result.statistics!,
        intervals: {
          accuracy: { estimate: 0.6, lower: 0.4, upper: 0.77, level: 0.9, method: 'wilson' },
          balancedAccuracy: { estimate: 0.6, lower: 0.35, upper: 0.8, level: 0.9, method: 'percentile-bootstrap' },
          orderConsistency: null,
        },
        majorityBaseline: 0.3,
        verdicts: { accuracy: { message: 'not better than chance' } },
      },
    } as unknown as EvalResultJson
    const extras = readExtras(json)
    expect(extras.intervals).toEqual({ accuracy: [0.4, 0.77], balancedAccuracy: [0.35, 0.8], orderConsistency: null, level: 0.9 })
    expect(extras.majorityBaseline).toEqual({ accuracy: 0.3, balancedAccuracy: null })
    const html = renderHtmlReport({ result: json })
    expect(html).toContain('90% interval [40.0, 77.0]')
    expect(html).toContain('not better than chance')
  })

  it('shows what computeStatistics computes, read from the `statistics` key', async () => {
    const result = await run()
    const honest = computeStatistics(result.records, null, { resamples: 200 })
    for (const json of [{ ...resultToJson(result), statistics: honest }] as unknown as EvalResultJson[]) {
      const html = renderHtmlReport({ result: json })
      const cardText = (metric: string) => html.slice(html.indexOf(`data-metric="${metric}"`)).split('</div>')[0]!
      expect(cardText('accuracy')).toContain(`95% interval ${formatInterval(honest.intervals.accuracy)}`)
      expect(cardText('balancedAccuracy')).toContain(`95% interval ${formatInterval(honest.intervals.balancedAccuracy)}`)
      expect(cardText('orderConsistency')).toContain(`95% interval ${formatInterval(honest.intervals.orderConsistency!)}`)
      expect(cardText('accuracy')).toContain(`majority baseline ${pct(honest.majorityBaseline.accuracy)}`)
      for (const key of ['accuracy', 'balancedAccuracy'] as const) {
        const message = honest.verdicts[key].message
        if (message) expect(cardText(key)).toContain(message)
        else expect(cardText(key)).not.toContain('class="verdict"')
      }
    }
  })

  it('reads statistics under their one JSON key only: not at the top level, nor under honest or honestNumbers', async () => {
    const { statistics, ...rest } = resultToJson(await run())
    for (const json of [{ ...rest, ...statistics }, { ...rest, honest: statistics }, { ...rest, honestNumbers: statistics }] as unknown as EvalResultJson[]) {
      expect(readExtras(json).intervals).toEqual({ accuracy: null, balancedAccuracy: null, orderConsistency: null, level: null })
      expect(renderHtmlReport({ result: json })).not.toMatch(/class="interval"/)
    }
  })
})

describe('two runs', () => {
  it('puts both side by side with the change, and the paired table from the records', async () => {
    const a = await run(alwaysFirst)
    const b = await run()
    const html = renderHtmlReport([
      { result: resultToJson(a), records: a.records, label: 'base.json' },
      { result: resultToJson(b), records: b.records, label: 'tuned.json' },
    ])
    expect(html.match(/<section class="run"/g)).toHaveLength(2)
    expect(cardValue(html, 'balancedAccuracy')).toBe(pct(a.balancedAccuracy))
    expect(cardValue(html, 'balancedAccuracy', html.indexOf('data-run="1"'))).toBe(pct(b.balancedAccuracy))
    const delta = (b.balancedAccuracy - a.balancedAccuracy) * 100
    expect(html).toContain(`<th scope="row">balanced accuracy</th><td>${pct(a.balancedAccuracy)}</td><td>${pct(b.balancedAccuracy)}</td><td>${delta >= 0 ? '+' : '−'}${Math.abs(delta).toFixed(1)} pp</td>`)
    expect(html).toMatch(/Same data: fingerprints equal/)

    // The 2×2 table, counted here independently of the code under test.
    const cells = { bothRight: 0, onlyA: 0, onlyB: 0, neither: 0 }
    a.records.forEach((ra, i) => {
      const x = ra.prediction === ra.gold
      const y = b.records[i]!.prediction === b.records[i]!.gold
      cells[x && y ? 'bothRight' : x ? 'onlyA' : y ? 'onlyB' : 'neither']++
    })
    for (const [cell, count] of Object.entries(cells)) expect(html).toMatch(new RegExp(`data-cell="${cell}">[^<]*<b>${count}</b>`))
    expect(html).toMatch(/McNemar \(exact\)/)
  })

  it('gives the exact McNemar p: 0 against 5 discordant pairs is 2·(1/2)^5 = 0.0625', () => {
    // Five decisions only B gets right, three both get right: b = 0, c = 5.
    const rec = (id: string, right: boolean): DecisionRecord => ({
      id,
      criterion: 'c',
      gold: 'x',
      prediction: right ? 'x' : 'y',
      probabilities: right ? { x: 0.9, y: 0.1 } : { x: 0.1, y: 0.9 },
      picks: [right ? 'x' : 'y'],
      letters: ['A'],
    })
    const ids = ['1', '2', '3', '4', '5', '6', '7', '8']
    const recordsA = ids.map((id, i) => rec(id, i < 3))
    const recordsB = ids.map((id) => rec(id, true))
    // A hand-made JSON of only the fields the report reads (older or newer runs may have more).
    const json = (records: DecisionRecord[]): EvalResultJson => ({
      accuracy: records.filter((r) => r.prediction === r.gold).length / records.length,
      balancedAccuracy: 0,
      orderConsistency: null,
      ece: null,
      brier: null,
      perCriterion: { c: 0 },
      letterDistribution: { A: 1, B: 0 },
      n: records.length,
      manifest: { debias: 'none', orderingsScored: 1, chance: 0.5, unlabelledSkipped: 0, fingerprint: 'f' },
    }) as unknown as EvalResultJson
    const html = renderHtmlReport([
      { result: json(recordsA), records: recordsA },
      { result: json(recordsB), records: recordsB },
    ])
    expect(mcnemarExact(0, 5).pTwoSided).toBe(0.0625)
    expect(html).toContain('<b>p = 0.0625</b> two-sided')
    expect(html).toMatch(/data-cell="onlyB">only B <b>5<\/b>/)
    expect(html).toMatch(/data-cell="bothRight">both right <b>3<\/b>/)
    expect(html).toMatch(/order consistency<\/dt><dd>n\/a/)
  })

  it('explains a missing or refused paired comparison instead of failing', async () => {
    const a = await run(alwaysFirst)
    const b = await run()
    const noRecords = renderHtmlReport([{ result: resultToJson(a), records: a.records }, { result: resultToJson(b) }])
    expect(noRecords).toMatch(/A paired test needs the records of both runs; B has none/)
    expect(noRecords).not.toMatch(/class="paired-table"/)

    const other = { ...resultToJson(b), manifest: { ...b.manifest, fingerprint: 'ffffffffffffffff' } }
    const refused = renderHtmlReport([{ result: resultToJson(a), records: a.records }, { result: other, records: b.records }])
    expect(refused).toMatch(/Different data: fingerprints/)
    expect(refused).toMatch(/No paired comparison: fingerprints differ/)
  })
})

describe('chart data from records', () => {
  it('reliability bins are right-closed and reproduce the run’s ECE', async () => {
    const result = await run()
    const bins = reliabilityBins(result.records)
    expect(bins.reduce((s, b) => s + b.count, 0)).toBe(result.n)
    expect(eceFromBins(bins)).toBeCloseTo(result.ece!, 12)
    const edge = (p: number): DecisionRecord => ({ id: String(p), criterion: 'c', gold: 'x', prediction: 'x', probabilities: { x: p, y: 1 - p }, picks: ['x'], letters: ['A'] })
    const edges = reliabilityBins([edge(0.8), edge(0.5), edge(1)])
    expect(edges.map((b) => b.count)).toEqual([0, 0, 0, 0, 1, 0, 0, 1, 0, 1])
    expect(eceFromBins(reliabilityBins([]))).toBeNull()
  })

  it('the reader line: 1/k with one option count, and per-ordering weights with mixed counts', async () => {
    const result = await run()
    // 8 decisions × 4 orderings over A–D and 8 × 2 over A–B: A = B = (8 + 8)/48, C = D = 8/48.
    const shares = expectedLetterShares(['A', 'B', 'C', 'D'], result.records)
    expect(shares.A).toBeCloseTo(1 / 3, 12)
    expect(shares.B).toBeCloseTo(1 / 3, 12)
    expect(shares.C).toBeCloseTo(1 / 6, 12)
    expect(shares.D).toBeCloseTo(1 / 6, 12)
    expect(expectedLetterShares(['A', 'B', 'C', 'D'])).toEqual({ A: 0.25, B: 0.25, C: 0.25, D: 0.25 })
    expect(chanceByCriterion(result.records)).toEqual({ c: 0.25, yes_no: 0.5 })
  })

  it('rounds the histogram axis up to a tenth (a fifth above 50%), so gridlines land on round numbers', () => {
    expect(niceMax([0.33, 0.17])).toBe(0.4)
    expect(niceMax([0.3])).toBeCloseTo(0.3, 12)
    expect(niceMax([0.234])).toBeCloseTo(0.3, 12)
    expect(niceMax([0.51])).toBeCloseTo(0.6, 12)
    expect(niceMax([0.65])).toBeCloseTo(0.8, 12)
    expect(niceMax([0])).toBe(0.1)
    expect(niceMax([1])).toBe(1)
    for (const max of [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1]) {
      const ticks = max / axisStep(max)
      expect(Math.abs(ticks - Math.round(ticks))).toBeLessThan(1e-9)
    }
  })
})

describe('reading the CLI’s input files', () => {
  it('accepts a --json-out document and names the first bad field otherwise', async () => {
    const result = await run()
    const text = JSON.stringify(resultToJson(result))
    expect(parseResultJson(text, 'r.json').n).toBe(result.n)
    expect(() => parseResultJson('{', 'r.json')).toThrow(/^r\.json: not JSON/)
    const { balancedAccuracy: _, ...rest } = resultToJson(result)
    expect(() => parseResultJson(JSON.stringify(rest), 'r.json')).toThrow(DataError)
    expect(() => parseResultJson(JSON.stringify(rest), 'r.json')).toThrow(/r\.json, field "balancedAccuracy": must be a number/)
  })

  it('reads records JSONL and points at the bad line', async () => {
    const result = await run()
    const lines = result.records.map((r) => JSON.stringify(r))
    expect(parseRecordsJsonl(lines.join('\r\n') + '\n\n', 'r.jsonl')).toEqual(result.records)
    lines[2] = JSON.stringify({ ...result.records[2], picks: 'A' })
    expect(() => parseRecordsJsonl(lines.join('\n'), 'r.jsonl')).toThrow(/r\.jsonl:3, field "picks": not a decision record: must be an array of strings/)
  })
})
