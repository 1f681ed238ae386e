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
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { writeFileAtomicSync } from '../../../core/support/files.ts'
import { dirname, join, resolve } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { externalize } from '../model/external-data.ts'
import { ConfigError, firstLineOf } from '../../../core/support/errors.ts'
import { locateModel } from '../model/model-dir.ts'
import { integerMatMulNodes, matMulConstants, quantizeColumns, sharedConstants } from './integer-matmul.ts'
import { packNBits } from './nbits.ts'
import { loadOnnxProto, tensorReader, toNumber } from '../model/graph-io.ts'
import { SIDE_FILES } from './optimize.ts'
import type { QuantizeFormat } from '../model/quantization-info.ts'
import { appendAll } from '../../../core/support/spreadless.ts'

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

const EXTERNAL = 'model.onnx_data'

/** Quantize the fp32 model of `inDir` into `outDir` (created). {@link ConfigError}s name the file. */
export async function quantizeModel(inDir: string, outDir: string, options: QuantizeOptions = {}): Promise<QuantizeResult> {
  const bits = options.bits ?? 4
  const block = options.blockSize ?? 32
  const accuracyLevel = options.accuracyLevel ?? 4
  const format = options.format ?? 'nbits'
  if (format !== 'nbits' && format !== 'int8') throw new ConfigError(`quantize-model: format must be nbits or int8, got ${String(format)}`)
  if (bits !== 4 && bits !== 8) throw new ConfigError(`quantize-model: bits must be 4 or 8, got ${String(bits)}`)
  if (!Number.isInteger(block) || block < 16 || (block & (block - 1)) !== 0) throw new ConfigError(`quantize-model: block size must be a power of two ≥ 16, got ${block}`)
  const files = locateModel(inDir, 'fp32')
  const out = resolve(outDir)
  if (out === files.dir || out === dirname(files.modelPath)) throw new ConfigError(`${outDir}: the output directory must differ from the input (${inDir})`)
  const onnx = loadOnnxProto('quantize-model')
  const path = files.modelPath
  const fail = (why: string): never => {
    throw new ConfigError(`${path}: quantize-model cannot rewrite this graph: ${why}`)
  }
  let model: OnnxNamespace.ModelProto
  try {
    model = onnx.ModelProto.decode(readFileSync(path))
  } catch (error) {
    return fail(`not an ONNX model (${firstLineOf(error)})`)
  }
  const graph = model.graph ?? fail('the model has no graph')
  const nodes = graph.node ?? []
  const initializers = graph.initializer ?? []
  if (nodes.some((n) => ['MatMulNBits', 'MatMulInteger', 'MatMulIntegerToFloat', 'DynamicQuantizeLinear'].includes(n.opType ?? ''))) fail('it is already quantized')
  const opset = toNumber((model.opsetImport ?? []).find((o) => !o.domain)?.version ?? 0)

  // Every weight in memory (inline or external), so the result can be written in one place.
  let bytesIn = 0
  for (const tensor of initializers) {
    if (tensor.dataLocation !== 1) {
      bytesIn += tensor.rawData?.length ?? 0
      continue
    }
    const length = Number(tensor.externalData?.find((e) => e.key === 'length')?.value ?? NaN)
    if (!Number.isFinite(length)) fail(`external tensor "${tensor.name}" has no length`)
    const read = tensorReader(tensor, dirname(path), fail)
    try {
      tensor.rawData = read(0, length)
    } finally {
      read.close()
    }
    tensor.dataLocation = 0
    tensor.externalData = []
    bytesIn += length
  }

  // The head: MatMuls reached from `logits` going back through non-MatMul nodes.
  const producer = new Map<string, OnnxNamespace.INodeProto>()
  for (const node of nodes) for (const output of node.output ?? []) producer.set(output, node)
  const head = new Set<OnnxNamespace.INodeProto>()
  const seen = new Set<string>()
  const stack = ['logits']
  while (stack.length > 0) {
    const name = stack.pop()!
    if (seen.has(name)) continue
    seen.add(name)
    const node = producer.get(name)
    if (!node) continue
    if (node.opType === 'MatMul') head.add(node)
    else appendAll(stack, node.input ?? [])
  }
  if (!producer.has('logits')) fail('no node produces "logits"')

  const byName = new Map(initializers.map((t) => [t.name!, t]))
  const gathered = new Set(nodes.filter((n) => n.opType === 'Gather').map((n) => n.input![0]!))
  const rewritten: OnnxNamespace.INodeProto[] = []
  const dropped = new Set<string>()
  let quantized = 0
  const quantizable: string[] = []
  for (const node of nodes) {
    const weight = node.opType === 'MatMul' && !head.has(node) ? byName.get(node.input![1]!) : undefined
    if (!weight || weight.dataType !== onnx.TensorProto.DataType.FLOAT || weight.dims?.length !== 2 || gathered.has(weight.name!)) {
      rewritten.push(node)
      continue
    }
    quantizable.push(weight.name!)
    if (options.keepFloat?.has(weight.name!)) {
      rewritten.push(node)
      continue
    }
    const [K, N] = weight.dims.map((d) => toNumber(d as number)) as [number, number]
    const raw = weight.rawData!
    const values = new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength))
    dropped.add(weight.name!)
    quantized++
    if (format === 'int8') {
      const q = quantizeColumns(values, K, N)
      const qName = `${weight.name}_int8`
      if (quantized === 1) appendAll(initializers, sharedConstants(onnx))
      initializers.push({ name: qName, dims: [K, N], dataType: onnx.TensorProto.DataType.INT8, rawData: new Uint8Array(q.values.buffer) })
      initializers.push({ name: `${qName}_scales`, dims: [N], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(q.scales.buffer) })
      const prefix = `${qName}_${quantized}`
      appendAll(initializers, matMulConstants(onnx, prefix, K, N))
      appendAll(rewritten, integerMatMulNodes(onnx, node.input![0]!, node.output![0]!, qName, `${qName}_scales`, prefix, opset))
      continue
    }
    const { packed, scales, blocks } = packNBits(values, K, N, bits, block)
    const qName = `${weight.name}_q${bits}`
    initializers.push({ name: qName, dims: [N, blocks, (block * bits) / 8], dataType: onnx.TensorProto.DataType.UINT8, rawData: packed })
    initializers.push({ name: `${qName}_scales`, dims: [N * blocks], dataType: onnx.TensorProto.DataType.FLOAT, rawData: new Uint8Array(scales.buffer) })
    rewritten.push({
      opType: 'MatMulNBits',
      domain: 'com.microsoft',
      name: `${node.name ?? qName}_nbits`,
      input: [node.input![0]!, qName, `${qName}_scales`],
      output: node.output,
      attribute: [
        { name: 'K', type: onnx.AttributeProto.AttributeType.INT, i: K },
        { name: 'N', type: onnx.AttributeProto.AttributeType.INT, i: N },
        { name: 'bits', type: onnx.AttributeProto.AttributeType.INT, i: bits },
        { name: 'block_size', type: onnx.AttributeProto.AttributeType.INT, i: block },
        { name: 'accuracy_level', type: onnx.AttributeProto.AttributeType.INT, i: accuracyLevel },
      ],
    })
  }
  if (quantized === 0) fail('no MatMul by a constant 2-D float32 weight outside the LM head; nothing to quantize')
  const stillRead = new Set(rewritten.flatMap((n) => n.input ?? []))
  graph.node = rewritten as never
  const kept = initializers.filter((t) => !dropped.has(t.name!) || stillRead.has(t.name!))
  graph.initializer = kept as never
  if (!model.opsetImport.some((o) => o.domain === 'com.microsoft')) model.opsetImport.push(onnx.OperatorSetIdProto.create({ domain: 'com.microsoft', version: 1 }))

  // Weights out to one external file, 64-byte aligned (ORT memory-maps it).
  const data = externalize(kept, onnx.TensorProto.DataLocation.EXTERNAL, { location: EXTERNAL, minBytes: 1024, align: 64 })
  mkdirSync(out, { recursive: true })
  const modelPath = join(out, 'model.onnx')
  writeFileAtomicSync(modelPath, onnx.ModelProto.encode(model).finish(), { fsync: false })
  writeFileAtomicSync(join(out, EXTERNAL), data, { fsync: false })
  for (const name of SIDE_FILES) if (existsSync(join(files.dir, name))) writeFileAtomicSync(join(out, name), readFileSync(join(files.dir, name)), { fsync: false })
  return { modelPath, quantized, keptHead: [...head].map((n) => n.input?.[1] ?? '?'), quantizable, bytesIn, bytesOut: data.length }
}
