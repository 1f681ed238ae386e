// The score cache through the built CLI: resume after SIGKILL, stats, clear, bad files, flags.
import { spawn } from 'node:child_process'
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pathToFileURL } from 'node:url'
import { CLI, ROOT, sceptic } from '../helpers/run.ts'
import { startFakeOpenAI, type Behaviour } from '../helpers/fake-openai.ts'
import { useTempDir } from '../helpers/temp.ts'

const SCORER = join(ROOT, 'test/fixtures/cache/slow-scorer.mjs')
const MODEL = join(ROOT, 'examples/models/tiny')
const TICKETS = join(ROOT, 'examples/data/tickets.jsonl')
const dir = useTempDir('sceptic-cache-cli-')
let data: string
const DECISIONS = 700
const REQUESTS = DECISIONS * 2 // cyclic over two options

beforeAll(() => {
  data = join(dir, 'data.jsonl')
  const lines = Array.from({ length: DECISIONS }, (_, i) =>
    JSON.stringify({ id: `d${i}`, state: `Evidence number ${i} ${'x'.repeat(i % 13)}`, criterion: { key: 'k', options: [{ id: 'a', text: 'Alpha' }, { id: 'b', text: 'Beta option' }] }, answer_id: i % 3 ? 'a' : 'b' }),
  )
  writeFileSync(data, lines.join('\n') + '\n')
})

const counted = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).reduce((sum, n) => sum + Number(n), 0) : 0)
const withoutTimes = (path: string) => {
  const json = JSON.parse(readFileSync(path, 'utf8'))
  delete json.manifest.started
  delete json.manifest.seconds
  delete json.manifest.cache
  return json
}
const rw = { SCEPTIC_CACHE_MODE: 'read-write' }

describe('sceptic evaluate with the score cache', () => {
  it('a run killed with SIGKILL midway resumes: it scores only what was not cached, and its JSON and records equal an uninterrupted run', async () => {
    const cache = join(dir, 'resume-cache')
    const args = (out: string) => ['evaluate', data, '--scorer', SCORER, '--debias', 'cyclic', '--cache', cache, '--json-out', `${out}.json`, '--records-out', `${out}.jsonl`]
    const counter = join(dir, 'resume-counter')
    // 3 ms per request: once the counter passes halfway (the third slice of 256 has started),
    // about 2.7 s of scoring remain for the poll below to kill it in (0.9 s at 1 ms), on a loaded machine.
    const env = { ...process.env, ...rw, SCEPTIC_TEST_COUNTER: counter, SCEPTIC_TEST_MS_PER_REQUEST: '3', NO_COLOR: '1' }
    const child = spawn(process.execPath, [CLI, ...args(join(dir, 'killed'))], { env, stdio: 'ignore' })
    const exited = new Promise((resolve) => child.on('exit', resolve))
    try {
      const deadline = Date.now() + 30_000
      while (counted(counter) < REQUESTS / 2) {
        if (Date.now() > deadline) throw new Error('the run did not get halfway in 30 s')
        await new Promise((r) => setTimeout(r, 10))
      }
    } finally {
      child.kill('SIGKILL')
      await exited
    }
    const beforeResume = counted(counter)
    expect(beforeResume).toBeLessThan(REQUESTS)
    const resumed = await sceptic(args(join(dir, 'resumed')), { env: { ...rw, SCEPTIC_TEST_COUNTER: counter } })
    expect(resumed.stderr).not.toMatch(/error/i)
    expect(resumed.code).toBe(0)
    const uninterruptedCounter = join(dir, 'plain-counter')
    const plain = await sceptic(['evaluate', data, '--scorer', SCORER, '--debias', 'cyclic', '--no-cache', '--json-out', join(dir, 'plain.json'), '--records-out', join(dir, 'plain.jsonl')], {
      env: { SCEPTIC_TEST_COUNTER: uninterruptedCounter },
    })
    expect(plain.code).toBe(0)
    expect(counted(uninterruptedCounter)).toBe(REQUESTS)
    expect(withoutTimes(join(dir, 'resumed.json'))).toEqual(withoutTimes(join(dir, 'plain.json')))
    expect(readFileSync(join(dir, 'resumed.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'plain.jsonl'), 'utf8'))
    // At most the slice in flight and the one being fsynced (256 requests each, cut between decisions) are lost to the kill.
    const total = counted(counter)
    expect(total).toBeLessThanOrEqual(REQUESTS + 2 * (256 + 1))
    const manifest = JSON.parse(readFileSync(join(dir, 'resumed.json'), 'utf8')).manifest
    expect(manifest.cache.hits + manifest.cache.misses).toBe(REQUESTS)
    expect(manifest.cache.misses).toBe(total - beforeResume)
    expect(resumed.stdout).toMatch(new RegExp(`^cache\\s+${manifest.cache.hits.toLocaleString('en-US')} hits, ${manifest.cache.misses.toLocaleString('en-US')} scored$`, 'm'))
    // A third run scores nothing.
    const warm = await sceptic(args(join(dir, 'warm')), { env: { ...rw, SCEPTIC_TEST_COUNTER: counter } })
    expect(warm.code).toBe(0)
    expect(counted(counter)).toBe(total)
    expect(warm.stdout).toMatch(/^cache\s+1,400 hits, 0 scored$/m)
  })

  it('SCEPTIC_CACHE_DIR sets the directory; the ONNX model is cached; stats lists models; clear --model removes only that model', async () => {
    const cache = join(dir, 'env-cache')
    const onnx = ['evaluate', TICKETS, '--model', MODEL, '--debias', 'cyclic', '--workers', '1']
    const cold = await sceptic(onnx, { env: { ...rw, SCEPTIC_CACHE_DIR: cache } })
    expect(cold.code).toBe(0)
    expect(cold.stdout).toMatch(/^cache\s+0 hits, 168 scored$/m)
    const warm = await sceptic(onnx, { env: { ...rw, SCEPTIC_CACHE_DIR: cache } })
    expect(warm.stdout).toMatch(/^cache\s+168 hits, 0 scored$/m)
    // The report without the cache line is the same report; the readout line says the model never loaded.
    expect(warm.stdout).toMatch(/^readout\s+not started: every answer came from the score cache$/m)
    const strip = (text: string) => text.replace(/^cache .*\n/m, '').replace(/^readout .*\n/m, '')
    expect(strip(warm.stdout)).toBe(strip(cold.stdout))
    const user = await sceptic(['evaluate', data, '--scorer', SCORER, '--debias', 'none', '--cache', cache], { env: { ...rw, SCEPTIC_TEST_MS_PER_REQUEST: '0' } })
    expect(user.code).toBe(0)
    const stats = await sceptic(['cache', 'stats', cache])
    expect(stats.code).toBe(0)
    expect(stats.stdout).toMatch(/^entries\s+868$/m)
    expect(stats.stdout).toMatch(/^models\s+2$/m)
    expect(stats.stdout).toMatch(new RegExp(`^\\s+700\\s+user\\s+scorer .*slow-scorer\\.mjs$`, 'm'))
    expect(stats.stdout).toMatch(new RegExp(`^\\s+168\\s+onnx\\s+.*examples/models/tiny$`, 'm'))
    const clear = await sceptic(['cache', 'clear', cache, '--model', MODEL])
    expect(clear.stdout).toBe(`removed 168 entries of ${MODEL} from ${cache}\n`)
    expect((await sceptic(['cache', 'stats', cache])).stdout).toMatch(/^entries\s+700$/m)
    expect((await sceptic(onnx, { env: { ...rw, SCEPTIC_CACHE_DIR: cache } })).stdout).toMatch(/^cache\s+0 hits, 168 scored$/m)
    const all = await sceptic(['cache', 'clear', cache])
    expect(all.stdout).toBe(`removed 868 entries from ${cache}\n`)
    expect((await sceptic(['cache', 'stats', cache])).stdout).toMatch(/^entries\s+0$/m)
  }, 180_000) // nine CLI runs, three of them loading the ONNX model: past 60 s on a busy 2-core machine

  it('foreign, truncated and newer-version cache files are one line each on stderr, ignored, and the run is right', async () => {
    const cache = join(dir, 'bad-cache')
    mkdirSync(join(cache, 'segments'), { recursive: true })
    // A cache the cache made (its marker), into which bad files fell.
    writeFileSync(join(cache, 'CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n')
    writeFileSync(join(cache, 'segments', 'foreign.seg'), 'PK\u0003\u0004 not ours')
    const newer = Buffer.alloc(16)
    newer.write('SCEPTICC', 0, 'latin1')
    newer.writeUInt32LE(9, 8)
    writeFileSync(join(cache, 'segments', 'newer.seg'), newer)
    writeFileSync(join(cache, 'segments', 'torn.seg'), Buffer.concat([Buffer.from('SCEPTICC\u0001\u0000\u0000\u0000\u0000\u0000\u0000\u0000', 'latin1'), Buffer.from([200, 0, 0, 0, 1, 2])]))
    const args = ['evaluate', TICKETS, '--scorer', SCORER, '--debias', 'cyclic', '--cache', cache, '--json-out', join(dir, 'bad.json')]
    const result = await sceptic(args, { env: { ...rw, SCEPTIC_TEST_MS_PER_REQUEST: '0' } })
    expect(result.code).toBe(0)
    const warnings = result.stderr.split('\n').filter((line) => line.startsWith('vitest-sceptic cache:'))
    expect(warnings).toHaveLength(3)
    expect(warnings.find((w) => w.includes('foreign.seg'))).toMatch(/not a vitest-sceptic cache segment/)
    expect(warnings.find((w) => w.includes('newer.seg'))).toMatch(/cache format version 9, this vitest-sceptic reads version 1; ignored$/)
    expect(warnings.find((w) => w.includes('torn.seg'))).toMatch(/torn or corrupt record at byte 16/)
    expect(result.stdout).toMatch(/^cache\s+0 hits, 168 scored$/m)
    const again = await sceptic(args, { env: { ...rw, SCEPTIC_TEST_MS_PER_REQUEST: '0' } })
    expect(again.stdout).toMatch(/^cache\s+168 hits, 0 scored$/m)
  })

  it('bad cache flags are one line and exit 2; a scorer without cacheKey is not cached; --no-cache writes nothing', async () => {
    const both = await sceptic(['evaluate', TICKETS, '--scorer', SCORER, '--cache', dir, '--no-cache'])
    expect(both.code).toBe(2)
    expect(both.stderr).toBe('sceptic: UsageError: --no-cache cannot be combined with --cache or --cache-mode\n')
    const mode = await sceptic(['evaluate', TICKETS, '--scorer', SCORER, '--cache-mode', 'sometimes'])
    expect(mode.code).toBe(2)
    expect(mode.stderr.trim().split('\n')).toEqual([expect.stringMatching(/--cache-mode must be one of read-write, read-only, off, got "sometimes"$/)])
    const env = await sceptic(['evaluate', TICKETS, '--scorer', SCORER], { env: { SCEPTIC_CACHE_MODE: 'sometimes' } })
    expect(env.stderr).toMatch(/SCEPTIC_CACHE_MODE must be one of/)
    expect(env.code).toBe(2)
    const bare = await sceptic(['cache'])
    expect(bare.code).toBe(2)
    expect(bare.stderr).toBe('sceptic: UsageError: Usage: sceptic cache (stats [DIR] | clear [DIR] [--model DIR] [--scorer DESCRIPTION] [--older-than DAYS])\n')
    const keyless = join(dir, 'keyless.mjs')
    writeFileSync(keyless, 'export default (requests) => requests.map((r) => r.criterion.options.map(() => 1))\n')
    const cache = join(dir, 'keyless-cache')
    const plain = await sceptic(['evaluate', TICKETS, '--scorer', keyless, '--cache', cache], { env: rw })
    expect(plain.code).toBe(0)
    expect(plain.stdout).not.toMatch(/^cache/m)
    const off = await sceptic(['evaluate', TICKETS, '--scorer', SCORER, '--no-cache'], { env: { ...rw, SCEPTIC_CACHE_DIR: cache, SCEPTIC_TEST_MS_PER_REQUEST: '0' } })
    expect(off.code).toBe(0)
    expect(existsSync(cache)).toBe(false)
  })
})

describe('sceptic evaluate with a remote scorer: cache hits re-checked live', () => {
  it('an unchanged server passes with 8 hits re-checked (counted in the endpoint stats); changed answers under the same model name exit 4 in one line', async () => {
    let weights: 'old' | 'new' = 'old'
    const server = await startFakeOpenAI((): Behaviour => (weights === 'old' ? { kind: 'ok' } : { kind: 'only-letters', letters: ['A'] }))
    try {
      const module = join(dir, 'remote.mjs')
      const http = pathToFileURL(join(ROOT, 'dist/http/index.js')).href
      writeFileSync(module, `import { openAIScorer } from ${JSON.stringify(http)}\nexport default openAIScorer({ baseURL: process.env.SCEPTIC_TEST_URL, model: 'triage', retries: 0 })\n`)
      const cache = join(dir, 'remote-cache')
      const out = join(dir, 'remote.json')
      const args = ['evaluate', TICKETS, '--scorer', module, '--debias', 'cyclic', '--no-statistics', '--cache', cache, '--json-out', out]
      const env = { ...rw, SCEPTIC_TEST_URL: server.baseURL }
      const cold = await sceptic(args, { env })
      expect(cold.code, cold.stderr).toBe(0)
      expect(server.received).toHaveLength(168)
      const warm = await sceptic(args, { env })
      expect(warm.code, warm.stderr).toBe(0)
      expect(server.received).toHaveLength(176)
      expect(warm.stdout).toMatch(/^cache\s+168 hits, 0 scored, 8 re-checked live$/m)
      const manifest = JSON.parse(readFileSync(out, 'utf8')).manifest
      expect(manifest.cache).toEqual({ hits: 168, misses: 0, verified: 8 })
      expect(Object.values(manifest.endpoints).map((e: any) => e.requests)).toEqual([8])
      weights = 'new'
      const stale = await sceptic(args, { env })
      expect(stale.code).toBe(4)
      expect(stale.stderr.split('\n').filter((line) => line.startsWith('sceptic:'))).toEqual([
        expect.stringMatching(/^sceptic: ScorerError: .*the server's answers changed under the same model name: [1-8] of 8 re-checked cache hits differ \(max \|Δp\| 0\.\d{3}\); the cache is stale for this deployment: clear it \(`sceptic cache clear`\) or name the deployment distinctly$/),
      ])
      const bad = await sceptic([...args, '--cache-verify', 'some'], { env })
      expect(bad.code).toBe(2)
      expect(bad.stderr).toBe('sceptic: UsageError: --cache-verify must be an integer ≥ 0, got "some"\n')
    } finally {
      await server.close()
    }
  })
})
