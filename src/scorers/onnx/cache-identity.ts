/**
 * What decides an ONNX scorer's vectors and failures, for the score cache (docs/cache.md,
 * "Key"): the bytes of the model, its external data, the tokenizer files, config.json (the
 * context length, the cache shapes) and the optimized readout sidecar, and the settings
 * that change the numbers (`contextLength` among them), and for a graph with integer kernels
 * (8-bit, 4-bit) the CPU kind. Batch size, workers and prefix sharing change only float
 * rounding (≤ 1e-5; docs/onnx-models.md, "Which CPU", names the one exception) and are left out.
 */
import { dirname, join } from 'node:path'
import type { CacheIdentity } from '../../core/scorer/contract.ts'
import { declaredExternalData } from './model/external-locations.ts'
import { externalDataOf, type ModelFiles } from './model/model-dir.ts'
import { READOUT_FILE } from './readout/readout-file.ts'
import { integerKernelOp } from './transform/activation-quant.ts'
import { cpuKind } from '../../core/support/cpu-kind.ts'


/** The identity of an ONNX scorer over these files with these output-deciding settings. */
export function onnxCacheIdentity(files: ModelFiles, settings: Record<string, unknown>): CacheIdentity {
  const roles: Record<string, string> = {
    model: files.modelPath,
    tokenizer: files.tokenizerPath,
    tokenizerConfig: join(files.dir, 'tokenizer_config.json'),
    // The context length (too_long failures) and the cache shapes come from it.
    config: join(files.dir, 'config.json'),
    readout: join(dirname(files.modelPath), READOUT_FILE),
  }
  // Files named like the model's external data, and any other the graph itself names.
  const external = [...new Set([...externalDataOf(files.modelPath), ...declaredExternalData(files.modelPath)])].sort()
  external.forEach((path, i) => (roles[`externalData${i}`] = path))
  // Integer kernels score differently by CPU kind: a cached score from another kind is re-scored, not trusted.
  const cpu = integerKernelOp(files.modelPath) === undefined ? {} : { cpu: cpuKind().kind }
  return { kind: 'onnx', label: files.dir, files: roles, settings: { ...settings, ...cpu } }
}

/** The scorer options that change the vectors (beyond the files), as {@link OnnxIdentityOptions} name them. */
export interface OnnxIdentityOptions {
  /** The model variant (docs/onnx.md, "Model variants"); keyed when not fp32 (its file's bytes are keyed anyway). */
  readonly dtype?: string
  /** ORT execution providers; default `['cpu']`. */
  readonly executionProviders?: readonly unknown[]
  /** Chat template: `true` (the model's own, keyed by tokenizer_config.json's bytes) or a template string. */
  readonly chatTemplate?: boolean | string
  /** System message of a chat template. */
  readonly system?: string
  /** Chat template variables. */
  readonly chatTemplateKwargs?: Readonly<Record<string, unknown>>
  /** The `contextLength` option: a prompt longer than it is a `too_long` failure, not a vector. */
  readonly contextLength?: number
}

/**
 * The settings part of the identity (plugin-shared models use their served scorer's).
 * Chat keys appear only when a template is on, so plain-prompt keys stay as they were
 * before chat templates existed.
 */
export function identitySettings(options: OnnxIdentityOptions): Record<string, unknown> {
  const out: Record<string, unknown> = { executionProviders: options.executionProviders ?? ['cpu'] }
  if (options.dtype !== undefined && options.dtype !== 'fp32') out.dtype = options.dtype
  if (options.contextLength !== undefined) out.contextLength = options.contextLength
  if (options.chatTemplate === undefined || options.chatTemplate === false) return out
  out.chatTemplate = options.chatTemplate
  if (options.system !== undefined) out.system = options.system
  if (options.chatTemplateKwargs !== undefined) out.chatTemplateKwargs = options.chatTemplateKwargs
  return out
}
