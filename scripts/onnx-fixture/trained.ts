/**
 * The trained example models (scripts/train/train.py): their committed weights
 * (`examples/models/weights/*.safetensors`, Hugging Face Qwen2 names and `[out, in]` layout,
 * float32), tokenizer and config, turned into the fixture decoder's options so the project's
 * own writers (ONNX here, GGUF in gguf.ts) emit every format from the same weights.
 */
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { DecoderOptions } from './decoder.ts'
import type { TokenizerJson } from './tokenizers.ts'

/** The trained models, by the name of their weights file. */
export const TRAINED_MODELS = ['reader', 'biased'] as const
export type TrainedModel = (typeof TRAINED_MODELS)[number]

/** A float32 tensor of a safetensors file. */
export interface Tensor {
  readonly dims: number[]
  readonly data: Float32Array
}

/** Read a safetensors file of F32 tensors (8-byte little-endian header length, JSON header, raw data). */
export function readSafetensors(path: string): Map<string, Tensor> {
  const bytes = readFileSync(path)
  const headerLength = Number(bytes.readBigUInt64LE(0))
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8')) as Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>
  const base = 8 + headerLength
  const out = new Map<string, Tensor>()
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue
    if (info.dtype !== 'F32') throw new Error(`${path}: ${name} is ${info.dtype}, only F32 is read`)
    const [start, end] = info.data_offsets
    const copy = new Uint8Array(bytes.subarray(base + start, base + end))
    out.set(name, { dims: info.shape, data: new Float32Array(copy.buffer) })
  }
  return out
}

/** Check every file SHA256SUMS lists in `dir`; throws naming the first file that differs. */
export function verifyManifest(dir: string): string {
  const manifest = readFileSync(join(dir, 'SHA256SUMS'), 'utf8')
  for (const line of manifest.trim().split('\n')) {
    const [sum, file] = line.split(/\s+/) as [string, string]
    const actual = createHash('sha256').update(readFileSync(join(dir, file))).digest('hex')
    if (actual !== sum) throw new Error(`${join(dir, file)}: sha256 ${actual}, SHA256SUMS says ${sum}`)
  }
  return createHash('sha256').update(manifest).digest('hex')
}

/** `[rows, cols]` row-major → `[cols, rows]`. */
function transpose({ dims, data }: Tensor): Float32Array {
  const [rows, cols] = dims as [number, number]
  const out = new Float32Array(data.length)
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c]!
  return out
}

/**
 * The decoder options of trained model `name` in `weightsDir`: the Qwen2 shape from config.json and
 * the weights in the ONNX layout (Linear weights transposed to `[in, out]`; the embedding, which the
 * tied head also reads, as stored).
 */
export function trainedDecoder(weightsDir: string, name: TrainedModel): DecoderOptions & { vocab: number } {
  const config = JSON.parse(readFileSync(join(weightsDir, 'config.json'), 'utf8')) as Record<string, number>
  const weights = new Map<string, Float32Array>()
  for (const [key, tensor] of readSafetensors(join(weightsDir, `${name}.safetensors`)))
    weights.set(key, tensor.dims.length === 2 && key !== 'model.embed_tokens.weight' ? transpose(tensor) : tensor.data)
  return {
    architecture: 'qwen2',
    hidden: config.hidden_size!,
    layers: config.num_hidden_layers!,
    heads: config.num_attention_heads!,
    kvHeads: config.num_key_value_heads!,
    ffn: config.intermediate_size!,
    vocab: config.vocab_size!,
    ropeTheta: config.rope_theta!,
    rmsEps: config.rms_norm_eps!,
    maxPositions: config.max_position_embeddings!,
    weights,
  }
}

/** The trained models' tokenizer.json. */
export function trainedTokenizer(weightsDir: string): TokenizerJson {
  return JSON.parse(readFileSync(join(weightsDir, 'tokenizer.json'), 'utf8')) as TokenizerJson
}
