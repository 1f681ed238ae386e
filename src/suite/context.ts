/**
 * What a runner's face hands to the suite: the root, where baselines live, the snapshot
 * update mode and whether to emit progress. The Vitest plugin provides it to test workers
 * (docs/design.md#vitest-mechanics-the-code-relies-on); the Jest face builds it per run.
 */
import type { CacheOptions } from '../cache/config.ts'
import type { GgufScorerOptions } from '../scorers/gguf/options.ts'
import type { Dtype } from '../scorers/onnx/model/dtype.ts'
import type { SuiteDefaults } from '../run/settings.ts'

/** The value the plugin provides under the `sceptic` key. */
export interface ScepticContext {
  /** The Vitest project root (absolute). Relative `data` paths resolve against it. */
  root: string
  /** Absolute baseline directory, or `null` when the baseline gate is off. */
  baseline: string | null
  /** Vitest's snapshot update mode at startup: `all` under `-u`, `none` under CI, else `new`. */
  update: 'all' | 'new' | 'none'
  /** Whether suites report scoring progress (an interactive terminal, not CI). */
  progress: boolean
  /** Significance level of the baseline gate. */
  alpha: number
  /** The drop in order consistency the baseline gate should be able to detect (share of decisions). */
  detectableDrop: number
  /** The plugin's score cache setting (`dir` absolute), or `false` (off); suites' own `cache` wins. */
  cache?: CacheOptions | false
  /** Shared models by name: scorer options with an absolute `model` path (see `sharedModel`). */
  models?: Record<string, SharedModelOptions>
  /** Vitest's `--shard i/n` of this run (1-based `index` of `count`), when sharded: suites with `shard: 'decisions'` split by it. */
  shard?: { index: number; count: number }
  /** The plugin's suite defaults (checked); a suite's own options win. Absent when none is set. */
  defaults?: SuiteDefaults
}

/** How the plugin starts one shared model: an ONNX model directory's options or a GGUF file's (JSON only: they cross processes). */
export type SharedModelOptions = SharedOnnxModelOptions | SharedGgufModelOptions

/** A GGUF file's: ggufScorer's options but `template` (a function does not cross processes). */
export type SharedGgufModelOptions = Omit<GgufScorerOptions, 'template'>

/** An ONNX model directory's: the ONNX scorer's options that are JSON. */
export interface SharedOnnxModelOptions {
  /** Absolute model directory. */
  model: string
  /** Prompts per run. */
  batchSize?: number
  /** Worker threads of the shared pool. */
  workers?: number
  /** ORT threads per worker. */
  threadsPerWorker?: number
  /** Execution providers, e.g. `['cuda', 'cpu']`. */
  executionProviders?: string[]
  /** Model variant: `fp32`, `fp16`, `q8`, `int8`, `uint8`, `q4`, `q4f16` (docs/onnx.md, "Model variants"). */
  dtype?: Dtype
  /** `true`: the model's chat template; a string: your own (docs/onnx.md, "Chat templates"). */
  chatTemplate?: boolean | string
  /** System message of the chat template. */
  system?: string
  /** Chat template variables, e.g. `{ enable_thinking: false }`. */
  chatTemplateKwargs?: Record<string, unknown>
  /** ORT's packed weights kept in this folder across runs (docs/onnx.md, "Pre-packed weights"); relative to the root. */
  prepackCache?: string
}

export { DEFAULT_ALPHA, DEFAULT_DETECTABLE_DROP } from './baseline/run-gate.ts'
