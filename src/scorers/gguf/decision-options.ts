/**
 * The options of `ggufDecisionScorer`, checked by one strict schema: a misspelt key, or an
 * option of the letter readout that `decide()` has no use for (`template`, `kvCacheType`), is a
 * {@link ConfigError} naming it; every number is bounded.
 */
import { resolve } from 'node:path'
import { z } from 'zod'
import { ConfigError } from '../../core/support/errors.ts'
import { refuseUnknownOptions, type SameKeys } from '../../core/support/options.ts'
import { defaultThreads } from './options.ts'

/** How `decide()` frames its question: node-llama-cpp's chat wrapper for the model (`'auto'`, decide's default), or no chat at all (`'plain'`). */
export const DECISION_CHAT_WRAPPERS = ['auto', 'plain'] as const
/** One of {@link DECISION_CHAT_WRAPPERS}. */
export type DecisionChatWrapper = (typeof DECISION_CHAT_WRAPPERS)[number]

/** Options of `ggufDecisionScorer`. Only `model` is required. */
export interface GgufDecisionScorerOptions {
  /** Path of the `.gguf` file. */
  model: string
  /**
   * `'auto'` (default): the question as an application's `decide()` asks it, inside node-llama-cpp's
   * chat wrapper for the model (its chat template, or a generic `### Human` / `### Assistant` one).
   * `'plain'`: no chat turns: the state, decide's question block, then `Answer:`, as the
   * letter readout frames its prompt.
   */
  chatWrapper?: DecisionChatWrapper
  /** Context per question, in tokens: a longer prompt is a `too_long` failure. Default: the model's trained context, at most 4096. */
  contextLength?: number
  /** llama.cpp threads. Default as `ggufScorer`: 1 on a machine of 1–2 cores, else half the cores, at most 4. */
  threads?: number
  /** Most tokens in one llama.cpp batch. Default 512. */
  batchSize?: number
}

// Capped as ggufScorer's: past these llama.cpp allocates without bound or asserts.
const positive = z.number().int().positive()
export const GgufDecisionScorerOptionsSchema = z.strictObject({
  model: z.string().min(1),
  chatWrapper: z.enum(DECISION_CHAT_WRAPPERS).optional(),
  contextLength: positive.max(2 ** 20).optional(),
  threads: positive.max(1024).optional(),
  batchSize: positive.max(65_536).optional(),
})
true satisfies SameKeys<z.input<typeof GgufDecisionScorerOptionsSchema>, GgufDecisionScorerOptions>

/** What the options resolve to on this machine. */
export interface GgufDecisionScorerSettings {
  /** Absolute path of the GGUF file. */
  readonly modelPath: string
  readonly chatWrapper: DecisionChatWrapper
  readonly contextLength: number | undefined
  readonly threads: number
  readonly batchSize: number
}

/** `options` checked: a {@link ConfigError} naming the first key that is unknown or of the wrong type. */
export function parseDecisionOptions(options: unknown): GgufDecisionScorerOptions {
  if (options === null || typeof options !== 'object') throw new ConfigError('ggufDecisionScorer: pass an options object, e.g. ggufDecisionScorer({ model: "models/tiny.gguf" })')
  refuseUnknownOptions(GgufDecisionScorerOptionsSchema, options, 'ggufDecisionScorer options')
  const parsed = GgufDecisionScorerOptionsSchema.safeParse(options)
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]!
  const key = issue.path.join('.') || 'options'
  if (key === 'model') throw new ConfigError('ggufDecisionScorer: `model` (the path of a .gguf file) is required')
  throw new ConfigError(`ggufDecisionScorer: \`${key}\`: ${issue.message}`)
}

/** Settings for `options`. */
export function resolveDecisionSettings(options: GgufDecisionScorerOptions): GgufDecisionScorerSettings {
  return {
    modelPath: resolve(options.model),
    chatWrapper: options.chatWrapper ?? 'auto',
    contextLength: options.contextLength,
    threads: options.threads ?? defaultThreads(),
    batchSize: options.batchSize ?? 512,
  }
}
