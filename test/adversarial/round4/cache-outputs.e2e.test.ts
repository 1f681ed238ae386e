// The score cache is part of the output plan: `sceptic evaluate` refuses, before any scoring, an
// output (`--json-out`, `--records-out`) that lands in the cache folder however it is named (the
// flag, SCEPTIC_CACHE_DIR, a symlink, the folder itself). Before the fix `--json-out` over a cache
// segment replaced it and exited 0 (the next run re-scored everything), and `--cache run.json
// --json-out run.json` scored every decision, then failed.
import { existsSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../../helpers/run.ts'
import { useTempDirs } from '../../helpers/temp.ts'

const SCORER = join(ROOT, 'test/fixtures/cache/slow-scorer.mjs')
const temp = useTempDirs('sceptic-cache-outputs-')
const OPTIONS = [{ id: 'a', text: 'Alpha' }, { id: 'b', text: 'Beta option' }]
const DATA = Array.from({ length: 12 }, (_, i) => JSON.stringify({ id: `d${i}`, state: `Evidence ${i}`, criterion: { key: 'k', options: OPTIONS }, answer_id: i % 3 ? 'a' : 'b' })).join('\n') + '\n'

/** A folder with the data and a cache warmed by one run; the scorer counts its requests in `counter`. */
async function warmed(): Promise<{ dir: string; data: string; cache: string; counter: string; segment: string }> {
  const dir = temp()
  const data = join(dir, 'data.jsonl')
  writeFileSync(data, DATA)
  const cache = join(dir, 'cache')
  const counter = join(dir, 'counter')
  const warm = await sceptic(['evaluate', data, '--scorer', SCORER, '--cache', cache], { env: { SCEPTIC_CACHE_MODE: 'read-write' } })
  expect(warm.code, warm.stderr).toBe(0)
  const [segment] = readdirSync(join(cache, 'segments'))
  return { dir, data, cache, counter, segment: join(cache, 'segments', segment!) }
}

const requests = (counter: string) => (existsSync(counter) ? readFileSync(counter, 'utf8').split('\n').filter(Boolean).reduce((sum, n) => sum + Number(n), 0) : 0)

/** A refusal: exit 2, one line naming the flag and the cache, nothing scored. */
function refused(run: { code: number | null; stdout: string; stderr: string }, flag: string, counter: string): void {
  expect(run.code, run.stderr).toBe(2)
  expect(run.stderr.trim().split('\n'), run.stderr).toHaveLength(1)
  expect(run.stderr).toMatch(new RegExp(`${flag} .*: refusing to write into the score cache .*, which the tool keeps`))
  expect(requests(counter), 'scored before refusing').toBe(0)
  expect(run.stdout).not.toContain('SCEPTIC')
}

describe('sceptic evaluate: no output lands in the score cache', () => {
  let cached: Awaited<ReturnType<typeof warmed>>
  beforeAll(async () => {
    cached = await warmed()
  }, 60_000)
  const evaluate = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    sceptic(['evaluate', cached.data, '--scorer', SCORER, ...args], { env: { SCEPTIC_CACHE_MODE: 'read-write', SCEPTIC_TEST_COUNTER: cached.counter, ...env } })

  it('--json-out over a cache segment: refused, the segment keeps its bytes', async () => {
    const bytes = readFileSync(cached.segment)
    refused(await evaluate(['--cache', cached.cache, '--json-out', cached.segment]), '--json-out', cached.counter)
    expect(readFileSync(cached.segment).equals(bytes)).toBe(true)
  }, 60_000)

  it('--records-out to a new file inside the cache folder: refused, nothing created there', async () => {
    const before = readdirSync(cached.cache).sort()
    refused(await evaluate(['--cache', cached.cache, '--records-out', join(cached.cache, 'records.jsonl')]), '--records-out', cached.counter)
    expect(readdirSync(cached.cache).sort()).toEqual(before)
  }, 60_000)

  it('--json-out at the cache folder itself: refused', async () => {
    refused(await evaluate(['--cache', cached.cache, '--json-out', cached.cache]), '--json-out', cached.counter)
  }, 60_000)

  it('the cache named by SCEPTIC_CACHE_DIR, not a flag: refused', async () => {
    refused(await evaluate(['--json-out', join(cached.cache, 'segments', 'run.json')], { SCEPTIC_CACHE_DIR: cached.cache }), '--json-out', cached.counter)
  }, 60_000)

  it('through a symlink to the cache folder: refused', async () => {
    const link = join(cached.dir, 'link')
    if (!existsSync(link)) symlinkSync(cached.cache, link)
    refused(await evaluate(['--cache', cached.cache, '--json-out', join(link, 'segments', 'x.json')]), '--json-out', cached.counter)
  }, 60_000)

  it('--cache run.json --json-out run.json: refused before scoring, where it scored everything and then failed', async () => {
    const dir = temp()
    const run = await evaluate(['--cache', join(dir, 'run.json'), '--json-out', join(dir, 'run.json')])
    refused(run, '--json-out', cached.counter)
    expect(existsSync(join(dir, 'run.json'))).toBe(false)
  }, 60_000)

  it('with the cache off, its folder is still the cache: refused', async () => {
    refused(await evaluate(['--cache', cached.cache, '--cache-mode', 'off', '--json-out', join(cached.cache, 'off.json')]), '--json-out', cached.counter)
  }, 60_000)

  it('a JSON beside the cache is written (control)', async () => {
    const beside = join(cached.dir, 'run.json')
    const run = await evaluate(['--cache', cached.cache, '--json-out', beside])
    expect(run.code, run.stderr).toBe(0)
    expect(JSON.parse(readFileSync(beside, 'utf8'))).toHaveProperty('metrics')
  }, 60_000)
})
