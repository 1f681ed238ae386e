/**
 * `vitest-sceptic/onnx`: score decisions with a local ONNX causal language model
 * (an Optimum export: `model.onnx` + `tokenizer.json`) in a pool of worker threads.
 * The scorer is a pipeline: prompt texts (the template, the chat template) on the main
 * thread, tokens and letter ids in the workers (tokenise.ts), letter columns
 * (letter-columns.ts), too-long prompts set aside, runs planned (run-plan.ts) and
 * scored in the workers, probabilities put back in request order.
 *
 * onnxruntime-node is an optional peer dependency, loaded only inside the workers;
 * importing this module does not load it.
 */
import { ConfigError, ScorerError } from '../../core/support/errors.ts'
import type { ScoreContext, ScoreRequest } from '../../core/scorer/contract.ts'
import { identitySettings, onnxCacheIdentity } from './cache-identity.ts'
import { promptTexts } from '../prompt/chat-template.ts'
import { tooLongFailures } from './prompt/context-length.ts'
import { describeRequests } from '../prompt/describe-requests.ts'
import { parseDtype } from './model/dtype.ts'
import { letterColumns } from './readout/letter-columns.ts'
import { readConfigShape } from './model/model-config.ts'
import { assertOrtInstalled, locateModel } from './model/model-dir.ts'
import type { OnnxOutcome, OnnxScorer, OnnxScorerOptions, OnnxScorerStats } from './options.ts'
import { OnnxScorerOptionsSchema } from './options-schema.ts'
import { refuseOutOfBounds, refuseUnknownOptions } from '../../core/support/options.ts'
import type { WorkerPool } from './runtime/pool.ts'
import { readReadoutFile } from './readout/readout-file.ts'
import { agreementElsewhere, readQuantizationInfo } from './model/quantization-info.ts'
import { cpuKind } from '../../core/support/cpu-kind.ts'
import { planRuns } from './runtime/run-plan.ts'
import { describeScorer, resolveSettings } from './settings.ts'
import { startScorer, type Started } from './startup.ts'
import { addCallStats } from './stats.ts'
import { tokenise } from './prompt/tokenise.ts'

/**
 * Create an ONNX scorer. Cheap and synchronous: it checks the model directory and
 * that onnxruntime-node is installed (a {@link ConfigError} otherwise, one line), and
 * starts nothing until the first call or {@link OnnxScorer.ready}.
 */
export function onnxScorer(options: OnnxScorerOptions): OnnxScorer {
  refuseUnknownOptions(OnnxScorerOptionsSchema, options, 'onnxScorer options')
  refuseOutOfBounds(OnnxScorerOptionsSchema, options, 'onnxScorer: ')
  if (!options || typeof options.model !== 'string' || options.model === '')
    throw new ConfigError('onnxScorer: `model` (the model directory) is required')
  const files = locateModel(options.model, options.dtype === undefined ? undefined : parseDtype(options.dtype, 'onnxScorer'))
  assertOrtInstalled()
  const settings = resolveSettings(options, files)
  // A `sceptic optimize-model` output's logits columns are letters, not token ids; the sidecar says which.
  const sidecar = readReadoutFile(files.modelPath)
  // config.json's cache shapes drive the empty past feeds; checked against the graph in the worker.
  const configShape = readConfigShape(files.dir)
  const template = options.template
  // A calibrated quantize-model output says how far it agrees with fp32: every run records it.
  const quantization = readQuantizationInfo(files.dir)
  const note = quantization && agreementElsewhere(quantization, cpuKind().kind)
  const elsewhere = note ? { quantizationElsewhere: note } : {}
  let pool: WorkerPool | undefined
  let startup: Promise<Started> | undefined
  let running: Started | undefined
  let closed = false
  const stats: OnnxScorerStats = { requests: 0, promptTokens: 0, tokensRun: 0, sharedGroups: 0, sharedRequests: 0 }
  // Aborted by close(): a startup stuck in a runaway chat template ends now, not at the template's time limit.
  const closing = new AbortController()
  const ready = () =>
    (startup ??= startScorer(settings, { files, chat: options, readoutMode: settings.readout, sidecar, configShape, faults: options.faults, onPool: (created) => (pool = created), signal: closing.signal }).then(
      (value) => (running = value),
    ))

  const score = async (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<OnnxOutcome[]> => {
    if (closed) throw new ScorerError('the ONNX scorer is closed; create a new one to score again')
    const signal = context?.signal
    const started = await ready()
    signal?.throwIfAborted()
    if (requests.length === 0) return []
    // Held until the call ends: a close() from now on waits for it and lets it queue its runs.
    const release = started.pool.begin()
    const describe = (rows: readonly number[]) => describeRequests(requests, rows)
    // An abort drops this call's queued jobs; a batch inside session.run finishes (stopping it would abort the process).
    const cancel = { cancelled: false }
    const onAbort = () => (cancel.cancelled = true)
    signal?.addEventListener('abort', onAbort, { once: true })
    try {
      const texts = await promptTexts(requests, template, started.render, signal)
      const letterCounts = requests.map((request) => request.criterion.options.length)
      // A chat template's text spells out its special tokens: none are added on top.
      const { ids, letters: letterIds } = await tokenise(started.pool, { texts, letterCounts, special: !started.render }, settings.workers, describe, cancel)
      const target = { modelPath: files.modelPath, tokenizerPath: started.tokenizer.path, readoutFile: started.readout.readoutFile, vocab: started.plan.vocab }
      const letters = letterIds.map((row) => letterColumns(row, target))
      const results: OnnxOutcome[] = tooLongFailures(ids, settings.contextLength) as OnnxOutcome[]
      const runnable = requests.map((_, r) => r).filter((r) => results[r] === undefined)
      const { runs, shared } = planRuns(ids, letters, runnable, settings, { ...started.plan, logitsColumns: started.logitsColumns })
      addCallStats(stats, ids, runnable, shared)
      await Promise.all(
        runs.map(async ({ rows, payload }) => {
          const probabilities = await started.pool.run({ payload, describe: () => describe(rows), cancel }).catch((error: unknown) => {
            cancel.cancelled = true
            throw error
          })
          let offset = 0
          for (const r of rows) {
            results[r] = Array.from(probabilities.subarray(offset, offset + letters[r]!.length))
            offset += letters[r]!.length
          }
        }),
      )
      return results
    } finally {
      release()
      signal?.removeEventListener('abort', onAbort)
    }
  }

  const close = async (): Promise<void> => {
    closed = true
    if (!startup) return
    closing.abort(new ScorerError('the ONNX scorer was closed while it was starting'))
    await startup.catch(() => undefined)
    await pool?.close()
    await running?.render?.close()
    running?.readout.dispose()
  }

  return Object.defineProperties(score as OnnxScorer, {
    ready: { value: () => ready().then(({ plan, tokenizer, readout, prepacked }) => ({ plan, tokenizerVocab: tokenizer.vocabSize, readout: readout.summary, ...(prepacked === undefined ? {} : { prepacked }) })) },
    manifestEntries: { value: () => ({ readout: running?.readout.summary ?? 'not started', ...(settings.prepackCache === undefined ? {} : { prepacked: running?.prepacked ?? 'not started' }), ...(quantization ? { quantization, ...elsewhere } : {}) }) },
    close: { value: close },
    description: { value: describeScorer(options, settings), enumerable: true },
    settings: { value: settings, enumerable: true },
    stats: { value: stats, enumerable: true },
    pool: { get: () => pool },
    cacheIdentity: { value: template ? undefined : onnxCacheIdentity(files, identitySettings({ ...options, dtype: files.dtype, executionProviders: settings.executionProviders })) },
  })
}
