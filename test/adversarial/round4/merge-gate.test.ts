// `sceptic merge` goes through the one gate's parsers: a threshold `evaluate` refuses, merge
// refuses too (exit 2, one line), and parts scored by two different scorer modules of one
// file name are refused: a part's scorer identity holds its module's digest (as the cache
// key does), not the path as typed. Before the fix merge accepted `accuracy=-1` and passed,
// and merged the two modules' parts in silence.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../../helpers/run.ts'
import { cleanup, decisions, temp, writeData } from '../helpers.ts'

afterAll(cleanup)

// Picks the right option (the state names it) / always slot A: different scorers, one file name.
const READER = "export default (requests) => requests.map((r) => r.criterion.options.map((o) => (r.state.includes(o.text) ? 0.9 : 0.1)))\n"
const FIRST = 'export default (requests) => requests.map((r) => r.criterion.options.map((_, i) => (i === 0 ? 0.9 : 0.1)))\n'

let dir: string
let data: string

/** Shard `index` of 2 scored by the module `scorer.mjs` in `folder` (typed as `scorer.mjs`, run from there). */
async function part(folder: string, index: number, body: string): Promise<string> {
  const cwd = join(dir, folder)
  mkdirSync(cwd, { recursive: true })
  writeFileSync(join(cwd, 'scorer.mjs'), body)
  const records = join(dir, `${folder}-${index}.records.jsonl`)
  const { code, stderr } = await sceptic(['evaluate', data, '--scorer', 'scorer.mjs', '--no-cache', '--shard', `${index}/2`, '--records-out', records], { cwd })
  expect(code, stderr).toBe(0)
  return records
}

let same: string[]
beforeAll(async () => {
  dir = temp()
  data = writeData(dir, decisions(12, (i) => `Ticket ${i} about ${i % 2 === 0 ? 'Billing' : 'Technical support'}`))
  same = [await part('a', 1, READER), await part('a', 2, READER)]
}, 60_000)

describe('merge --threshold: the thresholds evaluate refuses', () => {
  it.each(['accuracy=-1', 'accuracy=0.9..0.1', 'accuracy=..5', 'accuracy=1.5', 'balancedAccuracy=2..', 'orderConsistency=-0.1..0.5'])('%s: exit 2, one line, as evaluate', async (flag) => {
    const merged = await sceptic(['merge', ...same, '--threshold', flag])
    expect(merged.code, merged.stdout + merged.stderr).toBe(2)
    expect(merged.stderr.trim().split('\n')).toHaveLength(1)
    expect(merged.stderr).toMatch(/^sceptic: ConfigError: --threshold: threshold \w+ (must lie in \[0, 1\]|must be a finite number)/)
    const evaluated = await sceptic(['evaluate', data, '--scorer', join(dir, 'a/scorer.mjs'), '--no-cache', '--threshold', flag])
    expect(evaluated.code).toBe(2)
    expect(evaluated.stderr).toBe(merged.stderr)
  }, 60_000)

  it.each(['2', 'NaN', '', 'Infinity'])('--max-failure-rate "%s": refused in evaluate\'s words (exit 2)', async (value) => {
    const merged = await sceptic(['merge', ...same, '--max-failure-rate', value])
    const evaluated = await sceptic(['evaluate', data, '--scorer', join(dir, 'a/scorer.mjs'), '--no-cache', '--max-failure-rate', value])
    expect(merged.code).toBe(2)
    expect(evaluated.code).toBe(2)
    expect(merged.stderr).toBe(evaluated.stderr)
  }, 60_000)

  it('a threshold in range still gates the merged run (exit 0 here)', async () => {
    const merged = await sceptic(['merge', ...same, '--threshold', 'accuracy=0.9'])
    expect(merged.code, merged.stderr).toBe(0)
    expect(merged.stdout).toMatch(/✓ accuracy ≥ 0\.9/)
  }, 60_000)
})

describe('merge: parts of two scorer modules with one file name', () => {
  it('refused (exit 3, as parts of another run), naming the scorer identity', async () => {
    const other = await part('b', 2, FIRST)
    const merged = await sceptic(['merge', same[0]!, other, '--threshold', 'accuracy=0.5'])
    expect(merged.code, merged.stdout).toBe(3)
    expect(merged.stderr).toMatch(/its scorer identity .* differs from .*these parts are not from one run/)
    expect(merged.stdout).not.toMatch(/gate:/)
  }, 60_000)

  it('the same bytes in another folder are one scorer: they merge', async () => {
    const copy = await part('c', 2, READER)
    const merged = await sceptic(['merge', same[0]!, copy])
    expect(merged.code, merged.stderr).toBe(0)
  }, 60_000)
})
