// The reporter's `html` option under the same rule as the CLI's outputs (test/fixtures/report-outputs):
// a page over a suite's data file, inside its score cache, or two suites on one page, fails the run before any page is
// written, naming the file (and both suites); the data file keeps its bytes.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDirs } from '../../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../../helpers/vitest.ts'

const temp = useTempDirs('sceptic-report-outputs-')
const dist = useDistSnapshot()
const root = join(FIXTURES, 'report-outputs')
const OPTIONS = ['a', 'b'].map((id) => ({ id, text: id }))
const DATA = Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: `d${i}`, state: OPTIONS[i % 2]!.id, criterion: { key: 'k', options: OPTIONS }, answer_id: OPTIONS[i % 2]!.id }) + '\n').join('')

function project(): string {
  const out = temp()
  writeFileSync(join(out, 'data.jsonl'), DATA)
  return out
}

test('reporter html over a suite data file: refused, the data file untouched, nothing written', async () => {
  const out = project()
  const run = await vitest(['run', '--root', root, '-t', '^Triage A'], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_HTML: join(out, 'data.jsonl') })
  expect(run.code, run.output).not.toBe(0)
  expect(run.output).toMatch(/ConfigError: reporter html of "Triage A" .*data\.jsonl: refusing to overwrite the input file .*data\.jsonl/)
  expect(readFileSync(join(out, 'data.jsonl'), 'utf8')).toBe(DATA)
  expect(readdirSync(out).sort()).toEqual(['data.jsonl'])
}, 120_000)

test('two suites whose pages would be one file: refused naming both, no page written', async () => {
  const out = project()
  const run = await vitest(['run', '--root', root], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_HTML: join(out, 'report.html') })
  expect(run.code, run.output).not.toBe(0)
  expect(run.output).toMatch(/ConfigError: reporter html of "triage a" .*report\.triage-a\.html and reporter html of "Triage A" .*report\.triage-a\.html are the same file/)
  expect(existsSync(join(out, 'report.triage-a.html'))).toBe(false)
  expect(readFileSync(join(out, 'data.jsonl'), 'utf8')).toBe(DATA)
}, 120_000)

test('reporter html inside the score cache (off or not, as the CLI rules): refused, nothing written there', async () => {
  const out = project()
  const cache = join(out, 'cache')
  const run = await vitest(['run', '--root', root, '-t', '^Triage A'], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_HTML: join(cache, 'report.html'), SCEPTIC_CACHE_DIR: cache })
  expect(run.code, run.output).not.toBe(0)
  expect(run.output).toMatch(/ConfigError: reporter html of "Triage A" .*report\.html: refusing to write into the score cache of "Triage A" .*cache, which the tool keeps/)
  expect(existsSync(cache)).toBe(false)
}, 120_000)

test('a page beside the data file is written (control)', async () => {
  const out = project()
  const run = await vitest(['run', '--root', root, '-t', '^Triage A'], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_HTML: join(out, 'report.html') })
  expect(run.code, run.output).toBe(0)
  expect(readFileSync(join(out, 'report.html'), 'utf8')).toMatch(/^<!doctype html>/i)
}, 120_000)
