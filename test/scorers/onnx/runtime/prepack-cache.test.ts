// The packed-weights folder (prepackCache): the first run writes ORT's optimized graph with
// its packed weights, later runs load it and score exactly as without it; an entry is found
// only for the same graph bytes and weight files; the folder holds only what it writes, is
// refused when it holds anything else, keeps a bounded number of entries, and never loads a
// truncated one.
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, truncateSync, utimesSync, writeFileSync, writeSync, closeSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { createRequire } from 'node:module'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../../src/core/support/errors.ts'
import { KEEP, planPrepack as planFor, prepackKey as keyFor } from '../../../../src/scorers/onnx/runtime/prepack-cache.ts'
import { stem } from '../../../../src/scorers/onnx/readout/readout-temp.ts'
import { onnxScorer, type OnnxScorer } from '../internal.ts'
import { cleanupTemp, makeModel, sampleRequests, tempDir } from '../helpers.ts'

const run = promisify(execFile)
const open: OnnxScorer[] = []
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()))
  cleanupTemp()
})

const dir = makeModel({ tokenizer: 'bpe' })
const other = makeModel({ tokenizer: 'bpe', decoder: { hidden: 32, layers: 2, heads: 4, maxPositions: 256, seed: 11 } }, 'other')

async function scoreWith(model: string, prepackCache?: string) {
  const scorer = onnxScorer({ model, ...(prepackCache ? { prepackCache } : {}) })
  open.push(scorer)
  const { prepacked } = await scorer.ready()
  const vectors = await scorer(sampleRequests())
  await scorer.close()
  return { prepacked, vectors, manifest: scorer.manifestEntries() }
}

// The cache's own functions on a bare graph (no other files, no salt).
const planPrepack = (dir: string, graphPath: string, cpuOnly: boolean, shown: string) => planFor(dir, { graphPath, files: [], salt: '' }, cpuOnly, shown)
const prepackKey = (graphPath: string) => keyFor({ graphPath, files: [], salt: '' })

const entriesOf = (cache: string) => readdirSync(cache).filter((name) => /^[0-9a-f]{32}$/.test(name))

describe('prepackCache', () => {
  it('writes an entry on the first run, loads it on the next, and scores exactly as without it', async () => {
    const cache = join(tempDir(), 'packed')
    const plain = await scoreWith(dir)
    const first = await scoreWith(dir, cache)
    expect(first.prepacked).toMatch(/^written to .*packed\/[0-9a-f]{32}$/)
    const second = await scoreWith(dir, cache)
    expect(second.prepacked).toBe(first.prepacked!.replace('written to', 'loaded from'))
    expect(second.manifest.prepacked).toBe(second.prepacked)
    expect(first.vectors).toEqual(plain.vectors)
    expect(second.vectors).toEqual(plain.vectors)
    expect(plain.prepacked).toBeUndefined()
    // Only the marker and the entry: no lock, no partial folder left.
    expect(readdirSync(cache).sort()).toEqual(['CACHEDIR.TAG', ...entriesOf(cache)].sort())
    expect(entriesOf(cache)).toHaveLength(1)
  })

  it('a load skips the letter-head rewrite (its readout comes with the entry); another tokenizer is another entry', async () => {
    const model = makeModel({ tokenizer: 'bpe' }, 'own')
    const cache = join(tempDir(), 'packed')
    const first = await scoreWith(model, cache)
    const scorer = onnxScorer({ model, prepackCache: cache })
    open.push(scorer)
    const ready = await scorer.ready()
    expect(ready.prepacked).toMatch(/^loaded from /)
    expect(ready.readout).toBe(first.manifest.readout)
    // No temporary letter head of this process while the loaded scorer runs.
    expect(readdirSync(tmpdir()).filter((name) => name.startsWith(stem(process.pid)))).toEqual([])
    expect(await scorer(sampleRequests())).toEqual(first.vectors)
    await scorer.close()
    // An edited tokenizer may change the letters' ids: not the stored head.
    const tokenizer = join(model, 'tokenizer.json')
    writeFileSync(tokenizer, readFileSync(tokenizer, 'utf8').replace(/\}\s*$/, ', "sceptic_test": 1}'))
    expect((await scoreWith(model, cache)).prepacked).toMatch(/^written to /)
    expect(entriesOf(cache)).toHaveLength(2)
  })

  it('another model is another entry; only the KEEP used last are kept, and nothing else is removed', async () => {
    const cache = join(tempDir(), 'packed')
    mkdirSync(cache)
    await scoreWith(dir, cache)
    writeFileSync(join(cache, 'notes.txt'), 'mine') // a claimed folder: a user's file in it stays
    const [first] = entriesOf(cache)
    const again = await scoreWith(other, cache)
    expect(again.prepacked).toMatch(/^written to /)
    const second = entriesOf(cache).find((name) => name !== first)
    expect(entriesOf(cache)).toHaveLength(2)
    // The first model again (a load marks its entry used), then a third graph: the entry used longest ago goes.
    await new Promise((r) => setTimeout(r, 20))
    expect((await scoreWith(dir, cache)).prepacked).toMatch(/^loaded from /)
    const third = await scoreWith(makeModel({ tokenizer: 'bpe', decoder: { hidden: 32, layers: 2, heads: 4, maxPositions: 256, seed: 12 } }, 'third'), cache)
    expect(third.prepacked).toMatch(/^written to /)
    expect(entriesOf(cache)).toHaveLength(KEEP)
    expect(entriesOf(cache)).toContain(first)
    expect(entriesOf(cache)).not.toContain(second)
    expect(existsSync(join(cache, 'notes.txt'))).toBe(true)
  })

  it('a truncated entry is not loaded: it is written again', async () => {
    const cache = join(tempDir(), 'packed')
    await scoreWith(dir, cache)
    const [entry] = entriesOf(cache)
    const data = readdirSync(join(cache, entry!)).find((name) => name.endsWith('_data'))!
    truncateSync(join(cache, entry!, data), Math.floor(statSync(join(cache, entry!, data)).size / 2))
    const after = await scoreWith(dir, cache)
    expect(after.prepacked).toMatch(/^written to /)
    expect((await scoreWith(dir, cache)).prepacked).toMatch(/^loaded from /)
  })

  it('refuses a folder that holds anything else, or a file, and touches neither', async () => {
    const busy = tempDir()
    writeFileSync(join(busy, 'thesis.tex'), 'x')
    expect(() => planPrepack(busy, join(dir, 'model.onnx'), true, 'm')).toThrow(ConfigError)
    expect(() => planPrepack(busy, join(dir, 'model.onnx'), true, 'm')).toThrow(/is not empty and not a prepack cache/)
    expect(readdirSync(busy)).toEqual(['thesis.tex'])
    const file = join(tempDir(), 'file')
    writeFileSync(file, 'x')
    expect(() => planPrepack(file, join(dir, 'model.onnx'), true, 'm')).toThrow(/is not a folder/)
    // Through the scorer: a ConfigError at ready(), the folder as it was.
    const scorer = onnxScorer({ model: dir, prepackCache: busy })
    open.push(scorer)
    await expect(scorer.ready()).rejects.toThrow(/is not empty and not a prepack cache/)
    expect(readdirSync(busy)).toEqual(['thesis.tex'])
  })

  it('a live writer\'s lock is respected; a dead one\'s is taken over; a failed save leaves no entry', async () => {
    const cache = join(tempDir(), 'packed')
    const graph = join(dir, 'model.onnx')
    const writing = planPrepack(cache, graph, true, 'm')
    expect(writing.kind).toBe('write')
    expect(planPrepack(cache, graph, true, 'm')).toEqual({ kind: 'skip', summary: expect.stringMatching(/^not used: another process is writing /) })
    if (writing.kind !== 'write') return
    expect(writing.commit(false, { summary: 's', readoutFile: undefined })).toMatch(/^not written/)
    expect(readdirSync(cache)).toEqual(['CACHEDIR.TAG'])
    // A lock left by a process that is gone (a child that exited) is taken over.
    const { stdout } = await run(process.execPath, ['-e', 'console.log(process.pid)'])
    const { hostTag } = await import('../../../../src/core/support/process-identity.ts')
    writeFileSync(join(cache, `${prepackKey(graph)}.lock`), `${hostTag()} ${stdout.trim()}\n`)
    const taken = planPrepack(cache, graph, true, 'm')
    expect(taken.kind).toBe('write')
    if (taken.kind === 'write') taken.abandon()
    expect(readdirSync(cache)).toEqual(['CACHEDIR.TAG'])
    expect(planPrepack(cache, graph, false, 'm')).toEqual({ kind: 'skip', summary: expect.stringMatching(/GPU/) })
  })

  it('what dead processes left (another key\'s partial folder and lock) is removed; a live one\'s is kept', async () => {
    const cache = join(tempDir(), 'packed')
    const graph = join(dir, 'model.onnx')
    planPrepack(cache, graph, true, 'm').kind === 'write' || expect.fail('no write plan')
    const { stdout } = await run(process.execPath, ['-e', 'console.log(process.pid)'])
    const { hostTag } = await import('../../../../src/core/support/process-identity.ts')
    const other = 'f'.repeat(32)
    mkdirSync(join(cache, `${other}.partial-${hostTag()}-${stdout.trim()}`))
    writeFileSync(join(cache, `${other}.partial-${hostTag()}-${stdout.trim()}`, 'model.onnx_data'), 'x')
    writeFileSync(join(cache, `${other}.lock`), `${hostTag()} ${stdout.trim()}\n`)
    const live = `${'e'.repeat(32)}.partial-${hostTag()}-${process.pid}`
    mkdirSync(join(cache, live))
    expect(planPrepack(cache, graph, true, 'm').kind).toBe('skip') // our own live lock from the first plan
    const left = readdirSync(cache)
    expect(left).toContain(live)
    expect(left.filter((name) => name.startsWith(other))).toEqual([])
  })

  it('refuses a folder that another cache marked (its CACHEDIR.TAG is not this one)', () => {
    const theirs = tempDir()
    writeFileSync(join(theirs, 'CACHEDIR.TAG'), 'Signature: 8a477f597d28d172789f06886806bc55\n# another tool\n')
    writeFileSync(join(theirs, 'data'), 'x')
    expect(() => planPrepack(theirs, join(dir, 'model.onnx'), true, 'm')).toThrow(/not a prepack cache/)
    expect(readdirSync(theirs).sort()).toEqual(['CACHEDIR.TAG', 'data'])
  })
})

describe('prepackKey', () => {
  it('changes with any byte of a small graph', () => {
    const root = tempDir()
    const graph = join(root, 'model.onnx')
    const bytes = Buffer.alloc(4096, 7)
    writeFileSync(graph, bytes)
    const before = prepackKey(graph)
    for (const at of [0, 1000, 4095]) {
      const changed = Buffer.from(bytes)
      changed[at] = 8
      writeFileSync(graph, changed)
      expect(prepackKey(graph)).not.toBe(before)
    }
    writeFileSync(graph, bytes)
    expect(prepackKey(graph)).toBe(before)
  })

  it('a weight file the graph names, whatever it is called, is in the key', () => {
    const root = tempDir()
    const graph = join(root, 'model.onnx')
    const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }
    const tensor = { name: 'w', dims: [4], dataType: onnx.TensorProto.DataType.FLOAT, dataLocation: onnx.TensorProto.DataLocation.EXTERNAL, externalData: [{ key: 'location', value: 'weights.bin' }, { key: 'length', value: '16' }] }
    writeFileSync(graph, onnx.ModelProto.encode({ irVersion: 8, graph: { name: 'g', initializer: [tensor] } }).finish())
    writeFileSync(join(root, 'weights.bin'), Buffer.alloc(16, 1))
    const before = prepackKey(graph)
    writeFileSync(join(root, 'weights.bin'), Buffer.alloc(16, 2))
    expect(prepackKey(graph)).not.toBe(before)
  })

  it('a large weight file: its bytes are the key, whatever its time says; its hash is remembered by its stat', () => {
    const root = tempDir()
    const graph = join(root, 'model.onnx')
    writeFileSync(graph, 'graph')
    const data = join(root, 'model.onnx_data')
    writeFileSync(data, '')
    truncateSync(data, 65 * 2 ** 20) // sparse, past the size hashed on every run
    const time = new Date('2026-01-01T00:00:00Z')
    utimesSync(data, time, time)
    const memo = join(tempDir(), 'packed')
    mkdirSync(memo)
    const before = prepackKey(graph)
    expect(keyFor({ graphPath: graph, files: [], salt: '' }, memo)).toBe(before)
    expect(readdirSync(memo).filter((name) => name.endsWith('.digest'))).toHaveLength(1)
    utimesSync(data, new Date('2026-01-02T00:00:00Z'), new Date('2026-01-02T00:00:00Z'))
    expect(prepackKey(graph)).toBe(before)
    // A byte changed far from any block a sample would read, the time put back: another key, remembered hash or not.
    const fd = openSync(data, 'r+')
    writeSync(fd, Buffer.of(1), 0, 1, 33 * 2 ** 20 + 12345)
    closeSync(fd)
    utimesSync(data, time, time)
    expect(keyFor({ graphPath: graph, files: [], salt: '' }, memo)).not.toBe(before)
    expect(prepackKey(graph)).not.toBe(before)
    truncateSync(data, 66 * 2 ** 20)
    utimesSync(data, time, time)
    expect(prepackKey(graph)).not.toBe(before)
  })
})
