/**
 * The Qwen2 fixture decoder as a GGUF file (llama.cpp's `qwen2` architecture): the same
 * weights as the ONNX model the same options build (read back from its initializers) and
 * the same byte-level BPE vocabulary, as F32, F16 or Q8_0, so the GGUF scorer and the ONNX
 * scorer can be compared number for number.
 *
 * llama.cpp's `qwen2` computes what the ONNX fixture's Qwen2 layout computes: RMSNorm,
 * rotate-half ("NEOX") RoPE at the file's base, grouped-query attention, biases on q/k/v
 * only, SwiGLU, and, with no `output.weight`, the head tied to `token_embd.weight`.
 * GGUF v3 layout: header, key/values, tensor infos, then 32-byte-aligned tensor data.
 * A GGUF tensor lists its dimensions innermost first: a Hugging Face `[out, in]` weight is
 * `ne = [in, out]` with the same row-major bytes, i.e. the ONNX `[in, out]` MatMul
 * weight transposed.
 */
import { closeSync, openSync, readFileSync, writeSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import type { onnx as OnnxNamespace } from 'onnx-proto'
import { tensorReader } from '../../src/scorers/onnx/model/graph-io.ts'
import { buildDecoderProto, type DecoderOptions } from './decoder.ts'
import { decoderShape } from './graph-builder.ts'
import { QWEN2_DEFAULTS } from './qwen2.ts'
import { floatToHalf } from './variants.ts'
import type { TokenizerJson } from './tokenizers.ts'

/** How the 2-D weights are stored (1-D norms and biases stay F32, as llama.cpp's converter keeps them). */
export type GgufType = 'F32' | 'F16' | 'Q8_0'

/** What {@link buildGguf} writes besides the weights. */
export interface GgufOptions {
  /** Weight storage. Default `'F32'`. */
  type?: GgufType
  /** Storage of `token_embd.weight`, which is also the tied output head (mixed blocks). Default `type`. */
  embeddingType?: GgufType
  /** `tokenizer.ggml.pre`, llama.cpp's name for the tokenizer's pre-split regex. Default `'gpt-2'` (the fixture's); `'qwen2'` for Qwen's. */
  pre?: string
  /** `tokenizer.chat_template`, when the file should carry one. */
  chatTemplate?: string
  /** `general.architecture`: change it to build a file llama.cpp must refuse. Default `'qwen2'`. */
  architecture?: string
  /** Leave these tensors out (a file llama.cpp must refuse). */
  omitTensors?: readonly string[]
  /** Context length written as `qwen2.context_length`. Default `maxPositions` or 32768. */
  contextLength?: number
  /**
   * Key/values written over the fixture's (a file with hyperparameters llama.cpp must refuse): a
   * number as uint32, a bigint as uint64, `{ i32 }` as int32, an array of numbers as an array of uint32.
   */
  metadata?: Readonly<Record<string, number | bigint | { i32: number } | readonly number[]>>
  /** The header's GGUF version. Default 3. */
  version?: number
}

const GGML = { F32: 0, F16: 1, Q8_0: 8 } as const
const FILE_TYPE = { F32: 0, F16: 1, Q8_0: 7 } as const
const ALIGN = 32

/** A float weight by its ONNX initializer name: dimensions and values. */
type Weights = (name: string) => { dims: number[]; data: Float32Array }

/** A GGUF file of the Qwen2 decoder `decoder` (with `vocab` set) and tokenizer `tokenizer`, in memory (small shapes). */
export function buildGguf(decoder: DecoderOptions & { vocab: number }, tokenizer: TokenizerJson, options: GgufOptions = {}): Uint8Array {
  const weights = initializers(buildDecoderProto(decoder))
  const chunks: Uint8Array[] = []
  emitGguf(decoder, tokenizer, options, (name) => weights.get(name), (bytes) => chunks.push(bytes))
  return Buffer.concat(chunks)
}

/**
 * The same file written to `path` from the weights of the ONNX model `onnxModel` (the fp32
 * `model.onnx` the same decoder options built, external data read where it lives), one tensor
 * in memory at a time: a Qwen2.5-0.5B shape is 2 GB.
 */
export function writeGgufFromOnnx(path: string, onnxModel: string, decoder: DecoderOptions & { vocab: number }, tokenizer: TokenizerJson, options: GgufOptions = {}): void {
  const proto = onnx().ModelProto.decode(readFileSync(onnxModel))
  const byName = new Map((proto.graph?.initializer ?? []).map((t) => [t.name!, t]))
  const weights = (name: string): ReturnType<Weights> | undefined => {
    const tensor = byName.get(name)
    if (!tensor) return undefined
    const dims = tensor.dims!.map(Number)
    const read = tensorReader(tensor, dirname(onnxModel), (why) => {
      throw new Error(`writeGgufFromOnnx: ${why}`)
    })
    try {
      const read4 = read(0, dims.reduce((a, b) => a * b, 1) * 4)
      const bytes = read4.byteOffset % 4 === 0 ? read4 : new Uint8Array(read4) // inline raw data may sit at any offset: a copy
      return { dims, data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4) }
    } finally {
      read.close()
    }
  }
  const fd = openSync(path, 'w')
  try {
    emitGguf(decoder, tokenizer, options, weights, (bytes) => writeSync(fd, bytes))
  } finally {
    closeSync(fd)
  }
}

/** Every byte of the file, in order, to `write`; a weight is read from `weights` only when its bytes are due. */
function emitGguf(decoder: DecoderOptions & { vocab: number }, tokenizer: TokenizerJson, options: GgufOptions, source: (name: string) => ReturnType<Weights> | undefined, write: (bytes: Uint8Array) => void): void {
  if (decoder.architecture !== 'qwen2') throw new Error('buildGguf: only the qwen2 fixture layout has a GGUF twin')
  const type = options.type ?? 'F32'
  const { D, L, H, KVH, FF, V } = decoderShape(decoder)
  const get: Weights = (name) => {
    const w = source(name)
    if (!w) throw new Error(`buildGguf: the decoder has no ${name}`)
    return w
  }
  const tensors: Tensor[] = []
  // [in, out] MatMul weight → Hugging Face [out, in] rows, ne = [in, out].
  const matrix = (gguf: string, onnxName: string, [rows, cols]: [number, number]) =>
    tensors.push({
      name: gguf,
      ne: [rows, cols],
      type,
      data: () => {
        const { dims, data } = get(onnxName)
        if (dims[0] !== rows || dims[1] !== cols) throw new Error(`buildGguf: ${onnxName} is [${dims}], not [${rows},${cols}]`)
        const out = new Float32Array(rows * cols)
        for (let i = 0; i < rows; i++) for (let j = 0; j < cols; j++) out[j * rows + i] = data[i * cols + j]!
        return out
      },
    })
  const vector = (gguf: string, onnxName: string, length: number) => tensors.push({ name: gguf, ne: [length], type: 'F32', data: () => get(onnxName).data })
  const KD = (D / H) * KVH
  tensors.push({ name: 'token_embd.weight', ne: [D, V], type: options.embeddingType ?? type, data: () => get('model.embed_tokens.weight').data })
  for (let l = 0; l < L; l++) {
    const p = (name: string) => `model.layers.${l}.${name}`
    vector(`blk.${l}.attn_norm.weight`, p('input_layernorm.weight'), D)
    for (const [g, h, n] of [['q', 'q_proj', D], ['k', 'k_proj', KD], ['v', 'v_proj', KD]] as const) {
      matrix(`blk.${l}.attn_${g}.weight`, p(`self_attn.${h}.weight`), [D, n])
      vector(`blk.${l}.attn_${g}.bias`, p(`self_attn.${h}.bias`), n)
    }
    matrix(`blk.${l}.attn_output.weight`, p('self_attn.o_proj.weight'), [D, D])
    vector(`blk.${l}.ffn_norm.weight`, p('post_attention_layernorm.weight'), D)
    matrix(`blk.${l}.ffn_gate.weight`, p('mlp.gate_proj.weight'), [D, FF])
    matrix(`blk.${l}.ffn_up.weight`, p('mlp.up_proj.weight'), [D, FF])
    matrix(`blk.${l}.ffn_down.weight`, p('mlp.down_proj.weight'), [FF, D])
  }
  vector('output_norm.weight', 'model.norm.weight', D)
  const omit = new Set(options.omitTensors ?? [])
  const kept = tensors.filter((t) => !omit.has(t.name))

  const arch = options.architecture ?? 'qwen2'
  const { tokens, types, merges, eos } = vocabulary(tokenizer, V)
  const kv: [string, Value][] = [
    ['general.architecture', str(arch)],
    ['general.name', str('vitest-sceptic qwen2 fixture')],
    ['general.alignment', u32(ALIGN)],
    ['general.file_type', u32(FILE_TYPE[type])],
    [`${arch}.context_length`, u32(options.contextLength ?? decoder.maxPositions ?? 32768)],
    [`${arch}.embedding_length`, u32(D)],
    [`${arch}.block_count`, u32(L)],
    [`${arch}.feed_forward_length`, u32(FF)],
    [`${arch}.attention.head_count`, u32(H)],
    [`${arch}.attention.head_count_kv`, u32(KVH)],
    [`${arch}.rope.freq_base`, f32(decoder.ropeTheta ?? QWEN2_DEFAULTS.ropeTheta)],
    [`${arch}.attention.layer_norm_rms_epsilon`, f32(decoder.rmsEps ?? QWEN2_DEFAULTS.rmsEps)],
    ['tokenizer.ggml.model', str('gpt2')],
    ['tokenizer.ggml.pre', str(options.pre ?? 'gpt-2')],
    ['tokenizer.ggml.tokens', { kind: 'array', of: 8, items: tokens.map(str) }],
    ['tokenizer.ggml.token_type', { kind: 'array', of: 5, items: types.map(i32) }],
    ['tokenizer.ggml.merges', { kind: 'array', of: 8, items: merges.map(str) }],
    ['tokenizer.ggml.eos_token_id', u32(eos)],
    ['tokenizer.ggml.bos_token_id', u32(eos)],
    ['tokenizer.ggml.padding_token_id', u32(eos)],
    // tokenizer.json adds no special tokens: neither does llama.cpp.
    ['tokenizer.ggml.add_bos_token', { kind: 'bool', value: false }],
    ...(options.chatTemplate === undefined ? [] : [['tokenizer.chat_template', str(options.chatTemplate)] as [string, Value]]),
  ]
  for (const [key, raw] of Object.entries(options.metadata ?? {})) {
    const v: Value = typeof raw === 'bigint' ? { kind: 'u64', value: raw } : typeof raw === 'number' ? u32(raw) : Array.isArray(raw) ? { kind: 'array', of: TYPE_ID.u32, items: raw.map(u32) } : i32((raw as { i32: number }).i32)
    const at = kv.findIndex(([k]) => k === key)
    if (at >= 0) kv[at] = [key, v]
    else kv.push([key, v])
  }
  serialise(kv, kept, write, options.version ?? 3)
}

/** The vocabulary as llama.cpp's `gpt2` tokenizer reads it: tokens by id, their types, merges; padded to the model's rows. */
function vocabulary(tokenizer: TokenizerJson, rows: number): { tokens: string[]; types: number[]; merges: string[]; eos: number } {
  const model = tokenizer.model as { vocab: Record<string, number>; merges: (string | [string, string])[] }
  const tokens: string[] = new Array(rows)
  const types: number[] = new Array(rows).fill(1)
  for (const [text, id] of Object.entries(model.vocab)) if (id < rows) tokens[id] = text
  let eos = -1
  for (const added of (tokenizer.added_tokens as { id: number; content: string; special: boolean }[] | undefined) ?? []) {
    tokens[added.id] = added.content
    types[added.id] = added.special ? 3 : 4
    if (added.content === '<|endoftext|>') eos = added.id
  }
  for (let i = 0; i < rows; i++)
    if (tokens[i] === undefined) {
      tokens[i] = `[PAD${i}]`
      types[i] = 5 // unused
    }
  return { tokens, types, merges: model.merges.map((m) => (typeof m === 'string' ? m : m.join(' '))), eos: eos < 0 ? 0 : eos }
}

interface Tensor {
  readonly name: string
  /** Dimensions, innermost first. */
  readonly ne: number[]
  /** The values, produced when the tensor's bytes are written. */
  readonly data: () => Float32Array
  readonly type: GgufType
}

type Value =
  | { kind: 'u32'; value: number }
  | { kind: 'u64'; value: bigint }
  | { kind: 'i32'; value: number }
  | { kind: 'f32'; value: number }
  | { kind: 'bool'; value: boolean }
  | { kind: 'str'; value: string }
  | { kind: 'array'; of: number; items: Value[] }
const u32 = (value: number): Value => ({ kind: 'u32', value })
const i32 = (value: number): Value => ({ kind: 'i32', value })
const f32 = (value: number): Value => ({ kind: 'f32', value })
const str = (value: string): Value => ({ kind: 'str', value })
const TYPE_ID = { u32: 4, i32: 5, f32: 6, bool: 7, str: 8, array: 9, u64: 10 } as const

/** Bytes of `data` stored as `type` (rows of `ne[0]` values; Q8_0 in blocks of 32 with an fp16 scale, as llama.cpp's reference quantizer). */
export function tensorBytes(data: Float32Array, type: GgufType): Uint8Array {
  if (type === 'F32') return new Uint8Array(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength))
  if (type === 'F16') return new Uint8Array(halfBits(data).buffer)
  if (data.length % 32 !== 0) throw new Error('Q8_0 needs rows of a multiple of 32 values')
  const out = new Uint8Array((data.length / 32) * 34)
  const view = new DataView(out.buffer)
  for (let b = 0; b < data.length / 32; b++) {
    let amax = 0
    for (let i = 0; i < 32; i++) amax = Math.max(amax, Math.abs(data[b * 32 + i]!))
    const d = amax / 127
    const id = d ? 1 / d : 0
    view.setUint16(b * 34, floatToHalf(d), true)
    for (let i = 0; i < 32; i++) view.setInt8(b * 34 + 2 + i, Math.round(Math.fround(data[b * 32 + i]! * id)))
  }
  return out
}

/**
 * The IEEE half-precision bits of every value of `data`, rounded as {@link floatToHalf} rounds one
 * value (to nearest, ties to even; overflow to infinity; subnormals kept), read from the float bits
 * in one pass with no allocation per value: floatToHalf allocates two typed arrays per call, too slow
 * for the 494M weights of a Qwen2.5-0.5B shape.
 */
export function halfBits(data: Float32Array): Uint16Array {
  const bits = new Uint32Array(data.buffer, data.byteOffset, data.length)
  const half = new Uint16Array(data.length)
  for (let i = 0; i < bits.length; i++) {
    const b = bits[i]!
    const sign = (b >>> 16) & 0x8000
    const biased = (b >>> 23) & 0xff
    const mantissa = b & 0x7fffff
    const exponent = biased - 127 + 15
    if (biased === 0xff) half[i] = sign | 0x7c00 | (mantissa ? 0x200 : 0)
    else if (exponent >= 0x1f) half[i] = sign | 0x7c00
    else if (exponent <= 0) {
      if (exponent < -10) half[i] = sign
      else {
        const full = mantissa | 0x800000
        const shift = 14 - exponent
        const rest = full & ((1 << shift) - 1)
        const mid = 1 << (shift - 1)
        const value = full >>> shift
        half[i] = sign | (rest > mid || (rest === mid && value & 1) ? value + 1 : value)
      }
    } else {
      const value = (exponent << 10) | (mantissa >>> 13)
      const rest = mantissa & 0x1fff
      half[i] = sign | (rest > 0x1000 || (rest === 0x1000 && value & 1) ? value + 1 : value)
    }
  }
  return half
}

/** Bytes of `count` values stored as `type`. */
const byteLength = (count: number, type: GgufType): number => (type === 'F32' ? count * 4 : type === 'F16' ? count * 2 : (count / 32) * 34)

function serialise(kv: [string, Value][], tensors: Tensor[], write: (bytes: Uint8Array) => void, version: number): void {
  const parts: Uint8Array[] = []
  const utf8 = new TextEncoder()
  const scalar = (size: number, set: (view: DataView) => void) => {
    const bytes = new Uint8Array(size)
    set(new DataView(bytes.buffer))
    parts.push(bytes)
  }
  const u64 = (n: number) => scalar(8, (v) => v.setBigUint64(0, BigInt(n), true))
  const string = (s: string) => {
    const bytes = utf8.encode(s)
    u64(bytes.length)
    parts.push(bytes)
  }
  const value = (v: Value) => {
    if (v.kind === 'u32') scalar(4, (d) => d.setUint32(0, v.value, true))
    else if (v.kind === 'u64') scalar(8, (d) => d.setBigUint64(0, v.value, true))
    else if (v.kind === 'i32') scalar(4, (d) => d.setInt32(0, v.value, true))
    else if (v.kind === 'f32') scalar(4, (d) => d.setFloat32(0, v.value, true))
    else if (v.kind === 'bool') scalar(1, (d) => d.setUint8(0, v.value ? 1 : 0))
    else if (v.kind === 'str') string(v.value)
    else {
      scalar(4, (d) => d.setUint32(0, v.of, true))
      u64(v.items.length)
      v.items.forEach(value)
    }
  }
  parts.push(utf8.encode('GGUF'))
  scalar(4, (d) => d.setUint32(0, version, true))
  u64(tensors.length)
  u64(kv.length)
  for (const [key, v] of kv) {
    string(key)
    scalar(4, (d) => d.setUint32(0, TYPE_ID[v.kind], true))
    value(v)
  }
  const padded = (n: number) => Math.ceil(n / ALIGN) * ALIGN
  let offset = 0
  for (const t of tensors) {
    string(t.name)
    scalar(4, (d) => d.setUint32(0, t.ne.length, true))
    t.ne.forEach(u64)
    scalar(4, (d) => d.setUint32(0, GGML[t.type], true))
    u64(offset)
    offset += padded(byteLength(t.ne.reduce((a, b) => a * b, 1), t.type))
  }
  const headerLength = parts.reduce((s, p) => s + p.length, 0)
  const header = new Uint8Array(padded(headerLength))
  let at = 0
  for (const p of parts) {
    header.set(p, at)
    at += p.length
  }
  write(header)
  for (const t of tensors) {
    const blob = tensorBytes(t.data(), t.type)
    write(blob)
    if (padded(blob.length) > blob.length) write(new Uint8Array(padded(blob.length) - blob.length))
  }
}

/** Float initializers of a generated ONNX decoder, by name. */
function initializers(proto: OnnxNamespace.ModelProto): Map<string, { dims: number[]; data: Float32Array }> {
  const out = new Map<string, { dims: number[]; data: Float32Array }>()
  for (const t of proto.graph!.initializer ?? []) {
    if (t.dataType !== onnx().TensorProto.DataType.FLOAT || !t.rawData) continue
    const raw = new Uint8Array(t.rawData)
    out.set(t.name!, { dims: t.dims!.map(Number), data: new Float32Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength)) })
  }
  return out
}

const onnx = () => (createRequire(import.meta.url)('onnx-proto') as { onnx: typeof OnnxNamespace }).onnx
