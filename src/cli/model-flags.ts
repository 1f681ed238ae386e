/**
 * The ONNX model flags of `sceptic evaluate`: those that change what the model computes
 * (docs/onnx.md, "Model variants", "Chat templates"): `--dtype NAME`, `--chat-template`,
 * `--system TEXT`, `--chat-template-kwargs JSON`; and `--prepack-cache DIR`, which changes
 * only how fast it starts ("Pre-packed weights"). They apply only with `--model DIR`.
 */
import type { OptionTable } from './args.ts'
import { DTYPES, type Dtype } from '../scorers/onnx/model/dtype.ts'
import { UsageError } from './usage-error.ts'

/** Parse specs of the model flags, spread into a command's options. */
export const MODEL_FLAGS = {
  dtype: { type: 'string', value: 'NAME', description: `model variant with --model: ${DTYPES.join(', ')} (default fp32 when present, else the one model file)` },
  'chat-template': { type: 'boolean', description: "with --model: render the model's own chat template around the prompt" },
  system: { type: 'string', value: 'TEXT', description: 'with --chat-template: the system message' },
  'chat-template-kwargs': { type: 'string', value: 'JSON', description: 'with --chat-template: template variables, e.g. \'{"enable_thinking": false}\'' },
  'prepack-cache': { type: 'string', value: 'DIR', description: "with --model: keep ORT's packed weights in DIR, so later runs start faster" },
} as const satisfies OptionTable

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
}

/** The flags as scorer options; a one-line {@link UsageError} for bad JSON or a flag without `--model`. */
export function modelOptionsFromFlags(values: Record<string, string | boolean | undefined>, hasModel: boolean): ModelFlagOptions {
  // --batch-size and --workers shape the ONNX pool: with --scorer they would be ignored.
  const given = [...Object.keys(MODEL_FLAGS), 'batch-size', 'workers'].filter((flag) => values[flag] !== undefined)
  if (given.length > 0 && !hasModel) throw new UsageError(`--${given[0]} applies only to --model DIR (an ONNX model)`)
  const out: ModelFlagOptions = {}
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
