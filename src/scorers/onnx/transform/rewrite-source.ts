/**
 * What `sceptic quantize-model` rewrites, read from a model directory: the fp32 graph with
 * every weight in memory, its LM head, and the MatMuls by a constant 2-D float weight that
 * may be quantized (not the head, not an embedding read by `Gather`). Shared by the
 * quantizer and by the calibration probe (activation-stats.ts), which rewrite the same graph.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { ConfigError, firstLineOf } from '../../../core/support/errors.ts'
import { writeFileAtomicSync } from '../../../core/support/files.ts'
import { appendAll } from '../../../core/support/spreadless.ts'
import { externalize } from '../model/external-data.ts'
import { loadOnnxProto, tensorReader, toNumber } from '../model/graph-io.ts'
import { locateModel, type ModelFiles } from '../model/model-dir.ts'
import { SIDE_FILES } from './optimize.ts'
import { READOUT_FILE } from '../readout/readout-file.ts'

export type Onnx = typeof OnnxNamespace
export type Fail = (why: string) => never

/** The graph of a model directory, ready to rewrite. */
export interface RewriteSource {
  readonly onnx: Onnx
  readonly files: ModelFiles
  readonly model: OnnxNamespace.ModelProto
  readonly graph: OnnxNamespace.IGraphProto
  readonly nodes: OnnxNamespace.INodeProto[]
  readonly initializers: OnnxNamespace.ITensorProto[]
  /** The default-domain opset. */
  readonly opset: number
  /** MatMuls of the LM head (they stay float). */
  readonly head: ReadonlySet<OnnxNamespace.INodeProto>
  /** Every quantizable MatMul and its weight, in graph order. */
  readonly weights: ReadonlyMap<OnnxNamespace.INodeProto, OnnxNamespace.ITensorProto>
  /** Bytes of the input weights. */
  readonly bytesIn: number
  /** Throws a ConfigError naming the model file. */
  readonly fail: Fail
}

/** The external data file every rewritten model writes its weights to. */
export const EXTERNAL = 'model.onnx_data'

/** Read the fp32 model of `inDir` for a rewrite written to `outDir` (which must differ). */
export function readRewriteSource(inDir: string, outDir: string): RewriteSource {
  const files = locateModel(inDir, 'fp32')
  const out = resolve(outDir)
  if (out === files.dir || out === dirname(files.modelPath)) throw new ConfigError(`${outDir}: the output directory must differ from the input (${inDir})`)
  const onnx = loadOnnxProto('quantize-model')
  const path = files.modelPath
  const fail: Fail = (why) => {
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
  const bytesIn = inlineWeights(initializers, dirname(path), fail)
  const head = headMatMuls(nodes, fail)
  const byName = new Map(initializers.map((t) => [t.name!, t]))
  const gathered = new Set(nodes.filter((n) => n.opType === 'Gather').map((n) => n.input![0]!))
  const weights = new Map<OnnxNamespace.INodeProto, OnnxNamespace.ITensorProto>()
  for (const node of nodes) {
    const weight = node.opType === 'MatMul' && !head.has(node) ? byName.get(node.input![1]!) : undefined
    if (weight && weight.dataType === onnx.TensorProto.DataType.FLOAT && weight.dims?.length === 2 && !gathered.has(weight.name!)) weights.set(node, weight)
  }
  return { onnx, files, model, graph, nodes: nodes as OnnxNamespace.INodeProto[], initializers: initializers as OnnxNamespace.ITensorProto[], opset, head, weights, bytesIn, fail }
}

/** Read every weight into memory (inline or external), so the result can be written in one place; returns the bytes read. */
function inlineWeights(initializers: OnnxNamespace.ITensorProto[], dir: string, fail: Fail): number {
  let bytesIn = 0
  for (const tensor of initializers) {
    if (tensor.dataLocation !== 1) {
      bytesIn += tensor.rawData?.length ?? 0
      continue
    }
    const length = Number(tensor.externalData?.find((e) => e.key === 'length')?.value ?? NaN)
    if (!Number.isFinite(length)) fail(`external tensor "${tensor.name}" has no length`)
    const read = tensorReader(tensor, dir, fail)
    try {
      tensor.rawData = read(0, length)
    } finally {
      read.close()
    }
    tensor.dataLocation = 0
    tensor.externalData = []
    bytesIn += length
  }
  return bytesIn
}

/** The head: MatMuls reached from `logits` going back through non-MatMul nodes. */
function headMatMuls(nodes: readonly OnnxNamespace.INodeProto[], fail: Fail): Set<OnnxNamespace.INodeProto> {
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
  return head
}

/**
 * Write `model` to `out` with its weights `kept` in one external file, 64-byte aligned (ORT
 * memory-maps it), the side files of the input's folder and its `sceptic-readout.json` (an
 * `optimize-model` output's logits are letter columns: the rewrite keeps them); returns the weight bytes.
 */
export function writeRewritten(onnx: Onnx, model: OnnxNamespace.ModelProto, kept: OnnxNamespace.ITensorProto[], out: string, from: Pick<ModelFiles, 'dir' | 'modelPath'>): number {
  const data = externalize(kept, onnx.TensorProto.DataLocation.EXTERNAL, { location: EXTERNAL, minBytes: 1024, align: 64 })
  mkdirSync(out, { recursive: true })
  writeFileAtomicSync(join(out, 'model.onnx'), onnx.ModelProto.encode(model).finish(), { fsync: false })
  writeFileAtomicSync(join(out, EXTERNAL), data, { fsync: false })
  for (const name of SIDE_FILES) if (existsSync(join(from.dir, name))) writeFileAtomicSync(join(out, name), readFileSync(join(from.dir, name)), { fsync: false })
  const sidecar = join(dirname(from.modelPath), READOUT_FILE)
  if (existsSync(sidecar)) writeFileAtomicSync(join(out, READOUT_FILE), readFileSync(sidecar), { fsync: false })
  return data.length
}
