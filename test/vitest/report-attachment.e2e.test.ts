// End-to-end: each suite's sceptic page and its letters-picked histogram reach Vitest as test
// annotations with attachments (what Vitest's UI and HTML reporter show beside the test), on the
// suite's first test; read back by a reporter of the fixture's (test/fixtures/verdict, built package).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const out = useTempDir('sceptic-attachments-')
const dist = useDistSnapshot()

interface Seen {
  test: string
  type: string
  message: string
  contentType?: string
  encoding?: string
  body?: string
}

test('the HTML page and the letters SVG are attachments of each suite\'s first test, once', async () => {
  const file = join(out, 'annotations.jsonl')
  const { code, output } = await vitest(
    ['run', '--root', join(FIXTURES, 'verdict'), '--reporter=default', `--reporter=${join(FIXTURES, 'annotations-reporter.mjs')}`],
    { SCEPTIC_E2E_DIST: dist(), ANNOTATIONS_OUT: file },
    150_000,
  )
  expect(code, output).toBe(0)
  const seen = readFileSync(file, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Seen)
  const pages = seen.filter((a) => a.type === 'sceptic:report')
  const charts = seen.filter((a) => a.type === 'sceptic:letters')
  expect(pages.map((a) => a.test)).toEqual(['positional > accuracy ≥ 0', 'reader > balancedAccuracy ≥ 0.9'])
  expect(charts.map((a) => a.test)).toEqual(pages.map((a) => a.test))
  for (const [suite, page] of [['positional', pages[0]!], ['reader', pages[1]!]] as const) {
    expect(page.contentType).toBe('text/html')
    expect(page.encoding).toBe('utf-8')
    expect(page.body).toMatch(/^<!doctype html>/i)
    expect(page.body).toContain(`<title>Sceptic report: ${suite}</title>`)
    expect(page.message).toBe(`sceptic report of "${suite}" (HTML)`)
  }
  for (const chart of charts) {
    expect(chart.contentType).toBe('image/svg+xml')
    expect(chart.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" /)
    expect(chart.body).toContain('<title id="run0-letters-title">Letters picked</title>')
  }
  // The positional suite's chart is one full bar on A.
  expect(charts[0]!.body).toContain('A 100% (expected')
}, 180_000)
