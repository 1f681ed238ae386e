/**
 * The model flags of `sceptic evaluate`: those that change what the model computes
 * (docs/onnx.md, "Model variants", "Chat templates"): `--dtype NAME`, `--chat-template`,
 * `--system TEXT`, `--chat-template-kwargs JSON`; `--prepack-cache DIR`, which changes
 * only how fast an ONNX model starts ("Pre-packed weights"); and a GGUF model's
 * `--threads N` and `--sequences N` (docs/gguf.md). They apply only with `--model`; a flag
 * of one format given with a model of the other is refused ({@link refuseOtherFormatFlags}).
 */
import { integer, type OptionTable } from './args.ts'
import { DTYPES, type Dtype } from '../scorers/onnx/model/dtype.ts'
import { UsageError } from './usage-error.ts'

/** Parse specs of the model flags, spread into a command's options. */
export const MODEL_FLAGS = {
  dtype: { type: 'string', value: 'NAME', description: `model variant with --model: ${DTYPES.join(', ')} (default fp32 when present, else the one model file)` },
  'chat-template': { type: 'boolean', description: "with --model: render the model's own chat template around the prompt" },
  system: { type: 'string', value: 'TEXT', description: 'with --chat-template: the system message' },
  'chat-template-kwargs': { type: 'string', value: 'JSON', description: 'with --chat-template: template variables, e.g. \'{"enable_thinking": false}\'' },
  'prepack-cache': { type: 'string', value: 'DIR', description: "with --model: keep ORT's packed weights in DIR, so later runs start faster" },
  threads: { type: 'string', value: 'N', description: 'with --model FILE.gguf: llama.cpp threads (default 1 on 1-2 cores, else half the cores, at most 4)' },
  sequences: { type: 'string', value: 'N', description: 'with --model FILE.gguf: decisions evaluated side by side in one llama.cpp batch (default 1)' },
} as const satisfies OptionTable

/** Flags that shape one model format only (the ONNX pool's among them), by format. */
const FORMAT_FLAGS = { onnx: ['dtype', 'prepack-cache', 'batch-size', 'workers'], gguf: ['threads', 'sequences'] } as const

/** A one-line {@link UsageError} when a flag of the other format is given with a `format` model at `path`. */
export function refuseOtherFormatFlags(format: 'onnx' | 'gguf', path: string, options: ModelFlagOptions & { batchSize?: number | undefined; workers?: number | undefined }): void {
  const given: Record<string, unknown> = { dtype: options.dtype, 'prepack-cache': options.prepackCache, 'batch-size': options.batchSize, workers: options.workers, threads: options.threads, sequences: options.sequences }
  const other = FORMAT_FLAGS[format === 'onnx' ? 'gguf' : 'onnx'].find((flag) => given[flag] !== undefined)
  if (other) throw new UsageError(format === 'gguf' ? `--${other} applies only to ONNX model directories, not to a GGUF file (${path})` : `--${other} applies only to a GGUF model file, not to an ONNX model directory (${path})`)
}

/** The onnxScorer options the flags ask for. */
export interface ModelFlagOptions {
  /** `--dtype NAME`: the model variant (`fp32`, `fp16`, `q8`, `int8`, `uint8`, `q4`, `q4f16`), checked by the scorer. */
  dtype?: Dtype
  /** `--chat-template`: render the model's own chat template. */
  chatTemplate?: true
  /** `--system TEXT`: the system message. */
  system?: string
  /** `--chat-template-kwargs JSON`: template variables, a JSON object. */
  chatTemplateKwargs?: Record<string, unknown>
  /** `--prepack-cache DIR`: the packed-weights folder (the same numbers, a faster start). */
  prepackCache?: string
  /** `--threads N`: a GGUF model's llama.cpp threads. */
  threads?: number
  /** `--sequences N`: a GGUF model's sequences side by side. */
  sequences?: number
}

/** The flags as scorer options; a one-line {@link UsageError} for bad JSON or a flag without `--model`. */
export function modelOptionsFromFlags(values: Record<string, string | boolean | undefined>, hasModel: boolean): ModelFlagOptions {
  // --batch-size and --workers shape the ONNX pool: with --scorer they would be ignored.
  const given = [...Object.keys(MODEL_FLAGS), 'batch-size', 'workers'].filter((flag) => values[flag] !== undefined)
  if (given.length > 0 && !hasModel)
    throw new UsageError(`--${given[0]} applies only to ${(FORMAT_FLAGS.gguf as readonly string[]).includes(given[0]!) ? '--model FILE.gguf (a GGUF model)' : '--model DIR (an ONNX model)'}`)
  const out: ModelFlagOptions = {}
  const threads = integer(values.threads as string | undefined, 'threads', 1)
  if (threads !== undefined) out.threads = threads
  const sequences = integer(values.sequences as string | undefined, 'sequences', 1)
  if (sequences !== undefined) out.sequences = sequences
  if (typeof values.dtype === 'string') {
    if (!(DTYPES as readonly string[]).includes(values.dtype)) throw new UsageError(`--dtype must be one of ${DTYPES.join(', ')}, got "${values.dtype}"`)
    out.dtype = values.dtype as Dtype
  }
  if (values['chat-template'] === true) out.chatTemplate = true
  if (typeof values.system === 'string') out.system = values.system
  if (typeof values['prepack-cache'] === 'string') out.prepackCache = values['prepack-cache']
  const kwargs = values['chat-template-kwargs']
  if (typeof kwargs === 'string') {
    let parsed: unknown
    try {
      parsed = JSON.parse(kwargs)
    } catch (error) {
      throw new UsageError(`--chat-template-kwargs must be a JSON object, e.g. '{"enable_thinking": false}': ${(error as Error).message.split('\n')[0]}`)
    }
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw new UsageError(`--chat-template-kwargs must be a JSON object, e.g. '{"enable_thinking": false}', got ${Array.isArray(parsed) ? 'an array' : typeof parsed}`)
    out.chatTemplateKwargs = parsed as Record<string, unknown>
  }
  if ((out.system !== undefined || out.chatTemplateKwargs !== undefined) && !out.chatTemplate)
    throw new UsageError('--system and --chat-template-kwargs need --chat-template')
  return out
}
