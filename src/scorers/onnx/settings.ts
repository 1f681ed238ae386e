/**
 * The ONNX scorer's settings: options checked and defaulted against the machine's cores
 * and the model directory (docs/onnx.md#options), and the one-line description built from them.
 */
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { ConfigError } from '../../core/support/errors.ts'
import { perTensorActivationOp } from './transform/activation-quant.ts'
import { readContextLength } from './prompt/context-length.ts'
import type { ModelFiles } from './model/model-dir.ts'
import type { OnnxScorerOptions, OnnxScorerSettings } from './options.ts'
import { READOUT_FILE } from './readout/readout-file.ts'

/** Whether every execution provider is ORT's CPU one (names or `{ name }` objects). */
export function cpuOnly(executionProviders: OnnxScorerSettings['executionProviders']): boolean {
  return executionProviders.every((provider) => (typeof provider === 'string' ? provider : provider.name) === 'cpu')
}

/** The settings `options` resolve to on this machine for the model in `files`. */
export function resolveSettings(options: OnnxScorerOptions, files: ModelFiles): OnnxScorerSettings {
  const cores = Math.max(1, availableParallelism())
  const positive = (name: string, value: number | undefined): number | undefined => {
    if (value === undefined) return undefined
    if (!Number.isInteger(value) || value < 1) throw new ConfigError(`onnxScorer: \`${name}\` must be a positive integer, got ${value}`)
    return value
  }
  const executionProviders = options.executionProviders ?? ['cpu']
  const gpu = !cpuOnly(executionProviders)
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
  const readout = options.readout ?? 'auto'
  if (readout !== 'auto' && readout !== 'full') throw new ConfigError(`onnxScorer: \`readout\` must be 'auto' or 'full', got ${JSON.stringify(readout)}`)
  const contextLength = positive('contextLength', options.contextLength) ?? readContextLength(files.dir)
  if (options.prepackCache !== undefined && (typeof options.prepackCache !== 'string' || options.prepackCache === ''))
    throw new ConfigError(`onnxScorer: \`prepackCache\` must be a folder path, got ${JSON.stringify(options.prepackCache)}`)
  const prepackCache = options.prepackCache === undefined ? undefined : resolve(options.prepackCache)
  return { modelPath: files.modelPath, dtype: files.dtype, workers, threadsPerWorker, batchSize, maxLogitsBytes, executionProviders, optimizedReadout, readout, prepackCache, prefixSharing, contextLength, perTensorActivations }
}

/** One line for reports and manifests, e.g. `onnx models/tiny (2 workers × 1 thread, batch ≤ 4)`. */
export function describeScorer(options: OnnxScorerOptions, settings: OnnxScorerSettings): string {
  const chat = options.chatTemplate === undefined || options.chatTemplate === false ? '' : options.chatTemplate === true ? "the model's chat template; " : 'a custom chat template; '
  const variant = settings.dtype === 'fp32' ? '' : `${settings.dtype}; `
  const alone = settings.perTensorActivations ? `one prompt per run: the graph quantizes activations per tensor (${settings.perTensorActivations}); ` : ''
  return `onnx ${options.model} (${variant}${chat}${alone}${settings.optimizedReadout ? 'optimized readout: last position, letter rows only; ' : ''}${settings.workers} worker${settings.workers === 1 ? '' : 's'} × ${settings.threadsPerWorker} thread${settings.threadsPerWorker === 1 ? '' : 's'}, batch ≤ ${settings.batchSize}${settings.prefixSharing === 'off' ? '' : `, shared prefixes ${settings.prefixSharing}`})`
}
