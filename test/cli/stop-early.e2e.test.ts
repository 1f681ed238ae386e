import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bernoulliSet } from '../helpers/bernoulli-set.ts'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

// The built CLI with --threshold and --stop-early: it stops, says so, writes only what it scored, and gates by exit code.
const dir = useTempDir('sceptic-stop-early-')
const READER = `export default (requests) => requests.map(({ state, criterion }) => {
  const [gold, verdict, steadiness] = state.split(' ')
  const target = verdict === 'right' ? gold : 'o' + ((Number(gold.slice(1)) + 1) % 4)
  return criterion.options.map((o, slot) => (o.id === target ? 3 : 1) + (steadiness === 'wobbly' && slot === 0 ? 2.5 : 0))
})
`
beforeAll(async () => {
  await writeFile(join(dir, 'reader.mjs'), READER)
  await writeFile(join(dir, 'cached-reader.mjs'), `${READER}export const cacheKey = 'bernoulli-reader-1'\n`)
  await writeFile(join(dir, 'good.jsonl'), bernoulliSet(1000, 0.9, 11).map((d) => JSON.stringify(d)).join('\n') + '\n')
  // Unique states, so that no two decisions share a cache entry.
  await writeFile(join(dir, 'unique.jsonl'), bernoulliSet(1000, 0.9, 12).map((d) => JSON.stringify({ ...d, state: `${d.state} ${d.id}` })).join('\n') + '\n')
})

const evaluate = (data: string, args: string[]) =>
  sceptic(['evaluate', join(dir, data), '--scorer', join(dir, 'reader.mjs'), '--no-cache', '--no-statistics', ...args])

describe('sceptic evaluate --stop-early', () => {
  it('stops a clear pass early, says so on the terminal, and writes JSON and records of the scored decisions only', async () => {
    const json = join(dir, 'pass.json')
    const records = join(dir, 'pass.records.jsonl')
    const { code, stdout, stderr } = await evaluate('good.jsonl', ['--threshold', 'accuracy=0.7', '--threshold', 'orderConsistency=0.8', '--stop-early', '--json-out', json, '--records-out', records])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const result = JSON.parse(await readFile(json, 'utf8'))
    const { scored, total } = result.stopEarly
    expect(result.stopEarly).toMatchObject({ alpha: 0.05, total: 1000, stopped: true, verdicts: { accuracy: 'pass', orderConsistency: 'pass' } })
    expect(scored).toBeLessThan(500)
    expect(stdout).toMatch(new RegExp(`stopped early +decided after ${scored} of ${total} decisions, anytime-valid at α = 0\\.05: accuracy lower bound \\d+\\.\\d% ≥ 70%; order consistency lower bound \\d+\\.\\d% ≥ 80%`))
    expect(stdout).toContain(`(stopped early: ${total - scored} of ${total} not scored; every figure below is from the scored sample)`)
    expect(stdout).toMatch(/✓ accuracy ≥ 0\.7 +\d\.\d{3} +accuracy: decided after/)
    expect(result.n + result.failed + result.manifest.unlabelledSkipped + result.manifest.notScored).toBe(1000)
    expect((await readFile(records, 'utf8')).trim().split('\n')).toHaveLength(result.n)
  })

  it('exits 1 when a threshold fails (with or without --stop-early), 0 when it passes without', async () => {
    const failed = await evaluate('good.jsonl', ['--threshold', 'accuracy=0.97', '--stop-early', '--alpha', '0.01'])
    expect(failed.code).toBe(1)
    expect(failed.stdout).toMatch(/✗ accuracy ≥ 0\.97 +\d\.\d{3} +accuracy: decided after \d+ of 1000 decisions, anytime-valid at α = 0\.01: upper bound \d+\.\d% < 97%/)
    const fixed = await evaluate('good.jsonl', ['--threshold', 'accuracy=0.97'])
    expect(fixed.code).toBe(1)
    expect(fixed.stdout).toMatch(/✗ accuracy ≥ 0\.97 +0\.\d{3} +accuracy: 0\.\d{3} is below the bound 0\.97/)
    const range = await evaluate('good.jsonl', ['--threshold', 'slotSensitivityGap=..0.5'])
    expect(range.code).toBe(0)
    expect(range.stdout).toMatch(/✓ slotSensitivityGap ≤ 0\.5/)
  })

  it('the cache keeps what a stopped run scored: a later full run pays only for the rest', async () => {
    const cache = join(dir, 'cache')
    const run = (name: string, args: string[]) =>
      sceptic(['evaluate', join(dir, 'unique.jsonl'), '--scorer', join(dir, 'cached-reader.mjs'), '--cache', cache, '--cache-mode', 'read-write', '--no-statistics', '--json-out', join(dir, name), ...args])
    expect((await run('first.json', ['--threshold', 'accuracy=0.7', '--stop-early'])).code).toBe(0)
    const first = JSON.parse(await readFile(join(dir, 'first.json'), 'utf8'))
    expect(first.manifest.cache).toMatchObject({ hits: 0, misses: first.stopEarly.scored * 4 })
    expect((await run('full.json', [])).code).toBe(0)
    const full = JSON.parse(await readFile(join(dir, 'full.json'), 'utf8'))
    expect(full.manifest.cache).toMatchObject({ hits: first.stopEarly.scored * 4, misses: (1000 - first.stopEarly.scored) * 4 })
    expect(full.n).toBe(1000)
  })

  it('refuses --stop-early without a threshold, with --shard, and --alpha without --stop-early (exit 2, one line)', async () => {
    for (const args of [
      ['--stop-early'],
      ['--stop-early', '--threshold', 'accuracy=0.7', '--shard', '1/2', '--records-out', join(dir, 'p.jsonl')],
      ['--threshold', 'accuracy=0.7', '--alpha', '0.1'],
      ['--threshold', 'accuracy'],
      ['--threshold', 'acuracy=0.7'],
      ['--threshold', 'accuracy=0.7', '--stop-early', '--alpha', '2'],
    ]) {
      const { code, stderr } = await evaluate('good.jsonl', args)
      expect(code, args.join(' ')).toBe(2)
      expect(stderr.trim().split('\n'), args.join(' ')).toHaveLength(1)
    }
  })
})
