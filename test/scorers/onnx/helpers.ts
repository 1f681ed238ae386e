// Shared test helpers: fixture model directories in a temp folder, and requests.
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import type { Criterion } from '../../../src/core/decisions/schema.ts'
import type { ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { afterAll } from 'vitest'
import { onnxScorer, type OnnxScorer } from '../../../dist/onnx/index.js'
import { writeModelDir, type ModelDirOptions } from '../../../scripts/onnx-fixture/index.ts'
import { TempDirs } from '../../helpers/temp.ts'

const roots = new TempDirs('sceptic-onnx-')

/** A fresh temp directory, removed by {@link cleanupTemp}. */
export const tempDir = roots.make
export const cleanupTemp = roots.removeAll

/** Write a fixture model directory (tiny by default) and return its path. */
export function makeModel(options: ModelDirOptions = {}, name = 'model'): string {
  return writeModelDir(join(tempDir(), name), {
    ...options,
    decoder: { hidden: 32, layers: 2, heads: 4, maxPositions: 256, ...options.decoder },
  })
}

const STATES = [
  'Customer says the invoice was charged twice.',
  'The app crashes when the user opens the settings page after the latest update, every single time, on two different phones.',
  'Please cancel my subscription.',
  'The shipment is stuck at customs and the tracking page has not changed for a week; the customer wants a refund or a replacement.',
  'A user cannot log in.',
]

export const QUEUE: Criterion = {
  key: 'queue',
  question: 'Which queue should handle this ticket?',
  options: [
    { id: 'billing', text: 'Billing' },
    { id: 'tech', text: 'Technical support' },
    { id: 'account', text: 'Account access' },
    { id: 'sales', text: 'Sales' },
  ],
}

export const SENTIMENT: Criterion = {
  key: 'sentiment',
  options: [
    { id: 'pos', text: 'positive' },
    { id: 'neg', text: 'negative' },
  ],
}

/** Requests of varied lengths and option counts, all rotations of QUEUE plus SENTIMENT. */
export function sampleRequests(): ScoreRequest[] {
  const requests: ScoreRequest[] = []
  for (const state of STATES) {
    for (let k = 0; k < QUEUE.options.length; k++) {
      const options = QUEUE.options.map((_, i) => QUEUE.options[(i + k) % QUEUE.options.length]!)
      const criterion = { ...QUEUE, options }
      requests.push({ state, criterion, prompt: buildPrompt(state, criterion) })
    }
    requests.push({ state, criterion: SENTIMENT, prompt: buildPrompt(state, SENTIMENT) })
  }
  return requests
}

export function request(state: string, criterion: Criterion = QUEUE): ScoreRequest {
  return { state, criterion, prompt: buildPrompt(state, criterion) }
}

/** The vectors of scorer outcomes; a `too_long` (or any) failure among them fails the test. */
export function vectors(outcomes: readonly (readonly number[] | object)[]): number[][] {
  return outcomes.map((outcome, i) => {
    if (!Array.isArray(outcome)) throw new Error(`request #${i} was not scored: ${JSON.stringify(outcome)}`)
    return outcome as number[]
  })
}

export function maxAbsDiff(a: readonly (readonly number[] | object)[], b: readonly (readonly number[] | object)[]): number {
  const [x, y] = [vectors(a), vectors(b)]
  let max = 0
  x.forEach((row, i) => row.forEach((v, j) => (max = Math.max(max, Math.abs(v - y[i]![j]!)))))
  return max
}

/**
 * An `onnxScorer` factory for one test file: every scorer it makes is closed (its
 * workers drained) and the file's temp directories removed after the file's tests.
 */
export function scorerFactory(): (options: Parameters<typeof onnxScorer>[0]) => OnnxScorer {
  const open: OnnxScorer[] = []
  afterAll(async () => {
    await Promise.all(open.map((s) => s.close()))
    cleanupTemp()
  })
  return (options) => {
    const s = onnxScorer(options)
    open.push(s)
    return s
  }
}

/**
 * A model file computing a MatMulInteger of uint8 `a` [1, 2] by int8 [[weight], [weight]]
 * (default 127): fed [255, 255], 255·127·2 = 64770 exact, 32767 where ORT sums int8 pairs in
 * saturating int16 (VPMADDUBSW: x86-64 CPUs without VNNI); 7-bit weights (64: 32640) fit.
 * Its path, in a temp directory.
 */
export function saturationProbe(weight = 127): string {
  const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }
  const T = onnx.TensorProto.DataType
  const info = (name: string, type: number, dims: number[]) => ({ name, type: { tensorType: { elemType: type, shape: { dim: dims.map((dimValue) => ({ dimValue })) } } } })
  const model = onnx.ModelProto.create({
    irVersion: 8,
    opsetImport: [{ domain: '', version: 17 }],
    graph: {
      name: 'probe',
      node: [{ opType: 'MatMulInteger', input: ['a', 'b'], output: ['y'] }],
      initializer: [{ name: 'b', dims: [2, 1], dataType: T.INT8, rawData: Uint8Array.of(weight, weight) }],
      input: [info('a', T.UINT8, [1, 2])],
      output: [info('y', T.INT32, [1, 1])],
    },
  })
  const path = join(tempDir(), 'probe.onnx')
  writeFileSync(path, onnx.ModelProto.encode(model).finish())
  return path
}

/**
 * Whether this process's CPU, as ORT's kernels see it (an emulated one too), has VNNI-exact
 * int8 products; `false` on x86-64 CPUs without VNNI, whose 4-bit kernels at accuracy level 4
 * also depend on the batch (docs/onnx-models.md, "Which CPU").
 */
export async function exactInt8Products(): Promise<boolean> {
  const ort = await import('onnxruntime-node')
  const session = await ort.InferenceSession.create(saturationProbe(), { logSeverityLevel: 4 })
  try {
    const out = await session.run({ a: new ort.Tensor('uint8', Uint8Array.of(255, 255), [1, 2]) })
    return Number(out.y!.data[0]) !== 32767
  } finally {
    await session.release()
  }
}
