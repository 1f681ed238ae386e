// `quantize-model --calibration`: the greedy that keeps float what moves decisions, its
// agreement measure, and the CLI end to end on a small generated model: agreement printed,
// refusal below the target (nothing written), `--force`, and the metadata in a run's manifest.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DecisionRecord } from '../../../../src/core/result/record.ts'
import { createRequire } from 'node:module'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { agreement, blocksOf, calibratedQuantize, searchKeepFloat, type Trial } from '../../../../src/scorers/onnx/transform/calibrate.ts'
import { channelRanges, smoothingFactors } from '../../../../src/scorers/onnx/transform/activation-stats.ts'
import { quantizeModel } from '../../../../src/scorers/onnx/transform/quantize.ts'
import { cpuKind } from '../../../../src/core/support/cpu-kind.ts'
import { loadDecisions } from '../../../../src/core/decisions/load.ts'
import { evaluateWithScorer } from '../../../../src/core/evaluate/index.ts'
import { onnxScorer } from '../../../../dist/onnx/index.js'
import { sceptic } from '../../../helpers/run.ts'
import { cleanupTemp, makeModel, tempDir } from '../helpers.ts'

afterAll(() => cleanupTemp())
const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }

/** `count` 4-option ticket decisions, one JSON line each. */
function calibrationLines(count: number): string {
  const texts = ['Billing', 'Technical support', 'Account and login', 'Shipping']
  return (
    Array.from({ length: count }, (_, i) =>
      JSON.stringify({ id: `d${i}`, state: `Ticket ${i}: the customer writes about ${texts[i % 4]} and ${texts[(i * 3 + 1) % 4]} again.`, criterion: { key: 'queue', question: 'Which queue?', options: texts.map((text, j) => ({ id: `o${j}`, text })) }, answer_id: `o${i % 4}` }),
    ).join('\n') + '\n'
  )
}

const record = (prediction: string, probabilities: Record<string, number>, picks: string[]): DecisionRecord =>
  ({ id: 'd', criterion: 'c', gold: 'a', prediction, probabilities, picks, letters: picks.map(() => 'A') }) as DecisionRecord

describe('agreement with fp32', () => {
  it('counts only clear decisions (margin ≥ 0.05), and their per-ordering picks', () => {
    const fp32 = [record('a', { a: 0.6, b: 0.4 }, ['a', 'a']), record('a', { a: 0.52, b: 0.48 }, ['a', 'b']), record('b', { a: 0.2, b: 0.8 }, ['b', 'b'])]
    const other = [record('a', { a: 0.55, b: 0.45 }, ['a', 'b']), record('b', { a: 0.4, b: 0.6 }, ['b', 'b']), record('a', { a: 0.7, b: 0.3 }, ['a', 'b'])]
    const a = agreement(fp32, other)
    expect(a.clear).toBe(2)
    expect(a.decisions).toBe(0.5)
    expect(a.picks).toBe(2 / 4)
    expect(a.moved).toBeCloseTo(0.05 + 0.05 + 0.5 + 0.5, 12)
  })
})

describe('blocks of quantizable weights', () => {
  it('groups consecutive weights by the first number in their names; a weight without one is its own block', () => {
    expect(blocksOf(['l0.wqkv', 'l0.wo', 'l1.wqkv', 'l1.w2', 'proj', 'l10.a', 'l10.b', 'l1.c'])).toEqual([['l0.wqkv', 'l0.wo'], ['l1.wqkv', 'l1.w2'], ['proj'], ['l10.a', 'l10.b'], ['l1.c']])
    expect(blocksOf(['model.layers.3.self_attn.q_proj.weight', 'model.layers.3.mlp.down_proj.weight'])).toHaveLength(1)
  })
})

describe('the search over blocks in depth order', () => {
  // A fake model: each quantized block among the first `bad` loses 10 points of agreement.
  const fake = (bad: number, log: number[] = []) => async (keep: ReadonlySet<string>): Promise<Trial> => {
    const floatBlocks = new Set([...keep].map((u) => Number(/\d+/.exec(u)![0])))
    log.push(floatBlocks.size)
    const hurt = Array.from({ length: bad }, (_, b) => b).filter((b) => !floatBlocks.has(b)).length
    return { keptFloat: [...keep], decisions: 1 - 0.1 * hurt, picks: 1 - 0.1 * hurt, moved: hurt, seconds: 1 }
  }
  const blocks = Array.from({ length: 24 }, (_, b) => [`l${b}.a`, `l${b}.b`])
  it('keeps float the fewest first blocks that hold the target, doubling then bisecting', async () => {
    for (const bad of [0, 1, 2, 3, 5, 6, 13, 23]) {
      const tried: number[] = []
      const { chosen, trials } = await searchKeepFloat(blocks, 0.95, fake(bad, tried))
      expect(chosen!.keptFloat).toEqual(blocks.slice(0, bad).flat())
      // Every candidate scored once, and at most 1 + 2·log2(24) of them.
      expect(new Set(tried).size).toBe(tried.length)
      expect(trials).toBe(tried.length)
      expect(trials).toBeLessThanOrEqual(1 + 2 * Math.ceil(Math.log2(24)))
    }
  })
  it('with a picks target, keeps float as many blocks as the picks need', async () => {
    // Decisions recover once block 0 is float; picks need blocks 0–4.
    const measure = async (keep: ReadonlySet<string>): Promise<Trial> => {
      const float = new Set([...keep].map((u) => Number(/\d+/.exec(u)![0])))
      const picksHurt = [0, 1, 2, 3, 4].filter((b) => !float.has(b)).length
      return { keptFloat: [...keep], decisions: float.has(0) ? 1 : 0.9, picks: 1 - 0.02 * picksHurt, moved: picksHurt, seconds: 1 }
    }
    expect((await searchKeepFloat(blocks, 0.98, measure)).chosen!.keptFloat).toEqual(blocks[0])
    expect((await searchKeepFloat(blocks, 0.98, measure, 47, 0.97)).chosen!.keptFloat).toEqual(blocks.slice(0, 4).flat())
    expect((await searchKeepFloat(blocks, 0.98, measure, 47, 1)).chosen!.keptFloat).toEqual(blocks.slice(0, 5).flat())
  })
  it('finds nothing when every block hurts (one unit stays quantized) or the float budget is too small; best is the closest', async () => {
    const all = await searchKeepFloat(blocks, 1, fake(24))
    expect(all.chosen).toBeUndefined()
    expect(all.best.decisions).toBeCloseTo(0.9, 12) // 23 of 24 blocks fit the budget of 47 units
    const capped = await searchKeepFloat(blocks, 0.95, fake(5), 5)
    expect(capped.chosen).toBeUndefined()
    expect(capped.best.keptFloat).toHaveLength(4) // two blocks of two fit in 5 units
    expect(capped.best.decisions).toBeCloseTo(0.7, 12)
  })
})

describe('SmoothQuant factors', () => {
  it('s_k = sqrt(max|x_k| / max|w_k|), over their geometric mean; 1 where either range is 0', () => {
    const s = smoothingFactors({ activations: Float32Array.of(100, 1, 4, 0), weights: Float32Array.of(0.01, 1, 1, 2) })
    const raw = [100, 1, 2, 1]
    const mean = Math.sqrt(Math.sqrt(100 * 2))
    raw.forEach((r, k) => expect(s[k]).toBeCloseTo(r / mean, 5))
    // After smoothing, each channel's activation range over its weight range is the same (α = 0.5: the outlier is split evenly).
    const balance = (x: number, w: number, k: number) => x / s[k]! / (w * s[k]!)
    expect(balance(100, 0.01, 0)).toBeCloseTo(balance(4, 1, 2), 5)
    expect(balance(1, 1, 1)).toBeCloseTo(balance(4, 1, 2), 5)
  })
})

describe('sceptic quantize-model --calibration (small generated model)', () => {
  const dir = makeModel({ tokenizer: 'bpe' })
  const data = join(tempDir(), 'calibration.jsonl')
  writeFileSync(data, calibrationLines(24))
  const args = (out: string, ...more: string[]) => ['quantize-model', dir, '--model-out', out, '--bits', '4', '--calibration', data, '--debias', 'none', ...more]

  it('keeps float what moves decisions until the target holds, prints the agreement, and every run on it records it', async () => {
    const out = join(tempDir(), 'q4')
    const made = await sceptic(args(out, '--min-agreement', '1'))
    expect(made.stderr).toMatch(/calibration: 0 MatMuls float: decisions \d/)
    expect(made.code).toBe(0)
    expect(made.stdout).toMatch(/agreement with fp32 on \d+ clear of 24 calibration decisions, on x86-64 [\w -]+: decisions 100\.0%, per-ordering picks 100\.0% \(target 100\.0%\); speed-up [\d.]+× fp32 \(CPU time [\d.]+×\)/)
    const info = JSON.parse(readFileSync(join(out, 'quantization.json'), 'utf8'))
    expect(info.agreement).toEqual({ decisions: 1, picks: 1 })
    expect(info.forced).toBe(false)
    expect(info.cpuSpeedup).toBeGreaterThan(0)
    // 4-bit everywhere moved a decision here (the refusal test below), so something stayed float, and it is printed.
    expect(info.keptFloat.length).toBeGreaterThan(0)
    expect(made.stdout).toContain(`kept float32: ${info.keptFloat.join(', ')}`)
    expect(made.stdout).toContain(`calibration: ${info.trials} candidates scored`)
    // 4-bit: no smoothing (an int8 form); the first blocks are what stays float.
    expect(info.smoothed).toBe(false)
    expect(info.keptFloat[0]).toBe('l0.wqkv')
    const json = join(tempDir(), 'run.json')
    const run = await sceptic(['evaluate', data, '--model', out, '--debias', 'none', '--json-out', json])
    expect(run.code).toBe(0)
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest.quantization).toEqual(info)
    // The agreement names the CPU kind it was measured on; a run on another kind says it is not this machine's.
    expect(info.cpu).toEqual(cpuKind())
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest.quantizationElsewhere).toBeUndefined()
    // Another kind than this machine's, whichever this is: the check runs on every CPU.
    const other = cpuKind().kind === 'x86-64 AVX2' ? 'x86-64 AVX-512 VNNI' : 'x86-64 AVX2'
    writeFileSync(join(out, 'quantization.json'), JSON.stringify({ ...info, cpu: { kind: other, model: 'AMD EPYC 7B12' } }))
    const elsewhere = await sceptic(['evaluate', data, '--model', out, '--debias', 'none', '--json-out', json])
    expect(elsewhere.code).toBe(0)
    const note = `agreement with fp32 measured on ${other}, not on this ${cpuKind().kind}: re-check with quantize-model --calibration here`
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest.quantizationElsewhere).toBe(note)
    // The report says it too, beside the model.
    expect(elsewhere.stdout).toContain(`8 bits             ${note}`)
    writeFileSync(join(out, 'quantization.json'), JSON.stringify(info))
    // optimize-model output of it carries the record (the letter head gives the same probabilities).
    const letters = join(tempDir(), 'q4-letters')
    expect((await sceptic(['optimize-model', out, '--model-out', letters])).code).toBe(0)
    expect(JSON.parse(readFileSync(join(letters, 'quantization.json'), 'utf8'))).toEqual(info)
  }, 30_000)

  it('refuses to write a model below the target (one line, exit 2, nothing written); --force writes it, marked', async () => {
    const out = join(tempDir(), 'refused')
    const refused = await sceptic(args(out, '--min-agreement', '1', '--max-float', '0'))
    expect(refused.code).toBe(2)
    expect(refused.stderr.trim().split('\n').at(-1)).toMatch(/^sceptic: ConfigError: quantize-model: no candidate keeps 100\.0% of the \d+ clear calibration decisions \(best [\d.]+% with 0 of \d+ MatMuls float\); nothing written/)
    expect(existsSync(out)).toBe(false)
    const forced = await sceptic(args(out, '--min-agreement', '1', '--max-float', '0', '--force'))
    expect(forced.code).toBe(0)
    expect(forced.stdout).toMatch(/NOT MET: written with --force/)
    expect(JSON.parse(readFileSync(join(out, 'quantization.json'), 'utf8')).forced).toBe(true)
  }, 30_000)

  it('a refusal leaves an existing --model-out folder as it was: candidates live in a folder of its own', async () => {
    const out = join(tempDir(), 'users-folder')
    mkdirSync(out)
    writeFileSync(join(out, 'notes.txt'), 'mine')
    const refused = await sceptic(args(out, '--min-agreement', '1', '--max-float', '0'))
    expect(refused.code).toBe(2)
    expect(readdirSync(out)).toEqual(['notes.txt'])
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine')
  }, 30_000)

  it('refuses calibration options without --calibration', async () => {
    const bad = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'x'), '--force'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/apply only with --calibration/)
    const picks = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'x'), '--min-pick-agreement', '0.97'])
    expect(picks.code).toBe(2)
    expect(picks.stderr).toMatch(/apply only with --calibration/)
  })
})

describe('an activation outlier channel (planted: LayerNorm gains ×1000, the next weight rows ÷1000, the same function in float)', () => {
  const dir = makeModel({ tokenizer: 'bpe' }, 'outlier')
  const CHANNEL = 5
  const FACTOR = 1000
  const path = join(dir, 'model.onnx')
  const proto = onnx.ModelProto.decode(readFileSync(path))
  const tensors = new Map(proto.graph!.initializer!.map((t) => [t.name!, t]))
  const edit = (name: string, change: (values: Float32Array) => void) => {
    const t = tensors.get(name)!
    const values = new Float32Array(t.rawData!.buffer.slice(t.rawData!.byteOffset, t.rawData!.byteOffset + t.rawData!.byteLength))
    change(values)
    t.rawData = new Uint8Array(values.buffer)
  }
  for (const layer of [0, 1])
    for (const [norm, weight] of [['ln1', 'wqkv'], ['ln2', 'w1']] as const) {
      for (const part of ['g', 'b']) edit(`l${layer}.${norm}.${part}`, (v) => (v[CHANNEL]! *= FACTOR))
      const N = Number(tensors.get(`l${layer}.${weight}`)!.dims![1])
      edit(`l${layer}.${weight}`, (v) => {
        for (let n = 0; n < N; n++) v[CHANNEL * N + n]! /= FACTOR
      })
    }
  writeFileSync(path, onnx.ModelProto.encode(proto).finish())
  const data = join(tempDir(), 'outlier-calibration.jsonl')
  writeFileSync(data, calibrationLines(24))

  it('the probe sees the planted channel', async () => {
    const ranges = await channelRanges(dir, join(tempDir(), 'probe'), ['Ticket 1: the customer writes about billing.', 'A user cannot log in.'])
    for (const name of ['l0.wqkv', 'l0.w1', 'l1.wqkv', 'l1.w1']) {
      const x = [...ranges.get(name)!.activations]
      const others = x.filter((_, k) => k !== CHANNEL).sort((a, b) => a - b)
      expect(x[CHANNEL]! / others[others.length >> 1]!).toBeGreaterThan(FACTOR / 10)
    }
    // The weight ranges are read from the weights: row CHANNEL was divided by the factor.
    expect(ranges.get('l0.wqkv')!.weights[CHANNEL]! * 100).toBeLessThan(ranges.get('l0.wqkv')!.weights[0]!)
  }, 20_000)

  it('int8 as is moves decisions; calibration with no MatMul kept float keeps every one, by smoothing', async () => {
    const naive = join(tempDir(), 'naive')
    await quantizeModel(dir, naive, { format: 'int8' })
    const decisions = await loadDecisions(data)
    const run = async (model: string) => (await evaluateWithScorer(decisions, onnxScorer({ model, workers: 1 }), { debias: 'none', statistics: false })).records
    const fp32 = await run(dir)
    const before = agreement(fp32, await run(naive))
    expect(before.clear).toBeGreaterThan(5)
    expect(before.decisions).toBeLessThan(0.9)
    const out = join(tempDir(), 'smoothed')
    const { info } = await calibratedQuantize(dir, out, { format: 'int8', bits: 8, accuracyLevel: 4, calibration: data, debias: 'none', minAgreement: 1, force: false, maxFloat: 0 })
    expect(info.smoothed).toBe(true)
    expect(info.keptFloat).toEqual([])
    expect(info.agreement.decisions).toBe(1)
    expect(agreement(fp32, await run(out)).decisions).toBe(1)
  }, 60_000)
})
