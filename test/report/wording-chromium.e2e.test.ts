// The report's words read right at both ends: a perfect run (every answer certain and right) and
// a terrible one (every answer certain and wrong), rendered to HTML, opened in a real headless
// Chromium, and read back as the page's text. Each card's note must state a scale or a fact, not
// something that reads like counts beside the number ("0 certain and right, 2 certain and wrong"
// beside a perfect run's Brier 0.000 read as two wrong answers). The ONNX readout is on the page.
// Screenshots of both land in the run's temp dir (SCEPTIC_SCREENSHOTS=<dir> keeps copies there).
import { copyFile, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadDecisions } from '../../src/core/decisions/load.ts'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { resultToJson, type EvalResult } from '../../src/core/result/result.ts'
import type { ScoreFn } from '../../src/core/scorer/contract.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { render } from '../../src/report/terminal.ts'
import { CHROMIUM, chromium, pageText } from '../helpers/chromium.ts'
import { ROOT } from '../helpers/run.ts'

/** A scorer certain of the gold answer (`right`) or certain of a wrong one, read from the data's own labels. */
async function certain(right: boolean): Promise<ScoreFn> {
  const decisions = await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl'))
  const gold = new Map(decisions.map((d) => [`${d.state}\u0000${d.criterion.key}`, (d as { answer_id?: string }).answer_id]))
  return (requests) =>
    requests.map(({ state, criterion }) => {
      const answer = gold.get(`${state}\u0000${criterion.key}`)
      // Wrong the same way under every ordering: the first wrong option by id, wherever it is shown.
      const chosen = right ? answer : criterion.options.map((o) => o.id).filter((id) => id !== answer).sort()[0]
      return criterion.options.map((o) => (o.id === chosen ? 1 : 0))
    })
}

let perfect: EvalResult
let terrible: EvalResult
beforeAll(async () => {
  const decisions = await loadDecisions(join(ROOT, 'examples/data/tickets.jsonl'))
  const quiet = { debias: 'cyclic' as const, onWarning: () => {} }
  perfect = await evaluateWithScorer(decisions, await certain(true), { ...quiet, scorerDescription: 'oracle', manifest: { readout: 'last position, 4 letter rows (made at startup)' } })
  terrible = await evaluateWithScorer(decisions, await certain(false), { ...quiet, scorerDescription: 'contrarian', manifest: { readout: 'full logits: readout: \'full\' was asked' } })
})

describe('the terminal report', () => {
  it('names the ONNX readout: the letter head, or the full logits and why', () => {
    expect(render(perfect, { color: false })).toMatch(/^readout {12}letter head \(last position, 4 letter rows \(made at startup\)\)$/m)
    expect(render(terrible, { color: false })).toMatch(/^readout {12}full logits: readout: 'full' was asked$/m)
  })
})

describe.skipIf(CHROMIUM === null)(
  `the HTML report's words in headless Chromium${CHROMIUM === null ? ' — SKIPPED: no chromium binary on PATH (apt-get install chromium, or set CHROMIUM=/path)' : ''}`,
  () => {
    let dir = ''
    beforeAll(async () => {
      dir = await mkdtemp(join(tmpdir(), 'sceptic-wording-'))
      await mkdir(join(dir, 'profile'))
    })
    afterAll(async () => {
      if (dir) await rm(dir, { recursive: true, force: true })
    })

    async function open(name: string, result: EvalResult): Promise<string> {
      const file = join(dir, `${name}.html`)
      await writeFile(file, renderHtmlReport({ result: resultToJson(result), records: result.records, label: `${name} run` }))
      const dumped = await chromium(['--dump-dom', '--window-size=1280,2400', pathToFileURL(file).href], join(dir, 'profile'))
      expect(dumped.code, dumped.stderr.slice(-2000)).toBe(0)
      const png = join(dir, `${name}.png`)
      const shot = await chromium([`--screenshot=${png}`, '--window-size=1280,1400', pathToFileURL(file).href], join(dir, 'profile'))
      expect(shot.code, shot.stderr.slice(-2000)).toBe(0)
      expect((await readFile(png)).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
      if (process.env.SCEPTIC_SCREENSHOTS) await copyFile(png, join(process.env.SCEPTIC_SCREENSHOTS, `report-${name}.png`))
      return pageText(dumped.stdout)
    }

    it('a perfect run: 100%, Brier 0 read as the best end of a scale, the letter-head readout', async () => {
      const text = await open('perfect', perfect)
      expect(text).toContain('readout letter head (last position, 4 letter rows (made at startup))')
      expect(text).toMatch(/Brier 0\.000 lower is better, on a scale from 0 \(every answer certain and right\) to 2 \(every answer certain and wrong\)/)
      expect(text).not.toMatch(/\b0 certain and right, 2 certain and wrong/)
      expect(text).toMatch(/balanced accuracy 100\.0%/)
      expect(text).toMatch(/order consistency 100\.0%/)
    })

    it('a terrible run: 0%, Brier 2 read as the worst end of the same scale, the full-logits readout and why', async () => {
      const text = await open('terrible', terrible)
      expect(text).toContain("readout full logits: readout: 'full' was asked")
      expect(text).toMatch(/Brier 2\.000 lower is better, on a scale from 0 \(every answer certain and right\) to 2 \(every answer certain and wrong\)/)
      expect(text).toMatch(/balanced accuracy 0\.0%/)
      expect(text).toMatch(/order consistency 100\.0%/)
    })
  },
)
