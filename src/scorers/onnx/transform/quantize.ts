/**
 * `sceptic quantize-model IN_DIR --model-out DIR [--format nbits|int8] [--bits 4|8] [--accuracy-level 4|0]`:
 * weight quantization that keeps batching and prefix sharing exact (docs/onnx.md, "sceptic
 * quantize-model"). Every `MatMul` by a constant 2-D float weight becomes
 * `com.microsoft.MatMulNBits` (format `nbits`: 4- or 8-bit symmetric blocks along K;
 * activations int8 per row and block by default, or float32) or `MatMulInteger` (format
 * `int8`, integer-matmul.ts: int8 weights per column, uint8 activations per row), except
 * the LM head (the MatMul that produces `logits`); embeddings (read by `Gather`) stay float32 too. Unlike ORT's dynamic
 * quantization (`DynamicQuantizeLinear`, per-tensor activation scales), nothing depends on
 * what else shares a batch. All weights of the result are written to `model.onnx_data`.
 */
import { join, resolve } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ConfigError } from '../../../core/support/errors.ts'
import { integerMatMulNodes, matMulConstants, quantizeColumns, sharedConstants } from './integer-matmul.ts'
import { packNBits } from './nbits.ts'
import { toNumber } from '../model/graph-io.ts'
import type { QuantizeFormat } from '../model/quantization-info.ts'
import { appendAll } from '../../../core/support/spreadless.ts'
import { readRewriteSource, writeRewritten, type Onnx } from './rewrite-source.ts'

/** Options of {@link quantizeModel}. */
export interface QuantizeOptions {
  /**
   * `nbits` (default): `MatMulNBits` blocks (`bits`, `blockSize`, `accuracyLevel` apply).
   * `int8`: `MatMulInteger`, int8 weights per column and uint8 activations per row, the
   * integer (VNNI/AMX) path; always 8 bits.
   */
  readonly format?: QuantizeFormat
  /** Bits per weight: 4 (default) or 8. */
  readonly bits?: 4 | 8
  /** Weights per block along K (a power of two, at least 16). Default 32. */
  readonly blockSize?: number
  /**
   * MatMulNBits `accuracy_level`. 4 (default): activations quantized to int8 per row and
   * block (row-local, so still batch-invariant), the faster MatMulNBits form on ORT's CPU EP
   * here (about fp32 speed; 0 is about half). 0: float32 activations, the dequantized weights
   * exactly. Format `nbits` only.
   */
  readonly accuracyLevel?: 0 | 4
  /** Weights (initializer names) whose MatMuls stay float32 (what a calibration found moves decisions). */
  readonly keepFloat?: ReadonlySet<string>
  /**
   * Format `int8`: per weight (name), one factor per input channel (`[K]`, from calibration,
   * activation-stats.ts): the input is divided by it before its per-row quantization and the
   * weight's rows multiplied by it (exact in float, SmoothQuant), so an outlier channel no
   * longer sets the scale of every row.
   */
  readonly smoothing?: ReadonlyMap<string, Float32Array>
}

export type { QuantizeFormat }

/** What {@link quantizeModel} did. */
export interface QuantizeResult {
  /** The written model file. */
  readonly modelPath: string
  /** MatMuls turned into MatMulNBits or MatMulInteger. */
  readonly quantized: number
  /** Weights kept in float32 because they are the LM head (names). */
  readonly keptHead: readonly string[]
  /** Every weight that could be quantized (names, graph order), those kept float by `keepFloat` included. */
  readonly quantizable: readonly string[]
  /** Bytes of the input weights and of the output weights (model.onnx_data). */
  readonly bytesIn: number
  readonly bytesOut: number
}


/** The options with their defaults, checked. */
function settings(options: QuantizeOptions): { bits: 4 | 8; block: number; accuracyLevel: 0 | 4; format: QuantizeFormat } {
  const bits = options.bits ?? 4
  const block = options.blockSize ?? 32
  const accuracyLevel = options.accuracyLevel ?? 4
  const format = options.format ?? 'nbits'
  if (format !== 'nbits' && format !== 'int8') throw new ConfigError(`quantize-model: format must be nbits or int8, got ${String(format)}`)
  if (bits !== 4 && bits !== 8) throw new ConfigError(`quantize-model: bits must be 4 or 8, got ${String(bits)}`)
  if (!Number.isInteger(block) || block < 16 || (block & (block - 1)) !== 0) throw new ConfigError(`quantize-model: block size must be a power of two ≥ 16, got ${block}`)
  return { bits, block, accuracyLevel, format }
}

/** One MatMul by a float weight, quantized: the nodes that replace it and the initializers they read. */
interface Replacement {
  readonly nodes: OnnxNamespace.INodeProto[]
  readonly initializers: OnnxNamespace.ITensorProto[]
}

/** `node` (input × `weight` `[K, N]`, the `index`-th quantized) as MatMulIntegerToFloat on int8 weights per column. */
function int8Replacement(onnx: Onnx, node: OnnxNamespace.INodeProto, weight: OnnxNamespace.ITensorProto, values: Float32Array, K: number, N: number, index: number, opset: number, smooth?: Float32Array): Replacement {
  const qName = `${weight.name}_int8`
  const initializers: OnnxNamespace.ITensorProto[] = index === 1 ? sharedConstants(onnx) : []
  let smoothName: string | undefined
  if (smooth) {
    if (smooth.length !== K) throw new ConfigError(`quantize-model: smoothing of "${weight.name}" has ${smooth.length} factors, the weight ${K} rows`)
    for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) values[k * N + n] = values[k * N + n]! * smooth[k]!
    smoothName = `${qName}_smooth`
    initializers.push({ name: smoothName, dims: [K], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(smooth.map((x) => 1 / x).buffer) })
  }
  const q = quantizeColumns(values, K, N)
  initializers.push({ name: qName, dims: [K, N], dataType: onnx.TensorProto.DataType.INT8, rawData: new Uint8Array(q.values.buffer) })
  initializers.push({ name: `${qName}_scales`, dims: [N], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(q.scales.buffer) })
  const prefix = `${qName}_${index}`
  appendAll(initializers, matMulConstants(onnx, prefix, K, N))
  return { nodes: integerMatMulNodes(onnx, node.input![0]!, node.output![0]!, qName, `${qName}_scales`, prefix, opset, smoothName), initializers }
}

/** `node` (input × `weight` `[K, N]`) as MatMulNBits: `bits`-bit symmetric blocks of `block` along K. */
function nbitsReplacement(onnx: Onnx, node: OnnxNamespace.INodeProto, weight: OnnxNamespace.ITensorProto, values: Float32Array, K: number, N: number, bits: 4 | 8, block: number, accuracyLevel: 0 | 4): Replacement {
  const { packed, scales, blocks } = packNBits(values, K, N, bits, block)
  const qName = `${weight.name}_q${bits}`
  const initializers: OnnxNamespace.ITensorProto[] = [
    { name: qName, dims: [N, blocks, (block * bits) / 8], dataType: onnx.TensorProto.DataType.UINT8, rawData: packed },
    { name: `${qName}_scales`, dims: [N * blocks], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(scales.buffer) },
  ]
  const int = (name: string, i: number) => ({ name, type: onnx.AttributeProto.AttributeType.INT, i })
  const nodes: OnnxNamespace.INodeProto[] = [
    {
      opType: 'MatMulNBits',
      domain: 'com.microsoft',
      name: `${node.name ?? qName}_nbits`,
      input: [node.input![0]!, qName, `${qName}_scales`],
      output: node.output,
      attribute: [int('K', K), int('N', N), int('bits', bits), int('block_size', block), int('accuracy_level', accuracyLevel)],
    },
  ]
  return { nodes, initializers }
}

/** Quantize the fp32 model of `inDir` into `outDir` (created). {@link ConfigError}s name the file. */
export async function quantizeModel(inDir: string, outDir: string, options: QuantizeOptions = {}): Promise<QuantizeResult> {
  const { bits, block, accuracyLevel, format } = settings(options)
  const source = readRewriteSource(inDir, outDir)
  const { onnx, model, graph, nodes, initializers, opset, head, fail } = source
  const rewritten: OnnxNamespace.INodeProto[] = []
  const dropped = new Set<string>()
  let quantized = 0
  const quantizable: string[] = []
  for (const node of nodes) {
    const weight = source.weights.get(node)
    if (!weight) {
      rewritten.push(node)
      continue
    }
    quantizable.push(weight.name!)
    if (options.keepFloat?.has(weight.name!)) {
      rewritten.push(node)
      continue
    }
    const [K, N] = weight.dims!.map((d) => toNumber(d as number)) as [number, number]
    const raw = weight.rawData!
    const values = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength))
    dropped.add(weight.name!)
    quantized++
    const replacement = format === 'int8' ? int8Replacement(onnx, node, weight, values, K, N, quantized, opset, options.smoothing?.get(weight.name!)) : nbitsReplacement(onnx, node, weight, values, K, N, bits, block, accuracyLevel)
    appendAll(initializers, replacement.initializers)
    appendAll(rewritten, replacement.nodes)
  }
  if (quantized === 0) fail('no MatMul by a constant 2-D float32 weight outside the LM head; nothing to quantize')
  const stillRead = new Set(rewritten.flatMap((n) => n.input ?? []))
  graph.node = rewritten as never
  const kept = initializers.filter((t) => !dropped.has(t.name!) || stillRead.has(t.name!))
  graph.initializer = kept as never
  if (!model.opsetImport.some((o) => o.domain === 'com.microsoft')) model.opsetImport.push(onnx.OperatorSetIdProto.create({ domain: 'com.microsoft', version: 1 }))
  const out = resolve(outDir)
  const bytesOut = writeRewritten(onnx, model, kept, out, source.files)
  return { modelPath: join(out, 'model.onnx'), quantized, keptHead: [...head].map((n) => n.input?.[1] ?? '?'), quantizable, bytesIn: source.bytesIn, bytesOut }
}
