/**
 * Calibration statistics for `quantize-model --calibration` (docs/onnx.md, "Calibration"):
 * the largest |x| of every input channel of every quantizable MatMul, over the calibration
 * prompts run through the fp32 graph (a probe copy of it whose extra outputs are those
 * maxima), and the SmoothQuant factors made from them. An outlier channel (a few channels
 * far larger than the rest, as in trained LLMs) sets the per-row scale of int8 activations
 * and leaves the other channels a handful of levels; dividing each channel by its factor and
 * multiplying the weight's row by it moves that range into the weights, exactly in float.
 */
import type * as Ort from 'onnxruntime-node'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ConfigError, firstLineOf } from '../../../core/support/errors.ts'
import { planInputs } from '../model/model-io.ts'
import { readConfigShape } from '../model/model-config.ts'
import { loadTokenizer } from '../prompt/tokenizer.ts'
import { toNumber } from '../model/graph-io.ts'
import { readRewriteSource, writeRewritten, type RewriteSource } from './rewrite-source.ts'
import { keepOrtTelemetryOff } from '../runtime/ort-telemetry.ts'

/** SmoothQuant's migration strength: the share of an input channel's range moved into the weight. */
export const SMOOTHING_ALPHA = 0.5

/** Per quantizable weight (name): its input's largest |x| per channel, and the weight's largest |w| per row. */
export interface ChannelRanges {
  readonly activations: Float32Array
  readonly weights: Float32Array
}

/** The probe graph: the fp32 graph plus, per distinct MatMul input, an output `[K]` of its largest |x| per channel. */
function addProbeOutputs(source: RewriteSource): Map<string, string> {
  const { onnx, graph, nodes, initializers, opset } = source
  const T = onnx.TensorProto.DataType
  const outputOf = new Map<string, string>()
  const axes = 'sceptic_probe_axes0'
  initializers.push({ name: axes, dims: [1], dataType: T.INT64, rawData: new Uint8Array(BigInt64Array.of(0n).buffer) })
  for (const [node, weight] of source.weights) {
    const input = node.input![0]!
    if (outputOf.has(input)) continue
    const K = toNumber(weight.dims![0] as number)
    const name = `sceptic_probe_${outputOf.size}`
    const rows = `${name}_rows`
    initializers.push({ name: rows, dims: [2], dataType: T.INT64, rawData: new Uint8Array(BigInt64Array.of(-1n, BigInt(K)).buffer) })
    const keep0 = { name: 'keepdims', type: onnx.AttributeProto.AttributeType.INT, i: 0 }
    nodes.push({ opType: 'Reshape', input: [input, rows], output: [`${name}_x2`], name: `${name}_x2` })
    nodes.push({ opType: 'Abs', input: [`${name}_x2`], output: [`${name}_abs`], name: `${name}_abs` })
    nodes.push(
      opset >= 18
        ? { opType: 'ReduceMax', input: [`${name}_abs`, axes], output: [name], name, attribute: [keep0] }
        : { opType: 'ReduceMax', input: [`${name}_abs`], output: [name], name, attribute: [keep0, { name: 'axes', type: onnx.AttributeProto.AttributeType.INTS, ints: [0] }] },
    )
    graph.output!.push({ name, type: { tensorType: { elemType: T.FLOAT, shape: { dim: [{ dimValue: K }] } } } } as OnnxNamespace.IValueInfoProto)
    outputOf.set(input, name)
  }
  return outputOf
}

/** The largest |w| of each row of a `[K, N]` float weight. */
function rowMaxima(weight: OnnxNamespace.ITensorProto): Float32Array {
  const [K, N] = weight.dims!.map((d) => toNumber(d as number)) as [number, number]
  const raw = weight.rawData!
  // A copy when the bytes are not 4-aligned (inline tensors sit anywhere in the decoded file; Buffer#slice would not copy).
  const values = raw.byteOffset % 4 === 0 ? new Float32Array(raw.buffer, raw.byteOffset, K * N) : new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + 4 * K * N))
  const out = new Float32Array(K)
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) out[k] = Math.max(out[k]!, Math.abs(values[k * N + n]!))
  return out
}

/** Write the probe graph under `work`; the ranges it will fill (activations) and the weights' row maxima. Returns before the weights can be let go. */
function writeProbe(inDir: string, work: string): { ranges: Map<string, ChannelRanges>; maxima: Map<string, Float32Array>; dir: string; modelPath: string } {
  const source = readRewriteSource(inDir, work)
  const outputOf = addProbeOutputs(source)
  const ranges = new Map<string, ChannelRanges>()
  const maxima = new Map<string, Float32Array>()
  for (const [node, weight] of source.weights) {
    const output = outputOf.get(node.input![0]!)!
    if (!maxima.has(output)) maxima.set(output, new Float32Array(toNumber(weight.dims![0] as number)))
    ranges.set(weight.name!, { activations: maxima.get(output)!, weights: rowMaxima(weight) })
  }
  writeRewritten(source.onnx, source.model, source.initializers, work, source.files)
  return { ranges, maxima, dir: source.files.dir, modelPath: source.files.modelPath }
}

/**
 * Run `prompts` (plain text, one at a time) through a probe copy of `inDir`'s fp32 graph
 * written under `work`, and return the channel ranges of every quantizable weight.
 */
export async function channelRanges(inDir: string, work: string, prompts: readonly string[]): Promise<Map<string, ChannelRanges>> {
  const { ranges, maxima, dir, modelPath } = writeProbe(inDir, work)
  let ort: typeof Ort
  try {
    keepOrtTelemetryOff()
    ort = (await import('onnxruntime-node')) as typeof Ort
  } catch {
    throw new ConfigError('quantize-model --calibration needs onnxruntime-node (npm install onnxruntime-node)')
  }
  const path = `${work}/model.onnx`
  const session = await ort.InferenceSession.create(path, { logSeverityLevel: 4, interOpNumThreads: 1, executionMode: 'sequential' })
  try {
    const plan = planInputs(session.inputMetadata as never, session.outputMetadata as never, path, readConfigShape(dir))
    const tokenizer = await loadTokenizer(dir)
    const fetches = [...maxima.keys()]
    for (const prompt of prompts) {
      const ids = tokenizer.encode(prompt)
      const dims = [1, ids.length]
      const feeds: Record<string, Ort.Tensor> = { input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), dims) }
      if (plan.attentionMask) feeds.attention_mask = new ort.Tensor('int64', new BigInt64Array(ids.length).fill(1n), dims)
      if (plan.positionIds) feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from(ids, (_, i) => BigInt(i)), dims)
      for (const past of plan.past) feeds[past.name] = new ort.Tensor(past.type, past.type === 'float32' ? new Float32Array(0) : new Uint16Array(0), [1, past.kvHeads, 0, past.headDim])
      if (plan.useCacheBranch) feeds[plan.useCacheBranch] = new ort.Tensor('bool', [false], [1])
      let out: Ort.InferenceSession.ReturnType
      try {
        out = await session.run(feeds, fetches)
      } catch (error) {
        throw new ConfigError(`${modelPath}: the calibration probe failed: ${firstLineOf(error)}`)
      }
      for (const name of fetches) {
        const acc = maxima.get(name)!
        const got = out[name]!.data as Float32Array
        for (let k = 0; k < acc.length; k++) acc[k] = Math.max(acc[k]!, got[k]!)
      }
    }
  } finally {
    await session.release()
  }
  return ranges
}

/**
 * SmoothQuant factors of one weight: `s_k = max|x_k|^α / max|w_k|^(1−α)`, 1 where either is 0;
 * then divided by their geometric mean, so the weights keep their overall scale.
 */
export function smoothingFactors(range: ChannelRanges, alpha: number = SMOOTHING_ALPHA): Float32Array {
  const K = range.activations.length
  const s = new Float32Array(K)
  let logSum = 0
  for (let k = 0; k < K; k++) {
    const x = range.activations[k]!
    const w = range.weights[k]!
    s[k] = x > 0 && w > 0 ? Math.min(1e4, Math.max(1e-4, x ** alpha / w ** (1 - alpha))) : 1
    logSum += Math.log(s[k]!)
  }
  const mean = Math.exp(logSum / K)
  for (let k = 0; k < K; k++) s[k] = s[k]! / mean
  return s
}
