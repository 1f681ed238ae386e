// End-to-end: Vitest's own HTML reporter (`--reporter=html`, from @vitest/ui) shows each suite's
// sceptic page and letters chart beside its tests. A fixture eval project (test/fixtures/html-reporter)
// runs with the default and HTML reporters; the report folder is served over http on 127.0.0.1
// (the report fetches its data, which Chromium refuses from file://) and opened in a real headless
// Chromium at the eval file's view. The page's text names the annotations; the links and images
// on the page lead to the suite's HTML page and its SVG chart, whatever way the Vitest version
// stores them (an inline data: address or a file beside the report).
// SCEPTIC_SCREENSHOTS=<dir> keeps the screenshot as <dir>/vitest-html-reporter.png; the one in
// docs/images is made that way: SCEPTIC_SCREENSHOTS=docs/images npx vitest run <this file>.
import { copyFile, mkdir, readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { extname, join, normalize, sep } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CHROMIUM, chromium, pageText } from '../helpers/chromium.ts'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const TYPES: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.json': 'application/json' }

/** A static server for one folder on 127.0.0.1 (an ephemeral port); files only, nothing outside the folder. */
async function serve(root: string): Promise<{ server: Server; base: string }> {
  const server = createServer(async (req, res) => {
    const path = normalize(join(root, decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname)))
    try {
      if (!path.startsWith(root + sep)) throw new Error('outside')
      const body = await readFile(path)
      res.writeHead(200, { 'content-type': TYPES[extname(path)] ?? 'application/octet-stream' }).end(body)
    } catch {
      res.writeHead(404).end()
    }
  })
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
  return { server, base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/` }
}

/** What each `href`/`src` on the page leads to: a data: address decoded, any other fetched from the report's server. */
async function targets(dom: string, page: string): Promise<string[]> {
  const found: string[] = []
  for (const [, raw] of dom.matchAll(/\b(?:href|src)="([^"]*)"/g)) {
    const url = raw!.replace(/&amp;/g, '&').replace(/&quot;/g, '"')
    if (url.startsWith('data:')) {
      const comma = url.indexOf(',')
      const meta = url.slice(5, comma)
      const data = url.slice(comma + 1)
      found.push(meta.endsWith(';base64') ? Buffer.from(decodeURIComponent(data), 'base64').toString('utf8') : decodeURIComponent(data))
    } else if (!/\.(js|css|ico|png)$/.test(url) && !url.startsWith('#') && !url.startsWith('javascript:')) {
      const response = await fetch(new URL(url, page)).catch(() => null)
      if (response?.ok) found.push(await response.text())
    }
  }
  return found
}

interface Seen {
  test: string
  id: string
  module: string
  type: string
}

describe.skipIf(CHROMIUM === null)(
  `Vitest's HTML reporter in headless Chromium${CHROMIUM === null ? ' — SKIPPED: no chromium binary on PATH (apt-get install chromium, or set CHROMIUM=/path)' : ''}`,
  () => {
    const out = useTempDir('sceptic-vitest-html-')
    const dist = useDistSnapshot()
    let site: { server: Server; base: string } | undefined
    let pages: Seen[] = []

    beforeAll(async () => {
      const annotations = join(out, 'annotations.jsonl')
      // The fixture's config names the reporters: the HTML reporter's folder is an option there.
      const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'html-reporter')], { SCEPTIC_E2E_DIST: dist(), ANNOTATIONS_OUT: annotations, HTML_REPORT_DIR: join(out, 'html') }, 150_000)
      expect(code, output).toBe(0)
      pages = (await readFile(annotations, 'utf8')).trim().split('\n').map((line) => JSON.parse(line) as Seen).filter((a) => a.type === 'sceptic:report')
      expect(pages.map((a) => a.test)).toEqual(['positional > accuracy ≥ 0', 'reader > balancedAccuracy ≥ 0.9'])
      site = await serve(join(out, 'html'))
      await mkdir(join(out, 'profile'))
    }, 180_000)
    afterAll(() => new Promise<void>((done) => (site ? site.server.close(() => done()) : done())))

    /** The report's own address for one test: its hash route names the test file's id and the test's. */
    const address = (seen: Seen) => `${site!.base}index.html#/?file=${encodeURIComponent(seen.module)}&test=${encodeURIComponent(seen.id)}`

    it.each([
      ['positional', 0],
      ['reader', 1],
    ] as const)('the %s suite\'s first test lists its sceptic annotations, which open its page and its letters chart', async (suite, index) => {
      const page = address(pages[index]!)
      const dumped = await chromium(['--dump-dom', '--virtual-time-budget=15000', '--window-size=1400,1000', page], join(out, 'profile'))
      expect(dumped.code, dumped.stderr.slice(-2000)).toBe(0)
      const text = pageText(dumped.stdout)
      expect(text).toContain('sceptic:report')
      expect(text).toContain('sceptic:letters')
      expect(text).toContain(`sceptic report of "${suite}" (HTML)`)
      expect(text).toContain(`letters picked in "${suite}" (SVG)`)
      const opened = await targets(dumped.stdout, page)
      expect(opened.some((body) => body.includes(`<title>Sceptic report: ${suite}</title>`))).toBe(true)
      // The image and the link around it lead to the same chart.
      const charts = [...new Set(opened.filter((body) => body.startsWith('<svg') && body.includes('Letters picked')))]
      expect(charts).toHaveLength(1)
      // The positional suite's chart is one full bar on A; the reader's is not.
      expect(charts[0]!.includes('A 100% (expected')).toBe(suite === 'positional')
    }, 90_000)

    it('a screenshot of the positional suite\'s test in the report', async () => {
      const png = join(out, 'vitest-html-reporter.png')
      const shot = await chromium([`--screenshot=${png}`, '--virtual-time-budget=15000', '--window-size=1400,1000', address(pages[0]!)], join(out, 'profile'))
      expect(shot.code, shot.stderr.slice(-2000)).toBe(0)
      expect((await readFile(png)).subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
      if (process.env.SCEPTIC_SCREENSHOTS) await copyFile(png, join(process.env.SCEPTIC_SCREENSHOTS, 'vitest-html-reporter.png'))
    }, 90_000)
  },
)
