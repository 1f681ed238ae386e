import { createHash } from 'node:crypto'
import { copyFile, mkdir, mkdtemp, readFile, rename, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadDecisions } from '../../src/core/decisions/load.ts'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { resultToJson } from '../../src/core/result/result.ts'
import type { ScoreFn } from '../../src/core/scorer/contract.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { CHROMIUM, chromium } from '../helpers/chromium.ts'
import { ROOT } from '../helpers/run.ts'

// A real headless Chromium loads the generated report from a file:// URL and we check
// that the charts rendered: present, non-zero boxes, bars as tall as their numbers say.
// Not a pixel diff. CI installs Debian's `chromium` (.ci/run); elsewhere this skips.

// Runs on load, measures what was laid out, and writes it into the DOM for --dump-dom.
const MEASURE = `addEventListener('load', () => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { w: r.width, h: r.height, left: r.left, right: r.right, top: r.top } }
  const num = (v) => (v === undefined ? null : Number(v))
  const out = {
    viewport: innerWidth,
    charts: [...document.querySelectorAll('svg.chart')].map((svg) => ({
      kind: svg.dataset.chart,
      run: num(svg.closest('[data-run]')?.dataset.run),
      box: box(svg),
      section: box(svg.closest('section')),
      bars: [...svg.querySelectorAll('.bar')].map((bar) => {
        const holder = bar.closest('[data-value],[data-count]')
        return { value: num(holder?.dataset.value), count: num(holder?.dataset.count), box: box(bar) }
      }),
      texts: [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() !== '').map((t) => box(t).w),
      expected: svg.querySelectorAll('.column line.expected').length,
    })),
    cards: [...document.querySelectorAll('.card')].map((card) => ({ metric: card.dataset.metric, box: box(card), value: card.querySelector('.value').textContent })),
    paired: document.querySelector('.paired-table') ? box(document.querySelector('.paired-table')) : null,
  }
  const pre = document.createElement('pre')
  pre.id = 'measurements'
  pre.textContent = JSON.stringify(out)
  document.body.append(pre)
})`

interface Box {
  w: number
  h: number
  left: number
  right: number
  top: number
}
interface Measurements {
  viewport: number
  charts: {
    kind: string
    run: number | null
    box: Box
    section: Box
    bars: { value: number | null; count: number | null; box: Box }[]
    texts: number[]
    expected: number
  }[]
  cards: { metric: string; box: Box; value: string }[]
  paired: Box | null
}

/** The report with the measuring script added; the page's CSP is widened by exactly that script's hash. */
function instrument(html: string): string {
  const hash = createHash('sha256').update(MEASURE).digest('base64')
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:`
  expect(html).toContain(csp)
  return html.replace(csp, `${csp}; script-src 'sha256-${hash}'`).replace('</body>', `<script>${MEASURE}</script></body>`)
}

async function scorer(path: string): Promise<ScoreFn> {
  return (await import(pathToFileURL(join(ROOT, path)).href)).default as ScoreFn
}

describe.skipIf(CHROMIUM === null)(
  `the HTML report in headless Chromium${CHROMIUM === null ? ' — SKIPPED: no chromium binary on PATH (apt-get install chromium, or set CHROMIUM=/path)' : ''}`,
  () => {
    let dir: string
    let profile: string
    let twoRuns: string
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sceptic-chromium-'))
      profile = join(dir, 'profile')
      await mkdir(profile)
      const decisions = await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl'))
      const quiet = { debias: 'cyclic' as const, onWarning: () => {} }
      const base = await evaluateWithScorer(decisions, await scorer('examples/scorers/always-first.mjs'), { ...quiet, scorerDescription: 'always-first' })
      const tuned = await evaluateWithScorer(decisions, await scorer('examples/scorers/keyword-reader.mjs'), { ...quiet, scorerDescription: 'keyword-reader' })
      twoRuns = renderHtmlReport([
        { result: resultToJson(base), records: base.records, label: 'base.json' },
        {
          result: { ...resultToJson(tuned), statistics: { ...tuned.statistics!, intervals: { accuracy: [0.88, 0.99], balancedAccuracy: [0.9, 1], orderConsistency: [0.94, 1] } } } as never,
          records: tuned.records,
          label: 'tuned.json',
        },
      ])
    })
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    it('renders every chart with non-zero size, bars as tall as their numbers, inside its column', async () => {
      const file = join(dir, 'measured.html')
      await writeFile(file, instrument(twoRuns))
      const { code, stdout, stderr } = await chromium(['--dump-dom', '--virtual-time-budget=5000', '--window-size=1280,2400', pathToFileURL(file).href], profile)
      expect(code, stderr.slice(-2000)).toBe(0)
      const json = /<pre id="measurements">([\s\S]*?)<\/pre>/.exec(stdout)?.[1]
      expect(json, 'the measuring script ran (so the page loaded and laid out)').toBeDefined()
      const m = JSON.parse(json!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')) as Measurements

      // Four charts per run (letters picked, accuracy by gold slot, reliability, per criterion),
      // in both columns, side by side at this width.
      expect(m.charts.map((c) => `${c.run}:${c.kind}`)).toEqual([
        '0:columns', '0:columns', '0:reliability', '0:rows',
        '1:columns', '1:columns', '1:reliability', '1:rows',
      ])
      const [first, second] = [m.charts[0]!, m.charts[4]!]
      expect(second.box.left).toBeGreaterThan(first.box.right)
      expect(Math.abs(second.box.top - first.box.top)).toBeLessThan(40)
      for (const chart of m.charts) {
        expect(chart.box.w, `${chart.kind} width`).toBeGreaterThan(100)
        expect(chart.box.h, `${chart.kind} height`).toBeGreaterThan(60)
        // Charts scale down rather than spill out of their run's column.
        expect(chart.box.right).toBeLessThanOrEqual(chart.section.right + 1)
        expect(chart.texts.length).toBeGreaterThan(4)
        for (const width of chart.texts) expect(width).toBeGreaterThan(0)
      }

      // Letter histograms: one bar per letter, heights proportional to the shares, reader marks drawn.
      for (const chart of m.charts.filter((c) => c.kind === 'columns')) {
        expect(chart.bars).toHaveLength(4)
        expect(chart.expected).toBe(4)
        const positive = chart.bars.filter((b) => b.value! > 0)
        expect(positive.length).toBeGreaterThan(0)
        const [ref] = positive
        for (const bar of chart.bars) {
          if (bar.value === 0) expect(bar.box.h).toBeLessThan(0.5)
          else expect(bar.box.h / ref!.box.h).toBeCloseTo(bar.value! / ref!.value!, 1)
        }
      }
      // The always-first run's histogram is one full bar on A, and so is its accuracy by gold
      // slot (right only when gold was shown at A); the keyword reader is right at every slot.
      expect(m.charts[0]!.bars.map((b) => b.value)).toEqual([1, 0, 0, 0])
      expect(m.charts[1]!.bars.map((b) => b.value)).toEqual([1, 0, 0, 0])
      for (const bar of m.charts[5]!.bars) expect(bar.value).toBeGreaterThan(0.9)
      // Reliability: a bar for every non-empty bin, visible where it has hits; per criterion: one row per key.
      // Always-first ties every decision under cyclic, and a tie is no answer: it has no hit at all.
      for (const chart of m.charts.filter((c) => c.kind === 'reliability')) {
        expect(chart.bars.length).toBeGreaterThan(0)
        for (const bar of chart.bars) {
          expect(bar.count).toBeGreaterThan(0)
          expect(bar.box.w).toBeGreaterThan(2)
        }
        if (chart.run === 1) expect(chart.bars.some((b) => b.box.h > 10)).toBe(true)
        else for (const bar of chart.bars) expect(bar.box.h).toBeLessThan(0.5)
      }
      for (const chart of m.charts.filter((c) => c.kind === 'rows')) {
        expect(chart.bars.map((b) => b.value! > 0)).toEqual(chart.run === 1 ? [true, true] : [false, false])
        if (chart.run === 1) for (const bar of chart.bars) expect(bar.box.h).toBeGreaterThan(5)
      }

      // Headline cards laid out with their numbers; the paired table present.
      expect(m.cards.filter((c) => c.metric === 'balancedAccuracy').map((c) => c.value)).toEqual(['0.0%', '96.3%'])
      for (const card of m.cards) expect(card.box.w * card.box.h).toBeGreaterThan(1000)
      expect(m.paired!.w).toBeGreaterThan(100)
      expect(m.paired!.h).toBeGreaterThan(40)
      expect(stdout).toContain('95% paired bootstrap')
      expect(stdout).toContain('interval [90.0, 100.0]')
    })

    it('takes a screenshot of the uninstrumented page (no script at all)', async () => {
      const file = join(dir, 'report.html')
      await writeFile(file, twoRuns)
      // Written in this run's temp dir: a fixed shared path would race with another checkout's
      // suite running at the same time (one run's rm or write between the other's write and read).
      const out = join(dir, 'report.png')
      const { code, stderr } = await chromium([`--screenshot=${out}`, '--window-size=1280,2600', pathToFileURL(file).href], profile)
      expect(code, stderr.slice(-2000)).toBe(0)
      const png = await readFile(out)
      // A copy outside the temp dir so a person can look at it after the run, replaced in one rename.
      const shown = join(tmpdir(), 'vitest-sceptic-report.png')
      await copyFile(out, `${shown}.${process.pid}`)
      await rename(`${shown}.${process.pid}`, shown)
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
      // IHDR: width and height, big-endian, at bytes 16..23.
      expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([1280, 2600])
      // A blank page compresses to a few kilobytes; charts, text and cards do not.
      expect(png.length).toBeGreaterThan(50_000)
    })
  },
)
