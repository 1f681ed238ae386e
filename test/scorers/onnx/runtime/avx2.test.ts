// Every CPU kind: the same models scored on this machine and on an AVX2-only CPU (AMD EPYC Rome:
// AVX2, no AVX-512, no VNNI), emulated by qemu-user, which runs Node and onnxruntime's kernels as
// that CPU would (checked below: ORT's U8S8 product saturates there, as VPMADDUBSW does, but not
// on 7-bit weights, which the int8 format writes and ORT keeps on its U8S8 kernels). The
// guarantees of docs/onnx-models.md, "Which CPU", are what is asserted. Needs `qemu-x86_64`
// (Debian's qemu-user): skipped without it, except under CI, where .ci/run installs it.
import { spawnSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { arch } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { beforeAll, describe, expect, it } from 'vitest'
import { quantizeModel } from '../../../../src/scorers/onnx/transform/quantize.ts'
import { EXACT_INTEGER_PRODUCTS } from '../../../../src/scorers/onnx/runtime/integer-precision.ts'
import { ROOT, run } from '../../../helpers/run.ts'
import { cleanupTemp, makeModel, maxAbsDiff, sampleRequests, saturationProbe, tempDir } from '../helpers.ts'

const qemu = spawnSync('sh', ['-c', 'command -v qemu-x86_64'], { encoding: 'utf8' }).stdout.trim()
const available = arch() === 'x64' && qemu !== ''
if (!available && process.env.CI === 'true' && arch() === 'x64') throw new Error('CI runs the AVX2 tests: install qemu-user (apt-get install qemu-user)')

interface Job {
  readonly name: string
  readonly model: string
  readonly batchSize: number
  readonly prefixSharing: 'batched' | 'off'
}

interface Scored {
  /** The probes' products: full int8 weights (127) and 7-bit ones (64). */
  readonly probe: number
  readonly probe7: number
  /** Per model, the element types ORT gives its integer MatMuls' weights after its graph rewrites, under the scorer's session settings. */
  readonly weightTypes: Record<string, string[]>
  readonly scores: Record<string, number[][]>
}

/** Runs `jobs` in one Node process (under qemu when `emulated`): the probes' products, the weight types ORT runs for `kernels`, and each job's scores. */
async function scoreAll(jobs: readonly Job[], probes: { probe: string; probe7: string }, kernels: Record<string, string>, emulated: boolean): Promise<Scored> {
  const dir = tempDir()
  const input = join(dir, 'jobs.json')
  writeFileSync(input, JSON.stringify({ jobs, probes, kernels, session: EXACT_INTEGER_PRODUCTS, requests: sampleRequests() }))
  const script = join(dir, 'score.mjs')
  writeFileSync(
    script,
    `import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
const { jobs, probes, kernels, session: settings, requests } = JSON.parse(readFileSync(${JSON.stringify(input)}, 'utf8'))
const require = createRequire(${JSON.stringify(join(ROOT, 'package.json'))})
const ort = require('onnxruntime-node')
const { onnx } = require('onnx-proto')
const product = async (path) => {
  const session = await ort.InferenceSession.create(path, { logSeverityLevel: 4 })
  return Number((await session.run({ a: new ort.Tensor('uint8', Uint8Array.of(255, 255), [1, 2]) })).y.data[0])
}
const weightTypes = {}
for (const [name, model] of Object.entries(kernels)) {
  const optimized = ${JSON.stringify(dir)} + '/' + name + '.optimized.onnx'
  await (await ort.InferenceSession.create(model, { logSeverityLevel: 4, optimizedModelFilePath: optimized, extra: { session: settings } })).release()
  const graph = onnx.ModelProto.decode(readFileSync(optimized)).graph
  const types = graph.node.filter((n) => n.opType.startsWith('MatMulInteger')).map((n) => graph.initializer.find((t) => t.name === n.input[1])?.dataType)
  weightTypes[name] = [...new Set(types.map((t) => onnx.TensorProto.DataType[t] ?? 'not constant'))]
}
const { onnxScorer } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist/onnx/index.js')).href)})
const scores = {}
for (const job of jobs) {
  const scorer = onnxScorer({ model: job.model, workers: 1, threadsPerWorker: 1, batchSize: job.batchSize, prefixSharing: job.prefixSharing })
  try { scores[job.name] = await scorer(requests) } finally { await scorer.close() }
}
console.log(JSON.stringify({ probe: await product(probes.probe), probe7: await product(probes.probe7), weightTypes, scores }))
`,
  )
  const [command, args] = emulated ? [qemu, ['-cpu', 'EPYC-Rome', process.execPath, script]] : [process.execPath, [script]]
  const { code, stdout, stderr } = await run(command, args, { timeoutMs: 400_000 })
  if (code !== 0) throw new Error(`${emulated ? 'qemu' : 'native'} scoring exited ${code}: ${stderr.split('\n').filter((l) => !l.includes("TCG doesn't support")).join('\n')}`)
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as Scored
}

describe.skipIf(!available)('an AVX2-only CPU (qemu -cpu EPYC-Rome) against this machine', () => {
  let avx2: Scored
  let native: Scored
  beforeAll(async () => {
    const dir = makeModel({ tokenizer: 'bpe', decoder: { hidden: 64, layers: 2, heads: 4 }, externalDataMinBytes: 4096 })
    const models = { fp32: dir, int8: join(tempDir(), 'int8'), q8: join(tempDir(), 'q8'), q4: join(tempDir(), 'q4'), q4level0: join(tempDir(), 'q4level0') }
    await quantizeModel(dir, models.int8, { format: 'int8' })
    await quantizeModel(dir, models.q8, { bits: 8 })
    await quantizeModel(dir, models.q4, { bits: 4 })
    await quantizeModel(dir, models.q4level0, { bits: 4, accuracyLevel: 0 })
    const jobs: Job[] = Object.entries(models).flatMap(([name, model]) => [
      { name: `${name} batch 1`, model, batchSize: 1, prefixSharing: 'off' as const },
      { name: `${name} batch 8`, model, batchSize: 8, prefixSharing: 'batched' as const },
    ])
    const probes = { probe: saturationProbe(), probe7: saturationProbe(64) }
    const kernels = { int8: join(models.int8, 'model.onnx'), 'full int8 probe': probes.probe }
    ;[avx2, native] = await Promise.all([scoreAll(jobs, probes, kernels, true), scoreAll(jobs, probes, kernels, false)])
    return cleanupTemp
  }, 600_000)

  it('the emulated CPU is one without VNNI: ORT U8S8 products saturate there, but not on 7-bit weights', () => {
    expect(avx2.probe).toBe(32767)
    if (native.probe !== 32767) expect(native.probe).toBe(255 * 127 * 2)
    for (const run of [avx2, native]) expect(run.probe7).toBe(255 * 64 * 2)
  })

  it("the int8 format runs ORT's U8S8 kernels on both CPUs under the scorer's session settings; full int8 weights turn U8U8 without VNNI", () => {
    // session.x64quantprecision rewrites int8 weights outside [-64, 64] to uint8 (the slower U8U8 kernels) where ORT's
    // U8S8 and U8U8 dispatches differ: on the AVX2 CPU, and on some VNNI ones too, so the probe is asserted on AVX2 only.
    expect(avx2.weightTypes).toEqual({ int8: ['INT8'], 'full int8 probe': ['UINT8'] })
    expect(native.weightTypes.int8).toEqual(['INT8'])
  })

  it('fp32, int8 (7-bit U8S8) and blocks at accuracy level 0 score alike on both CPUs, within fp32 rounding (1e-5)', () => {
    for (const name of ['fp32', 'int8', 'q4level0'])
      for (const batch of ['batch 1', 'batch 8']) expect(maxAbsDiff(avx2.scores[`${name} ${batch}`]!, native.scores[`${name} ${batch}`]!), `${name} ${batch}`).toBeLessThan(1e-5)
  })

  it('batch size and prefix sharing move no score beyond fp32 rounding on either CPU, but 4-bit at accuracy level 4 on AVX2', () => {
    for (const [cpu, run] of [['AVX2', avx2], ['this machine', native]] as const)
      for (const name of ['fp32', 'int8', 'q8', 'q4level0']) expect(maxAbsDiff(run.scores[`${name} batch 1`]!, run.scores[`${name} batch 8`]!), `${name} on ${cpu}`).toBeLessThan(1e-5)
    if (native.probe !== 32767) expect(maxAbsDiff(native.scores['q4 batch 1']!, native.scores['q4 batch 8']!)).toBeLessThan(1e-5)
  })

  it('blocks at accuracy level 4 (int8 activations): the weaker bound docs/onnx-models.md states, 0.01, between batch sizes on AVX2 and between CPU kinds', () => {
    const figures: string[] = []
    const within = (name: string, a: readonly number[][], b: readonly number[][]) => {
      const moved = maxAbsDiff(a, b)
      figures.push(`${name} ${moved.toExponential(1)}`)
      expect(moved, name).toBeLessThan(0.01)
    }
    within('q4 AVX2 batch 1 vs 8', avx2.scores['q4 batch 1']!, avx2.scores['q4 batch 8']!)
    for (const name of ['q4', 'q8']) for (const batch of ['batch 1', 'batch 8']) within(`${name} ${batch} AVX2 vs native`, avx2.scores[`${name} ${batch}`]!, native.scores[`${name} ${batch}`]!)
    console.log(`accuracy level 4, max |Δp|: ${figures.join('; ')}`)
  })
})
