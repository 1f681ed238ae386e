/**
 * The ONNX scorer's contract: its options, the settings it resolves them to, its running
 * totals and the scorer object itself (with its lifecycle). Types only.
 */
import type { ConfigError } from '../../core/support/errors.ts'
import type { FallibleScoreFn, ScoreContext, ScoreFailure, ScoreRequest } from '../../core/scorer/contract.ts'
import type { CacheIdentity } from '../../core/scorer/contract.ts'
import type { ChatOptions } from '../prompt/chat-template.ts'
import type { Criterion } from '../../core/decisions/schema.ts'
import type { Dtype } from './model/dtype.ts'
import type { InputPlan } from './model/model-io.ts'
import type { WorkerPool } from './runtime/pool.ts'
import type { QuantizationInfo } from './model/quantization-info.ts'

/** An execution provider for ORT: `'cpu'`, `'cuda'`, or `{ name: 'cuda', deviceId: 1, … }` (passed through as is). */
export type ExecutionProvider = string | { readonly name: string; readonly [option: string]: unknown }

/** Options of `onnxScorer`. Only `model` is required. */
export interface OnnxScorerOptions extends ChatOptions {
  /** Model directory: `tokenizer.json` plus `model.onnx` (or `onnx/model.onnx`), as Optimum exports them. */
  model: string
  /**
   * Model variant, named as transformers.js names them: `fp32` (`model.onnx`), `fp16`
   * (`model_fp16.onnx`), `q8` (`model_quantized.onnx`), `int8`, `uint8`, `q4`, `q4f16`.
   * Default `fp32` when present, else the single variant present. A missing variant is a
   * {@link ConfigError} listing the variants found.
   */
  dtype?: Dtype
  /**
   * Most prompts per `session.run`. Default 4: one decision's rotations under
   * `cyclic` with 4 options. Single-thread sessions gain nothing from bigger batches
   * (per-thread throughput drops slightly at 8), and padding grows. Runs are also split so
   * every worker has work, and so a run's logits (`rows × tokens × vocab × 4` bytes)
   * stay under `maxLogitsBytes`.
   */
  batchSize?: number
  /**
   * Worker threads, each holding its own session (its own copy of the weights).
   * Default 2 on the CPU (two single-thread sessions beat one two-thread session by
   * 10–15%), 1 with a GPU provider; never more than `os.availableParallelism()`.
   */
  workers?: number
  /**
   * ORT intra-op threads per worker. Default `availableParallelism() / workers`,
   * rounded down, at least 1. `workers × threadsPerWorker` is capped at the core count:
   * oversubscribed spinning ORT threads cost 15–25%. Inter-op threads are always 1.
   */
  threadsPerWorker?: number
  /**
   * Prompt text for a request. Default: the request's own `prompt` (docs/data-format.md#the-prompt;
   * "Prompt"). Same signature as the evaluator's `template` option.
   */
  template?: (state: string, criterion: Criterion) => string
  /** ORT execution providers, in preference order. Default `['cpu']`; `'cuda'` is passed through where installed. */
  executionProviders?: readonly ExecutionProvider[]
  /**
   * Largest logits tensor one run may produce, in bytes. Default 256 MiB. Optimum
   * exports return logits for every position: with a 150k vocabulary a single
   * 230-token prompt is already 140 MB, so large-vocabulary models run one prompt at a time.
   */
  maxLogitsBytes?: number
  /**
   * Score shared leading tokens once (docs/onnx-prompts.md#prefix-sharing).
   * Adjacent requests with a long common token prefix (a decision's orderings, its
   * epochs, several criteria on one state) run that prefix once and only their
   * suffixes against its key/value cache: `'batched'` (default) runs up to `batchSize`
   * suffixes per run on a tiled cache, `'sequential'` one suffix per run on the
   * untiled cache, `'off'` always scores full prompts. Models without past inputs,
   * `present.*` outputs or `attention_mask` always get full prompts. Results equal
   * full-prompt scoring within float rounding (1e-5 in fp32, tested).
   */
  prefixSharing?: PrefixSharing
  /**
   * Longest prompt the model takes, in tokens. A longer prompt is not run: its request
   * comes back as a `too_long` failure. Default: `max_position_embeddings` (or
   * `n_positions`, `max_seq_len`, `n_ctx`) from `config.json` in the model directory,
   * as Optimum exports it; no limit when there is none.
   */
  contextLength?: number
  /**
   * How the letters are read (docs/onnx.md, "The letter readout at startup"). `'auto'`
   * (default): the graph is rewritten once at startup, into a temporary directory, so its
   * LM head computes only the option letters' rows at the last position (the same
   * probabilities within 1e-5; a large vocabulary's head is a large share of the work);
   * where that is not possible (onnx-proto not installed, an unrecognised head, external
   * data on another file system) the full logits are read and the manifest's `readout`
   * says why. `'full'`: the graph as exported, logits over the vocabulary at every position.
   */
  readout?: ReadoutMode
  /**
   * A folder for ORT's packed weights, kept across runs (docs/onnx.md, "Pre-packed weights").
   * Creating a session re-lays out every MatMul weight for the CPU's kernels (at a
   * 0.5B-parameter shape about 1.1 s of each worker's load, with a copy per worker). With this
   * folder, the first run on this machine saves the optimized graph with its packed weights
   * (that run's load takes longer: it writes about 1.7× the weights), and later runs load
   * them from disk: no packing, one shared copy. Entries are keyed by the graph, its weight
   * files, the ORT version and the CPU; the newest 2 are kept. CPU provider only. Default: off.
   */
  prepackCache?: string
  /** @internal Test-only: a worker exits (as if it crashed) on a batch holding `tokenId`, `times` times in all. */
  faults?: { readonly tokenId: number; readonly times: number }
}

/** How the letters are read: {@link OnnxScorerOptions.readout}. */
export type ReadoutMode = 'auto' | 'full'

/** How {@link OnnxScorerOptions.prefixSharing} runs suffixes, or `'off'`. */
export type PrefixSharing = 'batched' | 'sequential' | 'off'

/** The pool shape and limits actually used, after defaults and the core cap. */
export interface OnnxScorerSettings {
  /** Absolute path of the model file. */
  readonly modelPath: string
  /** The model variant loaded. */
  readonly dtype: Dtype
  /** Worker threads. */
  readonly workers: number
  /** Intra-op threads per worker. */
  readonly threadsPerWorker: number
  /** Most prompts per run. */
  readonly batchSize: number
  /** Logits cap per run, bytes. */
  readonly maxLogitsBytes: number
  /** Execution providers passed to ORT. */
  readonly executionProviders: readonly ExecutionProvider[]
  /**
   * The model was rewritten by `sceptic optimize-model` (its `sceptic-readout.json`
   * was found): its head computes only the letter rows at the last position.
   */
  readonly optimizedReadout: boolean
  /** The readout asked for ({@link OnnxScorerOptions.readout}); what ran is in `ready()` and the manifest's `readout`. */
  readonly readout: ReadoutMode
  /** The packed-weights folder ({@link OnnxScorerOptions.prepackCache}), absolute; `undefined`: off. */
  readonly prepackCache: string | undefined
  /** Prefix sharing mode asked for (models that cannot continue from a cache score full prompts regardless). */
  readonly prefixSharing: PrefixSharing
  /** Longest prompt run, in tokens (`contextLength` or config.json); `undefined`: no limit known. */
  readonly contextLength: number | undefined
  /**
   * The op by which the graph quantizes activations per tensor (e.g. `DynamicQuantizeLinear`
   * in q8/int8/uint8 exports), or `undefined`. When set, every prompt runs alone (batch 1,
   * no prefix sharing), so its probabilities do not depend on what else shares a batch.
   */
  readonly perTensorActivations: string | undefined
}

/** Running totals of an {@link OnnxScorer} (live object, updated as calls are scored). */
export interface OnnxScorerStats {
  /** Requests scored. */
  requests: number
  /** Tokens of the full prompts of those requests. */
  promptTokens: number
  /** Tokens actually run through the model: each shared prefix once plus every suffix and full prompt. */
  tokensRun: number
  /** Shared-prefix groups run (each one prefix pass). */
  sharedGroups: number
  /** Requests scored as a suffix against a shared prefix. */
  sharedRequests: number
}

/** What {@link OnnxScorer.ready} resolves to. */
export interface OnnxModelInfo {
  /** What the model takes and returns, as the workers found it. */
  readonly plan: InputPlan
  /** The tokenizer's vocabulary size (ids it can emit). */
  readonly tokenizerVocab: number
  /** What the head computes, and why when it is the full vocabulary: `last position, 40 letter rows (made at startup)`, `full logits: …`. */
  readonly readout: string
  /** What {@link OnnxScorerOptions.prepackCache} did: `loaded from DIR`, `written to DIR`, `not used: …`; absent without one. */
  readonly prepacked?: string
}

/**
 * What an ONNX scorer returns for one request: the letter probabilities, or a
 * `too_long` {@link ScoreFailure} when the prompt does not fit the model's context.
 */
export type OnnxOutcome = number[] | ScoreFailure

/** A scorer backed by a worker pool, with a lifecycle: a {@link FallibleScoreFn}. */
export interface OnnxScorer {
  /**
   * Score requests: one outcome per request, in order. A request whose prompt is longer
   * than {@link OnnxScorerSettings.contextLength} is not run; it comes back as a
   * `too_long` failure (counted per decision by the evaluator, never a crash).
   */
  (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<OnnxOutcome[]>
  /**
   * Load the tokenizer and start the workers (done on the first call anyway).
   * Rejects with a {@link ConfigError} naming the file for a bad tokenizer.json, a model
   * ORT cannot load, or a model without `input_ids` / `logits`.
   */
  ready(): Promise<OnnxModelInfo>
  /** Let running and queued batches finish, then stop the workers. Idempotent; later calls to the scorer reject. */
  close(): Promise<void>
  /** The scorer's description, for the report and `manifest.scorer`, e.g. `onnx models/tiny (2 workers × 1 thread, batch ≤ 4)`. */
  readonly description: string
  /** Effective settings. */
  readonly settings: OnnxScorerSettings
  /** Token counts since creation: what prefix sharing saved (also for manifests and the benchmark). */
  readonly stats: OnnxScorerStats
  /** @internal The pool, once started (tests use it to kill an idle worker). */
  readonly pool: WorkerPool | undefined
  /**
   * What decides this scorer's vectors, for the score cache (docs/cache.md): model,
   * external data, tokenizer and readout files, execution providers. `undefined`
   * with a custom `template` (a function cannot be keyed): such a scorer is not cached.
   */
  readonly cacheIdentity: CacheIdentity | undefined
  /**
   * What the run's manifest records of this scorer: `{ readout }`, as {@link OnnxModelInfo.readout}
   * (`not started` before the first call), and `quantization` (agreement with fp32, what stayed
   * float) when the model directory was written by `quantize-model --calibration`, with
   * `quantizationElsewhere` when that agreement was measured on another CPU kind.
   */
  manifestEntries(): { readout: string; prepacked?: string; quantization?: QuantizationInfo; quantizationElsewhere?: string }
}
