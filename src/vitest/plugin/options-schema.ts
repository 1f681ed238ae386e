/**
 * The keys of `sceptic()`'s options and of each `models.<name>` entry, checked when the
 * config is loaded: a misspelled one (`baselines`, `models.tiny.wokers`), or one of the other
 * scorer (`workers` on a GGUF file), is refused by name.
 */
import { z } from 'zod'
import { CacheOptionsSchema } from '../../cache/config.ts'
import { optionKeys, refuseUnknownOptions, shownKey, type SameKeys } from '../../core/support/options.ts'
import { ConfigError } from '../../core/support/errors.ts'
import { SuiteDefaultsSchema } from '../../run/settings.ts'
import { OnnxScorerOptionsSchema } from '../../scorers/onnx/options-schema.ts'
import { ScepticReporterOptionsSchema } from '../../suite/reporter-options.ts'
import { GgufScorerOptionsSchema } from '../../scorers/gguf/options.ts'
import type { SharedGgufModelOptions, SharedOnnxModelOptions } from '../../suite/context.ts'

/** A shared ONNX model directory's options: the ONNX scorer's that cross processes as JSON. */
export const SharedOnnxModelOptionsSchema = OnnxScorerOptionsSchema.pick({
  model: true,
  batchSize: true,
  workers: true,
  threadsPerWorker: true,
  executionProviders: true,
  dtype: true,
  chatTemplate: true,
  system: true,
  chatTemplateKwargs: true,
  prepackCache: true,
})
true satisfies SameKeys<z.input<typeof SharedOnnxModelOptionsSchema>, SharedOnnxModelOptions>

/** A shared GGUF file's options: ggufScorer's own, but `template` (a function does not cross processes). */
export const SharedGgufModelOptionsSchema = GgufScorerOptionsSchema.omit({ template: true })
true satisfies SameKeys<z.input<typeof SharedGgufModelOptionsSchema>, SharedGgufModelOptions>

/** Every key a shared model's entry may hold; which scorer's keys apply depends on its model path ({@link refuseOtherScorerKeys}). */
export const SharedModelOptionsSchema = z.strictObject({ ...SharedOnnxModelOptionsSchema.shape, ...SharedGgufModelOptionsSchema.shape })

/** The keys of `ScepticPluginOptions` (kept equal to them in plugin.ts); the suite defaults are {@link SuiteDefaultsSchema}'s. */
export const ScepticPluginOptionsSchema = SuiteDefaultsSchema.extend({
  baseline: z.string().optional(),
  include: z.array(z.string()).optional(),
  reporter: z.union([z.boolean(), ScepticReporterOptionsSchema]).optional(),
  alpha: z.number().optional(),
  detectableDrop: z.number().optional(),
  progress: z.union([z.boolean(), z.literal('auto')]).optional(),
  // Model names are the user's; each entry's keys are options.
  models: z.record(z.string(), z.union([z.string(), SharedModelOptionsSchema])).optional(),
  cache: z.union([CacheOptionsSchema, z.literal(false)]).optional(),
})

/** The scorer a `models` entry starts: a GGUF file's or an ONNX directory's; `undefined` while its path cannot tell (checked later). */
export type ModelEngine = 'gguf' | 'onnx' | undefined

const ENGINES = {
  gguf: { schema: SharedGgufModelOptionsSchema, is: 'a GGUF file', other: 'ONNX model directories' },
  onnx: { schema: SharedOnnxModelOptionsSchema, is: 'an ONNX model directory', other: 'GGUF files' },
} as const

/**
 * Refuse a key of a `models` entry that its own scorer does not take, naming the entry and the
 * key: a GGUF file takes ggufScorer's options, an ONNX directory the ONNX scorer's. A key of
 * the other scorer says so; any other key gets the nearest key of its own scorer. `engine`
 * places a model path; an entry it cannot place yet is left for a later call, and one with no
 * model path is checked against both scorers' keys.
 */
export function refuseOtherScorerKeys(models: unknown, engine: (model: string) => ModelEngine): void {
  if (models === null || typeof models !== 'object' || Array.isArray(models)) return
  for (const [name, entry] of Object.entries(models)) {
    if (entry === null || typeof entry !== 'object' || Array.isArray(entry)) continue
    const model = (entry as { model?: unknown }).model
    const kind = typeof model === 'string' ? engine(model) : undefined
    if (typeof model === 'string' && kind === undefined) continue
    const schema = kind === undefined ? SharedModelOptionsSchema : ENGINES[kind].schema
    if (kind !== undefined) {
      const own = optionKeys(schema)
      const foreign = Object.keys(entry).find((key) => !own.includes(key) && optionKeys(SharedModelOptionsSchema).includes(key))
      if (foreign !== undefined) {
        const { is, other } = ENGINES[kind]
        throw new ConfigError(`unknown option \`${shownKey(`models.${name}.${foreign}`)}\` in sceptic() options — \`${foreign}\` is for ${other}; ${shownKey(`models.${name}`)} is ${is}, which takes ${own.map((key) => `\`${key}\``).join(', ')}`)
      }
    }
    refuseUnknownOptions(schema, entry, 'sceptic() options', ['models', name])
  }
}
