// optimize-model: the rewritten graph (last position, letter rows only) gives the same
// letter probabilities as the original, inline or with external data; unrecognisable
// graphs are refused with a ConfigError naming the file.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../../src/core/support/errors.ts' // optimizeModel is imported from source here
import { optimizeModel } from '../../../../src/scorers/onnx/transform/optimize.ts'
import { READOUT_FILE } from '../../../../src/scorers/onnx/readout/readout-file.ts'
import type { ModelDirOptions } from '../../../../scripts/onnx-fixture/index.ts'
import type { OnnxScorer } from '../../../../dist/onnx/index.js'
import { makeModel, maxAbsDiff, sampleRequests, tempDir, scorerFactory } from '../helpers.ts'

const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }
const run = promisify(execFile)
const root = join(import.meta.dirname, '../../../..')
const scorer = scorerFactory()

const modelFile = (dir: string, nested = false) => join(dir, nested ? 'onnx' : '', 'model.onnx')

/** A tied head, as GPT-2 exports have it: logits = MatMul(hidden, Transpose(wte)), wte also feeding the embedding Gather. */
function tieHead(dir: string): void {
  const path = modelFile(dir)
  const model = onnx.ModelProto.decode(readFileSync(path))
  const graph = model.graph!
  const head = graph.node!.find((n) => n.opType === 'MatMul' && n.input![1] === 'lm_head')!
  graph.node!.splice(graph.node!.indexOf(head), 0, onnx.NodeProto.create({ opType: 'Transpose', input: ['wte'], output: ['wte_t'], name: 'tied_transpose', attribute: [{ name: 'perm', type: onnx.AttributeProto.AttributeType.INTS, ints: [1, 0] }] }))
  head.input = [head.input![0]!, 'wte_t']
  graph.initializer = graph.initializer!.filter((t) => t.name !== 'lm_head')
  writeFileSync(path, onnx.ModelProto.encode(model).finish())
}

/** logits = Cast(head, to float32), as exports that upcast half-precision logits have it. */
function castLogits(dir: string): void {
  const path = modelFile(dir)
  const model = onnx.ModelProto.decode(readFileSync(path))
  const head = model.graph!.node!.find((n) => n.output!.includes('logits'))!
  head.output = ['pre_logits']
  model.graph!.node!.push(onnx.NodeProto.create({ opType: 'Cast', input: ['pre_logits'], output: ['logits'], name: 'upcast', attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: 1 }] }))
  writeFileSync(path, onnx.ModelProto.encode(model).finish())
}

const variants: [string, ModelDirOptions, ((dir: string) => void)?][] = [
  ['vocab 4096, position_ids', { decoder: { vocab: 4096, seed: 21 } }],
  ['logit bias (LM head MatMul + Add)', { decoder: { vocab: 1024, seed: 22, logitBias: { 260: 0.5, 261: -0.25 } } }],
  ['GQA without position_ids', { decoder: { hidden: 64, heads: 8, kvHeads: 2, positionIds: false, vocab: 1024, seed: 23 } }],
  ['tied head: MatMul(hidden, Transpose(wte))', { decoder: { vocab: 1024, seed: 25 } }, tieHead],
  ['logits behind a Cast', { decoder: { vocab: 1024, seed: 26 } }, castLogits],
  ['external data (model.onnx_data), onnx/ layout', { decoder: { vocab: 2048, seed: 24 }, externalDataMinBytes: 1024, nested: true }],
]

describe.each(variants)('optimize-model: %s', (_, options, transform) => {
  const dir = makeModel({ tokenizer: 'bpe', ...options })
  transform?.(dir)
  // The reference both tests compare with: the full logits, no prefix sharing; started and run once.
  let full: OnnxScorer | undefined
  let fullVectors: ReturnType<OnnxScorer> | undefined
  const reference = () => (full ??= scorer({ model: dir, workers: 1, prefixSharing: 'off', readout: 'full' }))
  const original = () => (fullVectors ??= reference()(sampleRequests()))

  it('gives the original letter probabilities (within 1e-5), with and without prefix sharing', async () => {
    const out = join(tempDir(), 'optimized')
    const result = await optimizeModel(dir, out)
    // Letters A–T after "Answer:" (" A") and after a newline ("A"): 40 distinct tokens in this vocabulary.
    expect(result.letters).toBe(40)
    expect(result.vocab).toBe(options.decoder!.vocab)
    const requests = sampleRequests()
    const optimized = scorer({ model: out, workers: 1, prefixSharing: 'off' })
    const info = await optimized.ready()
    expect(info.plan.vocab).toBe(40) // the head computes 40 columns, not the vocabulary
    expect(info.readout).toBe('last position, letter rows (sceptic optimize-model)')
    expect(optimized.settings.optimizedReadout).toBe(true)
    expect(optimized.description).toContain('optimized readout')
    expect(maxAbsDiff(await optimized(requests), await original())).toBeLessThan(1e-5)
    expect(maxAbsDiff(await scorer({ model: out, workers: 2 })(requests), await original())).toBeLessThan(1e-5)
    expect(JSON.parse(readFileSync(join(out, READOUT_FILE), 'utf8')).letterIds).toHaveLength(40)
    expect(existsSync(join(out, 'tokenizer.json'))).toBe(true)
    if (options.externalDataMinBytes !== undefined) {
      // The graph stays small; the weights are the same file, linked (or copied), not rewritten.
      expect(result.externalFiles).toEqual(['model.onnx_data'])
      expect(statSync(join(out, 'model.onnx')).size).toBeLessThan(64 * 1024)
      expect(statSync(join(out, 'model.onnx_data')).size).toBe(statSync(join(dir, 'onnx', 'model.onnx_data')).size)
    } else if (transform === tieHead) {
      // Tied: wte still feeds the embedding, so it stays; only the [hidden, 40] cut is added.
      expect(statSync(join(out, 'model.onnx')).size).toBeGreaterThan(statSync(modelFile(dir)).size)
    } else {
      // The untied head weight [hidden, vocab] is gone, replaced by [hidden, 40].
      expect(statSync(join(out, 'model.onnx')).size).toBeLessThan(statSync(modelFile(dir)).size - 32 * options.decoder!.vocab! * 4 * 0.9)
    }
  })

  it('by default the scorer makes the same letter head at startup: the full readout\'s probabilities (within 1e-5), its temporary copy removed at close()', async () => {
    const requests = sampleRequests()
    expect((await reference().ready()).readout).toBe("full logits: readout: 'full' was asked for")
    const ownTmp = tempDir('sceptic-own-tmp-')
    const savedTmp = process.env.TMPDIR
    process.env.TMPDIR = ownTmp
    const auto = scorer({ model: dir, workers: 2 })
    expect(auto.settings.readout).toBe('auto')
    expect(auto.manifestEntries()).toEqual({ readout: 'not started' })
    const info = await auto.ready().finally(() => (savedTmp === undefined ? delete process.env.TMPDIR : (process.env.TMPDIR = savedTmp)))
    expect(info.readout).toBe('last position, 40 letter rows (made at startup)')
    expect(auto.manifestEntries()).toEqual({ readout: info.readout })
    expect(info.plan.vocab).toBe(40)
    expect(maxAbsDiff(await auto(requests), await original())).toBeLessThan(1e-5)
    // Its copy lives in its own temporary directory (TMPDIR read at startup), so other files' scorers are not counted.
    const copies = () => readdirSync(ownTmp).filter((name) => name.startsWith('sceptic-readout-'))
    expect(copies()).toHaveLength(1)
    await auto.close()
    expect(copies()).toHaveLength(0)
  })
})

/** Rewrite a fixture model's graph so `logits` = op(head output): a shape optimize-model must not guess at. */
function wrapLogits(dir: string, opType: string): void {
  const path = modelFile(dir)
  const model = onnx.ModelProto.decode(readFileSync(path))
  const head = model.graph!.node!.find((n) => n.output!.includes('logits'))!
  head.output = ['pre_logits']
  model.graph!.node!.push({ opType, input: ['pre_logits'], output: ['logits'], name: 'softcap' })
  writeFileSync(path, onnx.ModelProto.encode(model).finish())
}

describe('optimize-model refuses what it cannot rewrite, naming the path', () => {
  it('a graph whose logits do not come straight from the head MatMul; the scorer reads its full logits and says why', async () => {
    const dir = makeModel({ tokenizer: 'bpe' })
    wrapLogits(dir, 'Tanh')
    const attempt = optimizeModel(dir, join(tempDir(), 'out'))
    await expect(attempt).rejects.toThrow(ConfigError)
    await expect(optimizeModel(dir, join(tempDir(), 'out'))).rejects.toThrow(`${modelFile(dir)}: optimize-model cannot rewrite this graph: "logits" is produced by a Tanh node`)
    const auto = scorer({ model: dir, workers: 1 })
    const info = await auto.ready()
    expect(info.readout).toMatch(/^full logits: the head is not recognisable: "logits" is produced by a Tanh node/)
    expect(info.plan.vocab).toBeGreaterThan(40) // the vocabulary
    const requests = sampleRequests()
    expect(maxAbsDiff(await auto(requests), await scorer({ model: dir, workers: 1, readout: 'full' })(requests))).toBe(0)
  })

  it('an already optimized model, the same directory in and out, a missing model', async () => {
    const dir = makeModel({ tokenizer: 'bpe' })
    const out = join(tempDir(), 'out')
    await optimizeModel(dir, out)
    await expect(optimizeModel(out, join(tempDir(), 'again'))).rejects.toThrow(`${modelFile(out)}: optimize-model cannot rewrite this graph: it is already optimized`)
    await expect(optimizeModel(dir, dir)).rejects.toThrow(ConfigError)
    await expect(optimizeModel(join(dir, 'nope'), out)).rejects.toThrow(`${join(dir, 'nope')}: model directory not found`)
  })

  it('the CLI: `sceptic optimize-model IN --model-out OUT` writes the model; a refusal is one line and a non-zero exit', async () => {
    const dir = makeModel({ tokenizer: 'bpe' })
    const out = join(tempDir(), 'cli-out')
    const ok = await run(process.execPath, [join(root, 'dist/cli/main.js'), 'optimize-model', dir, '--model-out', out])
    expect(ok.stdout).toMatch(/^wrote .*model\.onnx: logits \[batch, 1, 40\] \(the option letters' tokens after the plain prompt and after a newline\) instead of \[batch, seq, \d+\]/)
    expect(existsSync(join(out, READOUT_FILE))).toBe(true)
    const bad = makeModel({ tokenizer: 'bpe' })
    wrapLogits(bad, 'Tanh')
    const failed = await run(process.execPath, [join(root, 'dist/cli/main.js'), 'optimize-model', bad, '--model-out', join(tempDir(), 'x')]).catch((error: { code: number; stderr: string }) => error)
    expect((failed as { code: number }).code).not.toBe(0)
    expect((failed as { stderr: string }).stderr.trim().split('\n')).toHaveLength(1)
    expect((failed as { stderr: string }).stderr).toContain(`${modelFile(bad)}: optimize-model cannot rewrite this graph`)
  })
})
