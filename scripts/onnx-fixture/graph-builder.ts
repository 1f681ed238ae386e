/**
 * The pieces both fixture decoders (GPT-2-like and Qwen2-like) share: a seeded graph
 * builder, the attention mask from `attention_mask`, attention with an optional KV cache
 * and grouped-query heads, and the Optimum inputs/outputs. Same calls, same bytes.
 */
import { createRequire } from 'node:module'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { mulberry32 } from '../../src/core/math/random.ts'
import type { DecoderOptions } from './decoder.ts'

// onnx-proto is CommonJS (protobufjs static code); createRequire keeps the ESM build simple.
export const { onnx } = createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }
export const DT = onnx.TensorProto.DataType
const AT = onnx.AttributeProto.AttributeType

type Attrs = Record<string, number | number[]>

/** Initializers, nodes and a seeded normal sampler, appended to in call order. */
export interface GraphBuilder {
  readonly initializers: OnnxNamespace.ITensorProto[]
  readonly nodes: OnnxNamespace.INodeProto[]
  normal(std: number): number
  initF(name: string, dims: number[], fill: (index: number) => number): string
  initI(name: string, values: number[], scalar?: boolean): string
  constF(name: string, value: number): string
  node(op: string, inputs: string[], attrs?: Attrs, outputs?: string[]): string[]
  op(type: string, inputs: string[], attrs?: Attrs, outName?: string): string
}

// Initializers computed from the options, never trained: RoPE's frequencies, the logit bias.
const DERIVED = new Set(['rope.inv_freq', 'logit_bias'])

/**
 * `given`: trained weights by initializer name, in the ONNX layout (`[in, out]` MatMul weights);
 * an initializer named there takes those values instead of the seeded fill (sizes must match).
 */
export function graphBuilder(seed: number, given?: ReadonlyMap<string, Float32Array>): GraphBuilder {
  const random = mulberry32(seed)
  const initializers: OnnxNamespace.ITensorProto[] = []
  const nodes: OnnxNamespace.INodeProto[] = []
  const bytes = (array: Float32Array | BigInt64Array): Uint8Array => new Uint8Array(array.buffer)
  let counter = 0
  const attribute = (name: string, value: number | number[]): OnnxNamespace.IAttributeProto =>
    Array.isArray(value)
      ? { name, type: AT.INTS, ints: value }
      : Number.isInteger(value)
        ? { name, type: AT.INT, i: value }
        : { name, type: AT.FLOAT, f: value }
  const node = (op: string, inputs: string[], attrs: Attrs = {}, outputs?: string[]): string[] => {
    counter++
    const output = outputs ?? [`${op.toLowerCase()}_${counter}`]
    nodes.push({ opType: op, input: inputs, output, name: `${op}_${counter}`, attribute: Object.entries(attrs).map(([k, v]) => attribute(k, v)) })
    return output
  }
  return {
    initializers,
    nodes,
    normal(std) {
      const u = 1 - random()
      const v = random()
      return std * Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v)
    },
    initF(name, dims, fill) {
      const size = dims.reduce((a, b) => a * b, 1)
      const trained = given?.get(name)
      if (given && !trained && !DERIVED.has(name)) throw new Error(`weight ${name} is not among the given weights`)
      if (trained && trained.length !== size) throw new Error(`weight ${name}: ${trained.length} values given, the graph needs [${dims.join(', ')}]`)
      const array = trained ? Float32Array.from(trained) : new Float32Array(size)
      if (!trained) for (let i = 0; i < array.length; i++) array[i] = fill(i)
      initializers.push({ name, dims, dataType: DT.FLOAT, rawData: bytes(array) })
      return name
    },
    initI(name, values, scalar = false) {
      initializers.push({ name, dims: scalar ? [] : [values.length], dataType: DT.INT64, rawData: bytes(BigInt64Array.from(values.map(BigInt))) })
      return name
    },
    constF(name, value) {
      initializers.push({ name, dims: [], dataType: DT.FLOAT, rawData: bytes(new Float32Array([value])) })
      return name
    },
    node,
    op: (type, inputs, attrs = {}, outName) => node(type, inputs, attrs, outName ? [outName] : undefined)[0]!,
  }
}

/** Head layout of the attention blocks. */
export interface AttentionShape {
  readonly D: number
  readonly H: number
  readonly KVH: number
  readonly dh: number
  readonly withPast: boolean
}

/** The constants attention reads; `split` adds the fused-QKV split sizes (GPT-2 layout). */
export function attentionConstants(b: GraphBuilder, { D, H, KVH, dh }: AttentionShape, split: boolean) {
  const KD = KVH * dh
  return {
    c0: b.initI('c0', [0]),
    c1: b.initI('c1', [1]),
    cBSHD: b.initI('c_bshd', [0, 0, H, dh]),
    cKVBSHD: b.initI('c_kvbshd', [0, 0, KVH, dh]),
    cBSD: b.initI('c_bsd', [0, 0, D]),
    cSplit: split ? b.initI('c_split', [D, KD, KD]) : '',
    cScale: b.constF('c_scale', 1 / Math.sqrt(dh)),
    cNeg: b.constF('c_neg', -1e9),
    cZeroF: b.constF('c_zero_f', 0),
    cOneI: b.initI('c_one_i', [1], true),
    cZeroI: b.initI('c_zero_i', [0], true),
    cAx01: b.initI('c_ax01', [0, 1]),
    cAx12: b.initI('c_ax12', [1, 2]),
  }
}
export type AttentionConstants = ReturnType<typeof attentionConstants>

/** Sequence lengths and positions: `position_ids`, or cumsum(mask) − 1 when the graph has no such input. */
export function sequencePositions(b: GraphBuilder, c: AttentionConstants, inputIds: string, withPositionIds: boolean): { S: string; T: string; positions: string } {
  const S = b.op('Gather', [b.op('Shape', [inputIds]), c.cOneI], { axis: 0 })
  const T = b.op('Gather', [b.op('Shape', ['attention_mask']), c.cOneI], { axis: 0 })
  let positions = 'position_ids'
  if (!withPositionIds) {
    // Positions count real tokens only: cumsum(mask) − 1, clamped at 0, last S columns.
    const cum = b.op('Sub', [b.op('CumSum', ['attention_mask', b.initI('c_axis1', [1], true)]), b.initI('c_one_1d', [1])])
    const clamped = b.op('Max', [cum, b.initI('c_zero_1d', [0])])
    positions = b.op('Slice', [clamped, b.op('Unsqueeze', [b.op('Sub', [T, S]), c.c0]), b.op('Unsqueeze', [T, c.c0]), c.c1])
  }
  return { S, T, positions }
}

/** The additive attention bias: causal with offset = past length, and padded keys masked. */
export function maskBias(b: GraphBuilder, c: AttentionConstants, S: string, T: string): string {
  const queryIndex = b.op('Add', [b.op('Range', [c.cZeroI, S, c.cOneI]), b.op('Sub', [T, S])])
  const keyIndex = b.op('Range', [c.cZeroI, T, c.cOneI])
  const causal = b.op('LessOrEqual', [b.op('Unsqueeze', [keyIndex, c.c0]), b.op('Unsqueeze', [queryIndex, c.c1])])
  const padOk = b.op('Cast', [b.op('Unsqueeze', ['attention_mask', c.cAx12])], { to: DT.BOOL })
  return b.op('Where', [b.op('And', [b.op('Unsqueeze', [causal, c.cAx01]), padOk]), c.cZeroF, c.cNeg])
}

/** Attention over one layer's `[B, S, ·]` q/k/v projections; `rope` rotates q and k heads (before the cache). Returns `[B, S, D]`. */
export class Attention {
  private cQ5 = ''
  private cKV5 = ''
  private cBHSD = ''
  private cAx2 = ''

  constructor(
    private readonly b: GraphBuilder,
    private readonly c: AttentionConstants,
    private readonly shape: AttentionShape,
    private readonly bias: string,
  ) {
    const { H, KVH, dh } = shape
    const G = H / KVH
    if (G > 1) {
      this.cQ5 = b.initI('c_q5', [0, KVH, G, -1, dh])
      this.cKV5 = b.initI('c_kv5', [0, KVH, 1, -1, dh])
      this.cBHSD = b.initI('c_bhsd', [0, H, -1, dh])
      this.cAx2 = b.initI('c_ax2', [2])
    }
  }

  layer(l: number, q0: string, k0: string, v0: string, rope?: (heads: string) => string): string {
    const { b, c } = this
    const heads = (t: string, shape: string): string => b.op('Transpose', [b.op('Reshape', [t, shape])], { perm: [0, 2, 1, 3] })
    let q = heads(q0, c.cBSHD)
    let k = heads(k0, c.cKVBSHD)
    let v = heads(v0, c.cKVBSHD)
    if (rope) {
      q = rope(q)
      k = rope(k)
    }
    if (this.shape.withPast) {
      k = b.op('Concat', [`past_key_values.${l}.key`, k], { axis: 2 }, `present.${l}.key`)
      v = b.op('Concat', [`past_key_values.${l}.value`, v], { axis: 2 }, `present.${l}.value`)
    }
    let attention: string
    if (this.shape.H === this.shape.KVH) {
      const scores = b.op('Add', [b.op('Mul', [b.op('MatMul', [q, b.op('Transpose', [k], { perm: [0, 1, 3, 2] })]), c.cScale]), this.bias])
      attention = b.op('MatMul', [b.op('Softmax', [scores], { axis: -1 }), v])
    } else {
      // GQA: group the query heads per KV head and broadcast K/V over the group axis.
      const q5 = b.op('Reshape', [q, this.cQ5])
      const k5 = b.op('Reshape', [k, this.cKV5])
      const v5 = b.op('Reshape', [v, this.cKV5])
      const scores = b.op('Add', [b.op('Mul', [b.op('MatMul', [q5, b.op('Transpose', [k5], { perm: [0, 1, 2, 4, 3] })]), c.cScale]), b.op('Unsqueeze', [this.bias, this.cAx2])])
      attention = b.op('Reshape', [b.op('MatMul', [b.op('Softmax', [scores], { axis: -1 }), v5]), this.cBHSD])
    }
    return b.op('Reshape', [b.op('Transpose', [attention], { perm: [0, 2, 1, 3] }), c.cBSD])
  }
}

/** Graph I/O names and shapes of a fixture decoder in the Optimum layout. */
export interface DecoderIo {
  readonly inputIds: string
  readonly logitsName: string
  readonly V: number
  readonly L: number
  readonly KVH: number
  readonly dh: number
  readonly withPositionIds: boolean
  readonly withPast: boolean
  readonly symbolicPast: boolean
}

/** The ModelProto around the builder's nodes and initializers, with the Optimum inputs and outputs. */
export function decoderModel(b: GraphBuilder, io: DecoderIo, extraOpsets: OnnxNamespace.IOperatorSetIdProto[] = []): OnnxNamespace.ModelProto {
  type Dim = number | string
  const valueInfo = (name: string, elemType: number, dims: Dim[]): OnnxNamespace.IValueInfoProto => ({
    name,
    type: { tensorType: { elemType, shape: { dim: dims.map((d) => (typeof d === 'string' ? { dimParam: d } : { dimValue: d })) } } },
  })
  const input = [valueInfo(io.inputIds, DT.INT64, ['batch_size', 'sequence_length']), valueInfo('attention_mask', DT.INT64, ['batch_size', 'total_sequence_length'])]
  if (io.withPositionIds) input.push(valueInfo('position_ids', DT.INT64, ['batch_size', 'sequence_length']))
  const output = [valueInfo(io.logitsName, DT.FLOAT, ['batch_size', 'sequence_length', io.V])]
  if (io.withPast)
    for (let l = 0; l < io.L; l++)
      for (const kv of ['key', 'value']) {
        input.push(valueInfo(`past_key_values.${l}.${kv}`, DT.FLOAT, io.symbolicPast ? ['batch_size', 'num_kv_heads', 'past_sequence_length', 'head_dim'] : ['batch_size', io.KVH, 'past_sequence_length', io.dh]))
        output.push(valueInfo(`present.${l}.${kv}`, DT.FLOAT, ['batch_size', io.KVH, 'total_sequence_length', io.dh]))
      }
  return onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'vitest-sceptic-fixture',
    opsetImport: [{ domain: '', version: 17 }, ...extraOpsets],
    graph: { name: 'fixture_decoder', node: b.nodes, initializer: b.initializers, input, output },
  })
}

/** Shape fields shared by both architectures, with their defaults, checked. */
export function decoderShape(options: DecoderOptions) {
  const D = options.hidden ?? 64
  const H = options.heads ?? 4
  const KVH = options.kvHeads ?? H
  if (D % H !== 0 || H % KVH !== 0) throw new Error(`hidden ${D} / heads ${H} / kvHeads ${KVH} do not divide`)
  return {
    D,
    L: options.layers ?? 2,
    H,
    KVH,
    V: options.vocab ?? 300,
    FF: options.ffn ?? 4 * D,
    dh: D / H,
    withPositionIds: options.positionIds ?? true,
    withPast: options.past ?? true,
    inputIds: options.inputIdsName ?? 'input_ids',
    logitsName: options.logitsName ?? 'logits',
    symbolicPast: options.symbolicPast ?? false,
  }
}

/** With `logitBias`, `logits` = head + bias vector; otherwise the head already wrote `logits`. */
export function logitsHead(b: GraphBuilder, options: DecoderOptions, head: string, V: number, logitsName: string): void {
  const bias = options.logitBias
  if (!bias || Object.keys(bias).length === 0) return
  b.op('Add', [head, b.initF('logit_bias', [V], (i) => bias[i] ?? 0)], {}, logitsName)
}
