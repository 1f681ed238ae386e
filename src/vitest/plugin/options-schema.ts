/**
 * The keys of `sceptic()`'s options and of each `models.<name>` entry, checked when the
 * config is loaded: a misspelled one (`baselines`, `models.tiny.wokers`) is refused by name.
 */
import { z } from 'zod'
import { CacheOptionsSchema } from '../../cache/config.ts'
import type { SameKeys } from '../../core/support/options.ts'
import { SuiteDefaultsSchema } from '../../run/settings.ts'
import { OnnxScorerOptionsSchema } from '../../scorers/onnx/options-schema.ts'
import { ScepticReporterOptionsSchema } from '../reporter/options-schema.ts'
import type { SharedModelOptions } from '../suite/context.ts'

/** One shared model's options: the ONNX scorer's that cross processes as JSON. */
export const SharedModelOptionsSchema = OnnxScorerOptionsSchema.pick({
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
true satisfies SameKeys<z.input<typeof SharedModelOptionsSchema>, SharedModelOptions>

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
