/** Messages between the pool (main thread) and a worker. Internal. */
import type { ConfigShape } from './model-config.ts'
import type { InputPlan } from './model-io.ts'

/** `workerData` of a worker. */
export interface WorkerInit {
  /** Absolute path of the .onnx file (loaded by path so external-data files next to it work). */
  readonly modelPath: string
  /** Intra-op threads of the worker's session. */
  readonly intraOpNumThreads: number
  /** Execution providers, passed through to ORT. */
  readonly executionProviders: readonly (string | { readonly name: string })[]
  /** Shapes from the directory's config.json, when it has one (model-config.ts). */
  readonly config?: ConfigShape
  /** Test-only fault injection: exit the worker thread when a batch holds this token id, while the shared budget lasts. */
  readonly faults?: { readonly tokenId: number; readonly budget: SharedArrayBuffer }
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

/** Main → worker: finish and exit. */
export interface CloseMessage {
  readonly type: 'close'
}

/**
 * Worker → main: `ready` once the session is loaded (with the input plan), `init-error`
 * if it cannot be, then one `result` (probabilities of all rows, concatenated) or
 * `run-error` per run.
 */
export type WorkerMessage =
  | { readonly type: 'ready'; readonly plan: InputPlan }
  | { readonly type: 'init-error'; readonly kind: 'ort-missing' | 'config' | 'other'; readonly message: string }
  | { readonly type: 'result'; readonly id: number; readonly probabilities: Float64Array }
  | { readonly type: 'run-error'; readonly id: number; readonly kind: 'config' | 'other'; readonly message: string }

/** The one line a user without onnxruntime-node sees. */
export const ORT_MISSING =
  'onnxScorer needs onnxruntime-node, which is not installed: run `ONNXRUNTIME_NODE_INSTALL=skip npm i -D onnxruntime-node@1.30` (the env var stops its install script downloading CUDA files)'
