/** Messages between the pool (main thread) and a worker. Internal. */
import type { ConfigShape } from '../model/model-config.ts'
import type { InputPlan } from '../model/model-io.ts'

/** `workerData` of a worker. */
export interface WorkerInit {
  /**
   * Absolute path of the .onnx file (loaded by path so external-data files next to it work).
   * Absent while the letter head is still being written: the worker then loads ORT and the
   * tokenizer and waits for a {@link LoadMessage}.
   */
  readonly modelPath?: string
  /** The model file messages name: the user's, when `modelPath` is the letter head made at startup (startup-readout.ts). */
  readonly shownPath: string
  /** Directory of `tokenizer.json` (and `tokenizer_config.json`): each worker tokenizes its share of a call. */
  readonly tokenizerDir: string
  /** Intra-op threads of the worker's session. */
  readonly intraOpNumThreads: number
  /** Execution providers, passed through to ORT. */
  readonly executionProviders: readonly (string | { readonly name: string })[]
  /** Shapes from the directory's config.json, when it has one (model-config.ts). */
  readonly config?: ConfigShape
  /** Test-only fault injection: exit the worker thread when a batch holds this token id, while the shared budget lasts. */
  readonly faults?: { readonly tokenId: number; readonly budget: SharedArrayBuffer }
}

/** Main → worker: the model file to load, once it exists (when {@link WorkerInit.modelPath} was absent). */
export interface LoadMessage {
  readonly type: 'load'
  readonly modelPath: string
  /** Save ORT's optimized graph with its packed weights here while loading (the first worker only; prepack-cache.ts). */
  readonly save?: PrepackSave
}

/** Where a worker saves the graph it loads, optimized, with its packed weights in `dataFile` beside it. */
export interface PrepackSave {
  readonly modelPath: string
  readonly dataFile: string
}

/** Main → worker: score one batch. */
export interface RunMessage {
  readonly type: 'run'
  /** Pool-assigned id, echoed in the reply (a reply for a job the pool gave up on is ignored). */
  readonly id: number
  /** All rows' token ids, concatenated. */
  readonly ids: Int32Array
  /** Tokens per row. */
  readonly lengths: Int32Array
  /** All rows' letter token ids, concatenated. */
  readonly letters: Int32Array
  /** Letters (options) per row. */
  readonly letterCounts: Int32Array
  /**
   * Token ids every row starts with. When present, `ids`/`lengths` hold only each
   * row's remaining tokens (the suffixes): the worker runs the prefix once and the
   * suffixes against its key/value cache. The cache lives for this one run message
   * only, so a finished decision's cache is garbage the moment its result is posted.
   */
  readonly prefix?: Int32Array
  /** Most suffix rows per run against the prefix cache (the cache is tiled to that many rows); 1 runs them one at a time. */
  readonly suffixRows?: number
}

/** Main → worker: tokenize prompts and read their letter ids (tokenizer.ts), off the main thread. */
export interface EncodeMessage {
  readonly type: 'encode'
  /** Pool-assigned id, echoed in the reply. */
  readonly id: number
  /** Prompt texts, as the model reads them. */
  readonly texts: readonly string[]
  /** Options (letters) per text. */
  readonly letterCounts: Int32Array
  /** Add the tokenizer's special tokens (the plain prompt); false for a rendered chat template, which spells them out. */
  readonly special: boolean
}

/** Worker → main: the token ids of an {@link EncodeMessage}'s texts and the letter ids read after each. */
export interface Encoded {
  /** All texts' token ids, concatenated. */
  readonly ids: Int32Array
  /** Tokens per text. */
  readonly lengths: Int32Array
  /** All texts' letter token ids, concatenated (`letterCounts` per text). */
  readonly letters: Int32Array
}

/** What a worker's tokenizer is, reported once it is loaded. */
export interface TokenizerInfo {
  /** Path of its tokenizer.json (for error messages). */
  readonly path: string
  /** Largest id it can emit, plus one. */
  readonly vocabSize: number
}

/** A job's message without the pool-assigned `id`. */
export type JobPayload = Omit<RunMessage, 'id'> | Omit<EncodeMessage, 'id'>

/** Main → worker: finish and exit. */
export interface CloseMessage {
  readonly type: 'close'
}

/**
 * Worker → main: `ready` once the session and the tokenizer are loaded (with the input
 * plan), `init-error` if they cannot be, then one `result` (probabilities of all rows,
 * concatenated) per run, one `encoded` per encode, or a `run-error` for either.
 */
export type WorkerMessage =
  | { readonly type: 'ready'; readonly plan: InputPlan; readonly tokenizer: TokenizerInfo; readonly saved?: boolean }
  | { readonly type: 'init-error'; readonly kind: 'ort-missing' | 'config' | 'other'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly probabilities: Float64Array }
  | { readonly type: 'encoded'; readonly id: number; readonly encoded: Encoded }
  | { readonly type: 'run-error'; readonly id: number; readonly kind: RunErrorKind; readonly message: string }

/**
 * Why a job failed: `config` (model and tokenizer do not fit: a ConfigError), `scorer` (a
 * request cannot be scored, e.g. a piece the tokenizer has no id for: a ScorerError with
 * the worker's message as is), `other` (onnxruntime failed: a ScorerError naming the requests).
 */
export type RunErrorKind = 'config' | 'scorer' | 'other'

/** The one line a user without onnxruntime-node sees. */
export const ORT_MISSING =
  'onnxScorer needs onnxruntime-node, which is not installed: run `ONNXRUNTIME_NODE_INSTALL=skip npm i -D onnxruntime-node@1.30` (the env var stops its install script downloading CUDA files)'
