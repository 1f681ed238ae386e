import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { pathToFileURL } from 'node:url'
import { ROOT, sceptic } from '../helpers/run.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { useTempDir } from '../helpers/temp.ts'

// End to end: the built binary, the example data (group ids, unlabelled rows) and scorer.
const DATA = 'examples/data/tickets.jsonl'
const READER = 'examples/scorers/keyword-reader.mjs'
const COMMON = ['--scorer', READER, '--debias', 'cyclic', '--no-cache']

const dir = useTempDir('sceptic-shard-')
const part = (i: number) => join(dir, `p${i}.records.jsonl`)
beforeAll(async () => {
  const runs = await Promise.all([
    ...[1, 2, 3].map((i) => sceptic(['evaluate', DATA, ...COMMON, '--shard', `${i}/3`, '--records-out', part(i)])),
    sceptic(['evaluate', DATA, ...COMMON, '--json-out', join(dir, 'whole.json'), '--records-out', join(dir, 'whole.records.jsonl')]),
  ])
  for (const run of runs) expect(run.code, run.stderr).toBe(0)
}, 60_000)

const withoutTimes = (text: string) => text.replace(/"(started|seconds)": [^,\n]+/g, '"$1": 0')

describe('sceptic evaluate --shard / sceptic merge', () => {
  it('merging the parts gives the unsharded JSON and records (times aside)', async () => {
    const parts = await Promise.all([1, 2, 3].map(async (i) => (await readFile(part(i), 'utf8')).trim().split('\n')))
    // Groups never straddle, and the parts hold all 56 labelled decisions once.
    expect(parts.flat()).toHaveLength(56)
    const groupsPerPart = parts.map((lines) => new Set(lines.map((l) => JSON.parse(l).id.replace(/^(t-\d+).*/, '$1'))))
    for (const [a, b] of [[0, 1], [0, 2], [1, 2]] as const) for (const g of groupsPerPart[a]!) expect(groupsPerPart[b]!.has(g)).toBe(false)

    const out = join(dir, 'merged.json')
    const { code, stdout, stderr } = await sceptic(['merge', part(3), part(1), part(2), '--json-out', out, '--records-out', join(dir, 'merged.records.jsonl')])
    expect(code, stderr).toBe(0)
    expect(stderr).toMatch(/merged 3 parts: 56 decisions/)
    expect(stdout).toMatch(/^decisions {10}56 {3}\(4 unlabelled skipped\)$/m)
    expect(withoutTimes(await readFile(out, 'utf8'))).toBe(withoutTimes(await readFile(join(dir, 'whole.json'), 'utf8')))
    expect(await readFile(join(dir, 'merged.records.jsonl'), 'utf8')).toBe(await readFile(join(dir, 'whole.records.jsonl'), 'utf8'))
  })

  it('parts run with --no-statistics merge into the unsharded --no-statistics JSON (no intervals added by the merge)', async () => {
    const plain = [...COMMON, '--no-statistics']
    const runs = await Promise.all([
      ...[1, 2].map((i) => sceptic(['evaluate', DATA, ...plain, '--shard', `${i}/2`, '--records-out', join(dir, `n${i}.records.jsonl`)])),
      sceptic(['evaluate', DATA, ...plain, '--json-out', join(dir, 'whole-n.json')]),
    ])
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    const out = join(dir, 'merged-n.json')
    const merged = await sceptic(['merge', join(dir, 'n1.records.jsonl'), join(dir, 'n2.records.jsonl'), '--json-out', out])
    expect(merged.code, merged.stderr).toBe(0)
    const whole = await readFile(join(dir, 'whole-n.json'), 'utf8')
    expect(JSON.parse(whole).statistics).toBeUndefined()
    expect(withoutTimes(await readFile(out, 'utf8'))).toBe(withoutTimes(whole))
  })

  it('refuses a missing shard, a records file without its part file, and --shard without --records-out, in one line', async () => {
    const missing = await sceptic(['merge', part(1), part(2), '--json-out', join(dir, 'x.json')])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toBe('sceptic: DataError: shard 3/3 missing: merge needs every part of the run\n')

    const lone = join(dir, 'lone.records.jsonl')
    await writeFile(lone, '{"id":"a"}\n')
    const orphan = await sceptic(['merge', lone])
    expect(orphan.code).toBe(3)
    expect(orphan.stderr).toMatch(/^sceptic: DataError: .*lone\.records\.shard\.jsonl: the part file of .*lone\.records\.jsonl/)

    const usage = await sceptic(['evaluate', DATA, ...COMMON, '--shard', '1/2'])
    expect(usage.code).toBe(2)
    expect(usage.stderr).toMatch(/--shard needs --records-out FILE/)
    const bad = await sceptic(['evaluate', DATA, ...COMMON, '--shard', '3/2', '--records-out', join(dir, 'y.jsonl')])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/--shard must be i\/n with 1 ≤ i ≤ n \(e\.g\. 2\/4\), got "3\/2"/)
  })
})

describe('more shards than groups', () => {
  it('a shard with no labelled decision leaves an empty part; the merge still equals the unsharded run', async () => {
    // Two decisions of one group: every other shard of 4 is empty.
    const data = join(dir, 'two.jsonl')
    const lines = (await readFile(DATA, 'utf8')).split('\n').filter((l) => l.includes('"customer-001"'))
    await writeFile(data, lines.join('\n') + '\n')
    const runs = await Promise.all([
      ...[1, 2, 3, 4].map((i) => sceptic(['evaluate', data, ...COMMON, '--shard', `${i}/4`, '--records-out', join(dir, `e${i}.records.jsonl`)])),
      sceptic(['evaluate', data, ...COMMON, '--json-out', join(dir, 'e.json')]),
    ])
    for (const run of runs) expect(run.code, run.stderr).toBe(0)
    expect(runs.filter((r) => /holds none of the \d+ labelled decisions: wrote an empty part/.test(r.stderr))).toHaveLength(3)
    const merged = await sceptic(['merge', ...[1, 2, 3, 4].map((i) => join(dir, `e${i}.records.jsonl`)), '--json-out', join(dir, 'em.json')])
    expect(merged.code, merged.stderr).toBe(0)
    expect(withoutTimes(await readFile(join(dir, 'em.json'), 'utf8'))).toBe(withoutTimes(await readFile(join(dir, 'e.json'), 'utf8')))
  })
})

describe('sharded runs against two HTTP endpoints on 127.0.0.1', () => {
  it('the manifest counts requests per endpoint (no credentials); merged counts equal the unsharded run', async () => {
    const servers = [await startFakeOpenAI(), await startFakeOpenAI()]
    try {
      const module = join(dir, 'replicas.mjs')
      const http = pathToFileURL(join(ROOT, 'dist/http/index.js')).href
      await writeFile(module, `import { openAIScorer } from ${JSON.stringify(http)}\nexport default openAIScorer({ baseURL: process.env.SCEPTIC_TEST_URLS.split(','), model: 'tiny', concurrency: 8 })\n`)
      const urls = servers.map((s) => s.baseURL.replace('http://', 'http://me:pw-secret@'))
      const env = { SCEPTIC_TEST_URLS: urls.join(',') }
      const args = ['--scorer', module, '--debias', 'cyclic', '--no-cache']
      const runs = await Promise.all([
        ...[1, 2].map((i) => sceptic(['evaluate', DATA, ...args, '--shard', `${i}/2`, '--records-out', join(dir, `h${i}.records.jsonl`)], { env })),
        sceptic(['evaluate', DATA, ...args, '--json-out', join(dir, 'h.json')], { env }),
      ])
      for (const run of runs) expect(run.code, run.stderr).toBe(0)
      const merged = await sceptic(['merge', join(dir, 'h1.records.jsonl'), join(dir, 'h2.records.jsonl'), '--json-out', join(dir, 'hm.json')])
      expect(merged.code, merged.stderr).toBe(0)
      const whole = await readFile(join(dir, 'h.json'), 'utf8')
      // Equal but for the split between endpoints: each shard assigns by its own loads (bounded-load
      // affinity), so the per-endpoint counts differ by a few requests while their total is the same.
      const split = (text: string) => {
        const json = JSON.parse(text)
        const counts = json.manifest.endpoints as Record<string, { requests: number; failures: number; failovers: number }>
        json.manifest.endpoints = Object.keys(counts)
        return { json: withoutTimes(JSON.stringify(json, null, 2)), total: Object.values(counts).reduce((sum, c) => sum + c.requests, 0) }
      }
      expect(split(await readFile(join(dir, 'hm.json'), 'utf8'))).toEqual(split(whole))
      const endpoints = JSON.parse(whole).manifest.endpoints
      expect(Object.keys(endpoints)).toEqual(servers.map((s) => `${s.baseURL}/completions`))
      // 56 decisions: 28 of 4 options and 28 of 2, under cyclic: 168 requests over both endpoints.
      expect(Object.values(endpoints).reduce((sum: number, c: any) => sum + c.requests, 0)).toBe(168)
      expect(whole).not.toMatch(/pw-secret|me:/)
    } finally {
      await Promise.all(servers.map((s) => s.close()))
    }
  })
})
