/** The keys of `onnxScorer`'s options, checked where they are given: a misspelled one is refused by name. */
import { z } from 'zod'
import { MAX_TIMER_MS } from '../../core/support/abort.ts'
import type { SameKeys } from '../../core/support/options.ts'
import type { Criterion } from '../../core/decisions/schema.ts'
import { DTYPES } from './model/dtype.ts'
import type { OnnxScorerOptions } from './options.ts'

/** See {@link OnnxScorerOptions} for each option's meaning. */
export const OnnxScorerOptionsSchema = z.strictObject({
  model: z.string(),
  dtype: z.enum(DTYPES).optional(),
  // Every number bounded: whole, positive, and capped where a huge value would reach native allocation.
  batchSize: z.number().int().min(1).max(4096).optional(),
  workers: z.number().int().min(1).max(1024).optional(),
  threadsPerWorker: z.number().int().min(1).max(1024).optional(),
  template: z.custom<(state: string, criterion: Criterion) => string>().optional(),
  // A provider object's other keys are ORT's provider options, passed through as given.
  executionProviders: z.array(z.union([z.string(), z.looseObject({ name: z.string() })])).readonly().optional(),
  maxLogitsBytes: z.number().int().min(1).max(2 ** 32).optional(),
  prefixSharing: z.enum(['batched', 'sequential', 'off']).optional(),
  contextLength: z.number().int().min(1).max(2 ** 20).optional(),
  readout: z.enum(['auto', 'full']).optional(),
  prepackCache: z.string().optional(),
  faults: z.strictObject({ tokenId: z.number().int().min(0).max(MAX_TIMER_MS), times: z.number().int().min(0).max(1_000_000) }).optional(),
  chatTemplate: z.union([z.boolean(), z.string()]).optional(),
  system: z.string().optional(),
  // Template variables are the template's, not options.
  chatTemplateKwargs: z.record(z.string(), z.unknown()).optional(),
})
true satisfies SameKeys<z.input<typeof OnnxScorerOptionsSchema>, OnnxScorerOptions>
