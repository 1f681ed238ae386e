/**
 * What to feed a model, decided from its declared inputs and outputs (ORT's
 * `inputMetadata` / `outputMetadata`). Pure: the worker calls it after creating the
 * session, the tests call it with hand-written metadata.
 */
import type { ConfigShape } from './model-config.ts'

/** The part of ORT's value metadata this module reads. */
export interface ValueInfo {
  /** Input or output name. */
  readonly name: string
  /** Whether the value is a tensor (ORT also has sequences and maps). */
  readonly isTensor: boolean
  /** Element type, e.g. `float32`, `int64`; absent for non-tensors. */
  readonly type?: string
  /** Dimensions: numbers for fixed sizes, strings for symbolic ones. */
  readonly shape?: ReadonlyArray<number | string>
}

/** One `past_key_values.*` input, fed as an empty (length 0) cache. */
export interface PastInput {
  /** Input name, e.g. `past_key_values.0.key`. */
  readonly name: string
  /** Element type: `float32` or `float16`. */
  readonly type: 'float32' | 'float16'
  /** Key/value heads (fewer than query heads under grouped-query attention). */
  readonly kvHeads: number
  /** Width of one head. */
  readonly headDim: number
  /** The matching output (`present.{i}.key|value`) holding the cache after a run, when the model has it. */
  readonly present?: string
}

/** How to build the feeds for a model. */
export interface InputPlan {
  /** The model takes `attention_mask` (Optimum exports do). Without it rows of a batch must have equal length. */
  readonly attentionMask: boolean
  /** The model takes `position_ids`; fed as cumsum(mask) − 1. */
  readonly positionIds: boolean
  /** Empty caches to feed (all declared past inputs are mandatory, even on a first pass). */
  readonly past: readonly PastInput[]
  /** Name of a `use_cache_branch` input (merged decoders), fed `false`. */
  readonly useCacheBranch: string | undefined
  /** Vocabulary size from the `logits` shape, when fixed. */
  readonly vocab: number | undefined
  /** Element type of `logits`: `float32` or `float16`. */
  readonly logitsType: 'float32' | 'float16'
  /**
   * The model can continue from a cache: every past input has its `present.*` output
   * and the model takes `attention_mask` (suffixes of different lengths are padded
   * between prefix and suffix, which only a mask can express). Prefix sharing needs it.
   */
  readonly prefixCache: boolean
}

/** A model that cannot be scored; the message names the model file. */
export class ModelIoError extends Error {
  override name = 'ModelIoError'
}

const PAST = /^past_key_values\.\d+\.(key|value)$/

/**
 * Decide the feeds, or throw a {@link ModelIoError} naming `modelPath` and the offending
 * name. `config` (from config.json) supplies KV heads and head width where the graph leaves
 * them symbolic; where both give a number they must agree, as must the layer count.
 */
export function planInputs(inputs: readonly ValueInfo[], outputs: readonly ValueInfo[], modelPath: string, config?: ConfigShape): InputPlan {
  const names = inputs.map((v) => v.name)
  const list = (values: readonly ValueInfo[]): string => values.map((v) => v.name).join(', ') || 'none'
  const fail = (message: string): never => {
    throw new ModelIoError(`${modelPath}: ${message}`)
  }
  if (!names.includes('input_ids'))
    fail(`the model has no "input_ids" input (its inputs: ${list(inputs)}); expected a decoder exported in the Hugging Face Optimum layout`)
  const logits = outputs.find((v) => v.name === 'logits')
  if (!logits) fail(`the model has no "logits" output (its outputs: ${list(outputs)}); expected a causal-LM head with logits [batch, sequence, vocab]`)
  const logitsType = logits!.type
  if (logitsType !== 'float32' && logitsType !== 'float16') fail(`"logits" has element type ${logitsType ?? 'unknown'}; float32 or float16 expected`)
  const vocabDim = logits!.shape?.[2]
  const past: PastInput[] = []
  let useCacheBranch: string | undefined
  for (const input of inputs) {
    if (input.name === 'input_ids' || input.name === 'attention_mask' || input.name === 'position_ids') continue
    if (input.name === 'use_cache_branch') {
      useCacheBranch = input.name
      continue
    }
    if (PAST.test(input.name)) {
      const [, graphHeads, , graphDim] = input.shape ?? []
      const agree = (what: string, graph: number | string | undefined, declared: number | undefined, key: string): number | string | undefined => {
        if (typeof graph === 'number' && declared !== undefined && graph !== declared)
          fail(`input "${input.name}" has ${what} ${graph}, but ${config!.path} says ${key} ${declared}; the config and the model do not belong together`)
        return declared ?? graph
      }
      const kvHeads = agree('kv_heads', graphHeads, config?.kvHeads, 'num_key_value_heads')
      const headDim = agree('head_dim', graphDim, config?.headDim, 'head_dim')
      if (typeof kvHeads !== 'number' || typeof headDim !== 'number')
        fail(`input "${input.name}" has shape [${(input.shape ?? []).join(', ')}]; [batch, kv_heads, past, head_dim] with fixed kv_heads and head_dim expected`)
      if (input.type !== 'float32' && input.type !== 'float16') fail(`input "${input.name}" has element type ${input.type}; float32 or float16 expected`)
      // Optimum names the cache a run returns `present.{i}.key|value` (older exports `present_key_values.*`).
      const suffix = input.name.slice('past_key_values.'.length)
      const present = outputs.find((v) => v.name === `present.${suffix}` || v.name === `present_key_values.${suffix}`)?.name
      past.push({ name: input.name, type: input.type as 'float32' | 'float16', kvHeads: kvHeads as number, headDim: headDim as number, ...(present ? { present } : {}) })
      continue
    }
    fail(`the model has an input "${input.name}" the scorer cannot fill (it feeds input_ids, attention_mask, position_ids, past_key_values.*, use_cache_branch)`)
  }
  if (config?.layers !== undefined && past.length > 0 && past.length !== 2 * config.layers)
    fail(`the model has ${past.length / 2} layers of past_key_values inputs, but ${config.path} says num_hidden_layers ${config.layers}; the config and the model do not belong together`)
  return {
    attentionMask: names.includes('attention_mask'),
    positionIds: names.includes('position_ids'),
    past,
    useCacheBranch,
    vocab: typeof vocabDim === 'number' ? vocabDim : undefined,
    logitsType: logitsType as 'float32' | 'float16',
    prefixCache: past.length > 0 && past.every((p) => p.present !== undefined) && names.includes('attention_mask'),
  }
}
