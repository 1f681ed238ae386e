/**
 * `vitest-sceptic/onnx`: score decisions with a local ONNX causal language model
 * (an Optimum export: `model.onnx` + `tokenizer.json`) in a pool of worker threads.
 *
 * onnxruntime-node is an optional peer dependency, loaded only inside the workers;
 * importing this module does not load it.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join } from 'node:path'
import { LETTERS, type Criterion } from '../../core/decisions.ts'
import { ConfigError, ScorerError } from '../../core/errors.ts'
import { scoreFailure, type ScoreContext, type ScoreFailure, type ScoreRequest } from '../../core/score.ts'
import type { CacheIdentity } from '../../cache/key.ts'
import { planBatches } from './batching.ts'
import { chatRenderer, type ChatOptions, type PromptRenderer } from './chat-template.ts'
import { identitySettings, onnxCacheIdentity } from './cache-identity.ts'
import { readContextLength } from './context-length.ts'
import { readConfigShape } from './model-config.ts'
import { perTensorActivationOp } from './activation-quant.ts'
import { parseDtype, type Dtype } from './dtype.ts'
import { assertOrtInstalled, locateModel, type ModelFiles } from './model-dir.ts'
import type { InputPlan } from './model-io.ts'
import { groupByPrefix, type PrefixGroup, type PrefixPlan } from './prefix.ts'
import type { RunMessage } from './protocol.ts'
import { WorkerPool } from './pool.ts'
import { READOUT_FILE, readReadoutFile } from './readout-file.ts'
import { loadTokenizer, type LoadedTokenizer } from './tokenizer.ts'

export { ConfigError, ScorerError } from '../../core/errors.ts'
export type { FallibleScoreFn, ScoreContext, ScoreFailure, ScoreFn, ScoreRequest } from '../../core/score.ts'
export type { InputPlan, PastInput } from './model-io.ts'
export type { ReadoutFile } from './readout-file.ts'

/** An execution provider for ORT: `'cpu'`, `'cuda'`, or `{ name: 'cuda', deviceId: 1, … }` (passed through as is). */
export type ExecutionProvider = string | { readonly name: string; readonly [option: string]: unknown }

/** Options of {@link onnxScorer}. Only `model` is required. */
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
   * Score shared leading tokens once (docs/onnx.md#prefix-sharing).
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
  /** @internal Test-only: a worker exits (as if it crashed) on a batch holding `tokenId`, `times` times in all. */
  faults?: { readonly tokenId: number; readonly times: number }
}

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
}

/**
 * Create an ONNX scorer. Cheap and synchronous: it checks the model directory and
 * that onnxruntime-node is installed (a {@link ConfigError} otherwise, one line), and
 * starts nothing until the first call or {@link OnnxScorer.ready}.
 */
export function onnxScorer(options: OnnxScorerOptions): OnnxScorer {
  if (!options || typeof options.model !== 'string' || options.model === '')
    throw new ConfigError('onnxScorer: `model` (the model directory) is required')
  const files = locateModel(options.model, options.dtype === undefined ? undefined : parseDtype(options.dtype, 'onnxScorer'))
  assertOrtInstalled()
  const settings = resolveSettings(options, files)
  // An optimized model's logits columns are letters, not token ids; the sidecar says which.
  const readoutFile = readReadoutFile(files.modelPath)
  // config.json's cache shapes drive the empty past feeds; checked against the graph in the worker.
  const configShape = readConfigShape(files.dir)
  const template = options.template
  let pool: WorkerPool | undefined
  let startup: Promise<{ tokenizer: LoadedTokenizer; plan: InputPlan; pool: WorkerPool; render: PromptRenderer | undefined }> | undefined
  let closed = false
  const stats: OnnxScorerStats = { requests: 0, promptTokens: 0, tokensRun: 0, sharedGroups: 0, sharedRequests: 0 }

  const start = async () => {
    const tokenizer = await loadTokenizer(files.dir)
    const render = chatRenderer(options, tokenizer.config, tokenizer.configPath)
    const budget = options.faults ? new SharedArrayBuffer(4) : undefined
    if (budget) new Int32Array(budget)[0] = options.faults!.times
    pool = new WorkerPool(settings.workers, {
      modelPath: files.modelPath,
      intraOpNumThreads: settings.threadsPerWorker,
      executionProviders: settings.executionProviders as (string | { name: string })[],
      ...(configShape ? { config: configShape } : {}),
      ...(budget ? { faults: { tokenId: options.faults!.tokenId, budget } } : {}),
    })
    const plan = await pool.start()
    const vocab = readoutFile ? readoutFile.vocab : plan.vocab
    if (readoutFile && plan.vocab !== undefined && plan.vocab !== readoutFile.letterIds.length) {
      await pool.close()
      throw new ConfigError(`${files.modelPath}: its logits have ${plan.vocab} columns but ${READOUT_FILE} names ${readoutFile.letterIds.length} letters; re-run \`sceptic optimize-model\``)
    }
    if (vocab !== undefined && tokenizer.vocabSize > vocab) {
      await pool.close()
      throw new ConfigError(`${tokenizer.path}: the tokenizer emits ids up to ${tokenizer.vocabSize - 1} but ${files.modelPath} has only ${vocab} logits; they do not belong together`)
    }
    return { tokenizer, plan, pool, render }
  }
  const ready = () => (startup ??= start())
  /** What the worker reads per letter: its token id, or its column in an optimized model's logits. */
  const letterColumns = (tokenizer: LoadedTokenizer, text: string, special: boolean, count: number): Int32Array => {
    const ids = tokenizer.letterIdsAfter(text, count, special)
    if (!readoutFile) return ids
    return ids.map((id, i) => {
      const column = readoutFile.letterIds[i] === id ? i : -1
      if (column < 0)
        throw new ConfigError(
          i >= readoutFile.letterIds.length
            ? `${files.modelPath}: optimized for ${readoutFile.letterIds.length} options (letters A–${LETTERS[readoutFile.letterIds.length - 1]}), but a criterion has ${count}`
            : `${files.modelPath}: ${READOUT_FILE} says letter ${LETTERS[i]} is token ${readoutFile.letterIds[i]}, but ${tokenizer.path} gives ${id}; the tokenizer changed since optimize-model`,
        )
      return column
    })
  }

  const score = async (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<OnnxOutcome[]> => {
    if (closed) throw new ScorerError('the ONNX scorer is closed; create a new one to score again')
    const signal = context?.signal
    const { tokenizer, plan, pool: workers, render } = await ready()
    signal?.throwIfAborted()
    if (requests.length === 0) return []
    const ids: Int32Array[] = []
    const letters: Int32Array[] = []
    const results: OnnxOutcome[] = new Array(requests.length)
    requests.forEach((request, index) => {
      const own = template ? template(request.state, request.criterion) : request.prompt
      // A chat template's text spells out its special tokens: none are added on top.
      const text = render ? render(own) : own
      const encoded = tokenizer.encode(text, !render)
      if (encoded.length === 0) throw new ScorerError(`request #${index} encodes to no tokens; nothing to score`)
      const limit = settings.contextLength
      if (limit !== undefined && encoded.length > limit) {
        // Checked before inference: ORT would fail the whole batch (an index past the position table) or read garbage.
        results[index] = scoreFailure('too_long', `the prompt is ${encoded.length} tokens; the model's context is ${limit} (contextLength)`)
      }
      ids.push(encoded)
      const letterIds = letterColumns(tokenizer, text, !render, request.criterion.options.length)
      if (plan.vocab !== undefined)
        for (const id of letterIds)
          if (id >= plan.vocab)
            throw new ConfigError(`${tokenizer.path}: letter token id ${id} is outside the model's vocabulary (${plan.vocab} logits); the tokenizer does not match ${files.modelPath}`)
      letters.push(letterIds)
    })
    // Rows to run: every request but the ones already failed as too long.
    const runnable = requests.map((_, r) => r).filter((r) => results[r] === undefined)
    const cancel = { cancelled: false }
    // An abort drops this call's queued batches; a batch inside session.run finishes (stopping it would abort the process).
    const onAbort = () => (cancel.cancelled = true)
    signal?.addEventListener('abort', onAbort, { once: true })
    const submit = async (rows: readonly number[], payload: Omit<RunMessage, 'type' | 'id'>): Promise<void> => {
      const probabilities = await workers.run({ payload, describe: () => describeRequests(requests, rows), cancel }).catch((error: unknown) => {
        cancel.cancelled = true
        throw error
      })
      let offset = 0
      for (const r of rows) {
        const count = letters[r]!.length
        results[r] = Array.from(probabilities.subarray(offset, offset + count))
        offset += count
      }
    }
    const letterPayload = (rows: readonly number[]) => ({
      letters: concat(rows.map((r) => letters[r]!)),
      letterCounts: Int32Array.from(rows, (r) => letters[r]!.length),
    })
    const runIds = runnable.map((r) => ids[r]!)
    const local =
      settings.prefixSharing !== 'off' && plan.prefixCache ? splitForWorkers(groupByPrefix(runIds), settings.workers) : { groups: [], singles: runIds.map((_, i) => i) }
    // Back from positions in `runnable` to request indices.
    const shared: PrefixPlan = {
      groups: local.groups.map((group) => ({ ...group, rows: group.rows.map((i) => runnable[i]!) })),
      singles: local.singles.map((i) => runnable[i]!),
    }
    // Suffix runs obey the same logits cap as full batches: rows × longest suffix × vocab × 4 bytes.
    const suffixRows = (lengths: number[]): number =>
      Math.max(1, Math.min(settings.batchSize, Math.floor(settings.maxLogitsBytes / (Math.max(...lengths) * (plan.vocab ?? tokenizer.vocabSize) * 4))))
    const jobs: Promise<void>[] = shared.groups.map((group) => {
      const P = group.prefixLength
      return submit(group.rows, {
        prefix: ids[group.rows[0]!]!.slice(0, P),
        ids: concat(group.rows.map((r) => ids[r]!.subarray(P))),
        lengths: Int32Array.from(group.rows, (r) => ids[r]!.length - P),
        suffixRows: settings.prefixSharing === 'sequential' ? 1 : suffixRows(group.rows.map((r) => ids[r]!.length - P)),
        ...letterPayload(group.rows),
      })
    })
    const singles = shared.singles
    stats.requests += runnable.length
    for (const r of runnable) stats.promptTokens += ids[r]!.length
    stats.tokensRun += singles.reduce((sum, r) => sum + ids[r]!.length, 0)
    for (const group of shared.groups) {
      stats.sharedGroups++
      stats.sharedRequests += group.rows.length
      stats.tokensRun += group.prefixLength + group.rows.reduce((sum, r) => sum + ids[r]!.length - group.prefixLength, 0)
    }
    const batches = planBatches(
      singles.map((r) => ids[r]!.length),
      {
        batchSize: settings.batchSize,
        workers: settings.workers,
        vocab: plan.vocab ?? tokenizer.vocabSize,
        maxLogitsBytes: settings.maxLogitsBytes,
        equalLengthsOnly: !plan.attentionMask,
      },
    ).map((batch) => batch.map((i) => singles[i]!))
    for (const rows of batches)
      jobs.push(
        submit(rows, {
          ids: concat(rows.map((r) => ids[r]!)),
          lengths: Int32Array.from(rows, (r) => ids[r]!.length),
          ...letterPayload(rows),
        }),
      )
    try {
      await Promise.all(jobs)
    } finally {
      signal?.removeEventListener('abort', onAbort)
    }
    return results
  }

  const close = async (): Promise<void> => {
    closed = true
    if (!startup) return
    await startup.catch(() => undefined)
    await pool?.close()
  }

  const chat = options.chatTemplate === undefined || options.chatTemplate === false ? '' : options.chatTemplate === true ? "the model's chat template; " : 'a custom chat template; '
  const variant = settings.dtype === 'fp32' ? '' : `${settings.dtype}; `
  const alone = settings.perTensorActivations ? `one prompt per run: the graph quantizes activations per tensor (${settings.perTensorActivations}); ` : ''
  const description = `onnx ${options.model} (${variant}${chat}${alone}${settings.optimizedReadout ? 'optimized readout: last position, letter rows only; ' : ''}${settings.workers} worker${settings.workers === 1 ? '' : 's'} × ${settings.threadsPerWorker} thread${settings.threadsPerWorker === 1 ? '' : 's'}, batch ≤ ${settings.batchSize}${settings.prefixSharing === 'off' ? '' : `, shared prefixes ${settings.prefixSharing}`})`
  return Object.defineProperties(score as OnnxScorer, {
    ready: { value: () => ready().then(({ plan, tokenizer }) => ({ plan, tokenizerVocab: tokenizer.vocabSize })) },
    close: { value: close },
    description: { value: description, enumerable: true },
    settings: { value: settings, enumerable: true },
    stats: { value: stats, enumerable: true },
    pool: { get: () => pool },
    cacheIdentity: { value: template ? undefined : onnxCacheIdentity(files, identitySettings({ ...options, dtype: files.dtype, executionProviders: settings.executionProviders })) },
  })
}

function resolveSettings(options: OnnxScorerOptions, files: ModelFiles): OnnxScorerSettings {
  const cores = Math.max(1, availableParallelism())
  const positive = (name: string, value: number | undefined): number | undefined => {
    if (value === undefined) return undefined
    if (!Number.isInteger(value) || value < 1) throw new ConfigError(`onnxScorer: \`${name}\` must be a positive integer, got ${value}`)
    return value
  }
  const executionProviders = options.executionProviders ?? ['cpu']
  const gpu = executionProviders.some((provider) => (typeof provider === 'string' ? provider : provider.name) !== 'cpu')
  // Capped at the cores: a CI runner with fewer cores than the config was written for still runs, just narrower.
  const workers = Math.min(cores, positive('workers', options.workers) ?? (gpu ? 1 : Math.min(2, cores)))
  const threadsPerWorker = Math.max(1, Math.min(positive('threadsPerWorker', options.threadsPerWorker) ?? cores, Math.floor(cores / workers)))
  // A graph whose activation scales span the batch: one full prompt per run (docs/onnx.md, "Quantized models").
  const perTensorActivations = perTensorActivationOp(files.modelPath)
  const batchSize = perTensorActivations ? 1 : (positive('batchSize', options.batchSize) ?? 4)
  const maxLogitsBytes = positive('maxLogitsBytes', options.maxLogitsBytes) ?? 256 * 1024 * 1024
  const asked = options.prefixSharing ?? 'batched'
  if (!['batched', 'sequential', 'off'].includes(asked))
    throw new ConfigError(`onnxScorer: \`prefixSharing\` must be 'batched', 'sequential' or 'off', got ${JSON.stringify(asked)}`)
  const prefixSharing = perTensorActivations ? 'off' : asked
  const optimizedReadout = existsSync(join(dirname(files.modelPath), READOUT_FILE))
  const contextLength = positive('contextLength', options.contextLength) ?? readContextLength(files.dir)
  return { modelPath: files.modelPath, dtype: files.dtype, workers, threadsPerWorker, batchSize, maxLogitsBytes, executionProviders, optimizedReadout, prefixSharing, contextLength, perTensorActivations }
}

/**
 * A small call (fewer groups than workers, e.g. one decision) would leave workers
 * idle: split its groups so each worker gets a part. Each part runs the prefix again,
 * which costs total work but shortens the call; calls with enough groups are untouched.
 */
function splitForWorkers(plan: PrefixPlan, workers: number): PrefixPlan {
  if (plan.groups.length === 0 || plan.groups.length + plan.singles.length >= workers) return plan
  const perGroup = Math.ceil(workers / plan.groups.length)
  const groups = plan.groups.flatMap((group) => {
    const parts = Math.min(perGroup, group.rows.length)
    const size = Math.ceil(group.rows.length / parts)
    const out: PrefixGroup[] = []
    for (let i = 0; i < group.rows.length; i += size) out.push({ rows: group.rows.slice(i, i + size), prefixLength: group.prefixLength })
    return out
  })
  return { groups, singles: plan.singles }
}

function concat(parts: Int32Array[]): Int32Array {
  const out = new Int32Array(parts.reduce((sum, part) => sum + part.length, 0))
  let offset = 0
  for (const part of parts) {
    out.set(part, offset)
    offset += part.length
  }
  return out
}

/** "request #3 (queue: "Customer says…"), …": enough to find the decisions in the data. */
function describeRequests(requests: readonly ScoreRequest[], rows: readonly number[]): string {
  const shown = rows.slice(0, 3).map((r) => {
    const request = requests[r]!
    const state = request.state.length > 40 ? request.state.slice(0, 40) + '…' : request.state
    return `request #${r} (criterion "${request.criterion.key}", state ${JSON.stringify(state)})`
  })
  const more = rows.length > 3 ? ` and ${rows.length - 3} more (#${rows.slice(3).join(', #')})` : ''
  return (rows.length === 1 ? '' : `${rows.length} requests: `) + shown.join(', ') + more
}
