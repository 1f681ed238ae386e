// The HTML page shows the run's gate: a run that failed its --threshold says so on the page, with
// the check that failed; a run that passed says that. The page decides nothing itself: the gate is
// the CLI's (the same checks, from the thresholds and failure-rate rule the run file records).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-html-gate-')
const data = join(ROOT, 'examples/data/tickets.jsonl')

/** Evaluate with `scorer` and `args`, then `sceptic report` the run: its exit code and the page. */
async function page(name: string, scorer: string, args: string[]): Promise<{ code: number | null; html: string }> {
  const json = join(dir, `${name}.json`)
  const run = await sceptic(['evaluate', data, '--scorer', join(ROOT, 'examples/scorers', scorer), '--no-cache', '--json-out', json, ...args])
  const html = join(dir, `${name}.html`)
  const report = await sceptic(['report', json, '--html-out', html])
  expect(report.code, report.stderr).toBe(0)
  return { code: run.code, html: readFileSync(html, 'utf8') }
}

describe('sceptic report: the gate on the page', () => {
  it('a failed threshold is on the page, marked failed, as the CLI printed it', async () => {
    const { code, html } = await page('first', 'always-first.mjs', ['--threshold', 'balancedAccuracy=0.8'])
    expect(code).toBe(1)
    expect(html).toContain('gate: failed (1 of 2 checks)')
    expect(html).toMatch(/<tr class="fail" data-check="balancedAccuracy"><th scope="row">✗ balancedAccuracy ≥ 0\.8<\/th><td>0\.\d{3}<\/td>/)
    expect(html).toMatch(/<tr class="pass" data-check="failureRate"><th scope="row">✓ failure rate ≤ 0<\/th>/)
  }, 120_000)

  it('a passing run says passed; --max-failure-rate is the rule the page applies', async () => {
    const { code, html } = await page('reader', 'keyword-reader.mjs', ['--threshold', 'balancedAccuracy=0.5', '--max-failure-rate', '0.1'])
    expect(code).toBe(0)
    expect(html).toContain('gate: passed')
    expect(html).toContain('✓ failure rate ≤ 0.1')
  }, 120_000)

  it('a run without thresholds shows no gate table', async () => {
    const { html } = await page('plain', 'keyword-reader.mjs', [])
    expect(html).not.toContain('class="gate"')
  }, 120_000)
})
