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

// The page's verdict as a person sees it: a real headless Chromium lays out the page of a
// positional and of a reading model; the verdict sits above the cards, red for the one and
// green for the other. Screenshots are kept under the temp dir for a person to look at.

const MEASURE = `addEventListener('load', () => {
  const v = document.getElementById('verdict')
  const card = document.querySelector('.card')
  const out = {
    text: v.textContent,
    top: v.getBoundingClientRect().top,
    bottom: v.getBoundingClientRect().bottom,
    height: v.getBoundingClientRect().height,
    background: getComputedStyle(v).backgroundColor,
    border: getComputedStyle(v).borderLeftColor,
    firstCardTop: card.getBoundingClientRect().top,
  }
  const pre = document.createElement('pre')
  pre.id = 'measurements'
  pre.textContent = JSON.stringify(out)
  document.body.append(pre)
})`

function instrument(html: string): string {
  const hash = createHash('sha256').update(MEASURE).digest('base64')
  const csp = `default-src 'none'; style-src 'unsafe-inline'; img-src data:`
  expect(html).toContain(csp)
  return html.replace(csp, `${csp}; script-src 'sha256-${hash}'`).replace('</body>', `<script>${MEASURE}</script></body>`)
}

const rgb = (css: string) => css.match(/\d+/g)!.slice(0, 3).map(Number) as [number, number, number]

describe.skipIf(CHROMIUM === null)(`the verdict in headless Chromium${CHROMIUM === null ? ' — SKIPPED: no chromium binary on PATH' : ''}`, () => {
  let dir: string
  let profile: string
  const pages: Record<string, string> = {}
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sceptic-verdict-'))
    profile = join(dir, 'profile')
    await mkdir(profile)
    const decisions = await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl'))
    for (const [name, path] of [
      ['positional', 'examples/scorers/always-first.mjs'],
      ['reading', 'examples/scorers/keyword-reader.mjs'],
    ] as const) {
      const scorer = (await import(pathToFileURL(join(ROOT, path)).href)).default as ScoreFn
      const result = await evaluateWithScorer(decisions, scorer, { debias: 'cyclic', onWarning: () => {}, scorerDescription: path })
      pages[name] = renderHtmlReport({ result: resultToJson(result), records: result.records, label: `${name}.json` })
    }
  })
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  for (const [name, sentence, hue] of [
    ['positional', 'answers by position: order consistency 0%, letter A picked 100%', 'red'],
    ['reading', 'reads the evidence: 96% balanced accuracy, 100% order consistency', 'green'],
  ] as const) {
    it(`${name} model: "${sentence}", ${hue}, above the cards; screenshot kept`, async () => {
      const file = join(dir, `${name}.measured.html`)
      await writeFile(file, instrument(pages[name]!))
      const { code, stdout, stderr } = await chromium(['--dump-dom', '--virtual-time-budget=5000', '--window-size=1280,1600', pathToFileURL(file).href], profile)
      expect(code, stderr.slice(-2000)).toBe(0)
      const json = /<pre id="measurements">([\s\S]*?)<\/pre>/.exec(stdout)?.[1]
      expect(json, 'the measuring script ran').toBeDefined()
      const m = JSON.parse(json!.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&'))
      expect(m.text).toBe(sentence)
      expect(m.height).toBeGreaterThan(20)
      expect(m.bottom).toBeLessThanOrEqual(m.firstCardTop)
      const [r, g, b] = rgb(m.border)
      if (hue === 'red') expect(r).toBeGreaterThan(g + b)
      else expect(g).toBeGreaterThan(r + b / 2)

      const plain = join(dir, `${name}.html`)
      await writeFile(plain, pages[name]!)
      const out = join(dir, `${name}.png`)
      const shot = await chromium([`--screenshot=${out}`, '--window-size=1280,900', pathToFileURL(plain).href], profile)
      expect(shot.code, shot.stderr.slice(-2000)).toBe(0)
      const png = await readFile(out)
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
      const kept = join(tmpdir(), `vitest-sceptic-verdict-${name}.png`)
      await copyFile(out, `${kept}.${process.pid}`)
      await rename(`${kept}.${process.pid}`, kept)
    })
  }
})
