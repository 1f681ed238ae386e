/**
 * The GGUF scorer's options, checked by one strict schema (a misspelt key is a
 * {@link ConfigError} naming it), the settings they resolve to on this machine, and its
 * running totals.
 */
import { availableParallelism } from 'node:os'
import { resolve } from 'node:path'
import { z } from 'zod'
import type { Criterion } from '../../core/decisions/schema.ts'
import { ConfigError } from '../../core/support/errors.ts'
import { refuseUnknownOptions } from '../../core/support/options.ts'
import type { ChatOptions } from '../prompt/chat-template.ts'

/** KV cache element types the scorer offers (llama.cpp's names). */
export const KV_CACHE_TYPES = ['F32', 'F16', 'Q8_0'] as const
/** One of {@link KV_CACHE_TYPES}. */
export type KvCacheType = (typeof KV_CACHE_TYPES)[number]

const positive = z.number().int().positive()
// Strict: an unknown key (a misspelling, an ONNX-only option) is refused, never ignored.
export const GgufScorerOptionsSchema = z.strictObject({
  model: z.string().min(1),
  chatTemplate: z.union([z.boolean(), z.string()]).optional(),
  system: z.string().optional(),
  chatTemplateKwargs: z.record(z.string(), z.unknown()).optional(),
  template: z.custom<(state: string, criterion: Criterion) => string>((value) => typeof value === 'function', 'a function (state, criterion) => string').optional(),
  // Capped: past these llama.cpp allocates without bound or asserts.
  contextLength: positive.max(2 ** 20).optional(),
  sequences: positive.max(256).optional(),
  threads: positive.max(1024).optional(),
  batchSize: positive.max(65_536).optional(),
  kvCacheType: z.enum(KV_CACHE_TYPES).optional(),
  flashAttention: z.boolean().optional(),
})

/** Options of `ggufScorer`. Only `model` is required. */
export interface GgufScorerOptions extends ChatOptions {
  /** Path of the `.gguf` file (one file: split GGUF models are not read). */
  model: string
  /** Prompt text for a request. Default: the request's own `prompt`. Same signature as the evaluator's `template` option. */
  template?: (state: string, criterion: Criterion) => string
  /**
   * Longest prompt, in tokens: a longer one comes back as a `too_long` failure. Each
   * sequence reserves a KV cache this long. Default: the model's trained context, at most 4096.
   */
  contextLength?: number
  /** Sequences evaluated side by side, each holding one decision's prefix; their prefixes share llama.cpp batches, their letter reads take turns. Default 1 (2 or 4 measured no less CPU on 2 cores). */
  sequences?: number
  /**
   * llama.cpp threads. Default 1 on a machine of 1–2 cores, else half the cores, at most 4:
   * llama.cpp's threads wait for each other by spinning, so a thread that shares its core
   * stalls them all (measured on 2 busy cores: 40 decisions in 0.7 s with 1 thread, 79 s with 2).
   */
  threads?: number
  /** Most tokens in one llama.cpp batch. Default 512. */
  batchSize?: number
  /**
   * KV cache element type. Default `'F32'`: the probabilities the weights give (within 1e-6 of a
   * float64 forward pass on the test models). llama.cpp's own default, `'F16'`, moved them by 2.7e-3 on a test model.
   */
  kvCacheType?: KvCacheType
  /** llama.cpp's flash attention. Default false: with it, probabilities moved by 2.8e-3 on a test model. */
  flashAttention?: boolean
}

/** What the options resolve to on this machine. */
export interface GgufScorerSettings {
  /** Absolute path of the GGUF file. */
  readonly modelPath: string
  readonly contextLength: number | undefined
  readonly sequences: number
  readonly threads: number
  readonly batchSize: number
  readonly kvCacheType: KvCacheType
  readonly flashAttention: boolean
}

/** Running totals of a GGUF scorer (live, updated as calls are scored). */
export interface GgufScorerStats {
  /** Requests scored. */
  requests: number
  /** Tokens of the full prompts of those requests. */
  promptTokens: number
  /** Tokens llama.cpp evaluated: each shared prefix once plus every suffix and full prompt. */
  tokensEvaluated: number
  /** The fewest tokens that could give every request's probabilities: each distinct token prefix of a call once. */
  minimumTokens: number
}

/** `options` checked: a {@link ConfigError} naming the first key that is unknown or of the wrong type. */
export function parseOptions(options: unknown): GgufScorerOptions {
  if (options === null || typeof options !== 'object') throw new ConfigError('ggufScorer: pass an options object, e.g. ggufScorer({ model: "models/tiny.gguf" })')
  // The one rule for unknown keys (the nearest valid key named), then the values.
  refuseUnknownOptions(GgufScorerOptionsSchema, options, 'ggufScorer options')
  const parsed = GgufScorerOptionsSchema.safeParse(options)
  if (parsed.success) return parsed.data as GgufScorerOptions
  const issue = parsed.error.issues[0]!
  const key = issue.path.join('.') || 'options'
  if (key === 'model') throw new ConfigError('ggufScorer: `model` (the path of a .gguf file) is required')
  throw new ConfigError(`ggufScorer: \`${key}\`: ${issue.message}`)
}

/** Settings for `options`, given the model's trained context (`undefined`: unknown). */
export function resolveSettings(options: GgufScorerOptions, trainContext?: number): GgufScorerSettings {
  return {
    modelPath: resolve(options.model),
    contextLength: options.contextLength ?? (trainContext === undefined ? undefined : Math.min(trainContext, 4096)),
    // One sequence by default: more give the same numbers (startup.ts) but measured no faster on 2 cores.
    sequences: options.sequences ?? 1,
    threads: options.threads ?? defaultThreads(),
    batchSize: options.batchSize ?? 512,
    kvCacheType: options.kvCacheType ?? 'F32',
    flashAttention: options.flashAttention ?? false,
  }
}

/** llama.cpp threads when none are asked for: 1 on 1–2 cores, else half the cores, at most 4 (see {@link GgufScorerOptions.threads}). */
export function defaultThreads(): number {
  const cores = Math.max(1, availableParallelism())
  return cores <= 2 ? 1 : Math.min(4, Math.floor(cores / 2))
}
