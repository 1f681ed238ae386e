/**
 * What decides an ONNX scorer's vectors, for the score cache (docs/cache.md, "Key"):
 * the bytes of the model, its external data, the tokenizer files and the optimized
 * readout sidecar, and the settings that change the numbers. Batch size, workers
 * and prefix sharing change only float rounding (≤ 1e-5) and are left out.
 */
import { readdirSync } from 'node:fs'
import { basename, dirname, join } from 'node:path'
import type { CacheIdentity } from '../../cache/key.ts'
import { locateModel, type ModelFiles } from './model-dir.ts'
import { READOUT_FILE } from './readout-file.ts'

/** External-data files of `model.onnx`: `model.onnx_data`, `model.onnx.data`, `model.onnx_data_1`, … beside it. */
function externalData(modelPath: string): string[] {
  const base = basename(modelPath)
  try {
    return readdirSync(dirname(modelPath))
      .filter((name) => name !== base && (name.startsWith(`${base}_data`) || name.startsWith(`${base}.data`)))
      .sort()
      .map((name) => join(dirname(modelPath), name))
  } catch {
    return []
  }
}

/** The identity of an ONNX scorer over these files with these output-deciding settings. */
export function onnxCacheIdentity(files: ModelFiles, settings: Record<string, unknown>): CacheIdentity {
  const roles: Record<string, string> = {
    model: files.modelPath,
    tokenizer: files.tokenizerPath,
    tokenizerConfig: join(files.dir, 'tokenizer_config.json'),
    readout: join(dirname(files.modelPath), READOUT_FILE),
  }
  externalData(files.modelPath).forEach((path, i) => (roles[`externalData${i}`] = path))
  return { kind: 'onnx', label: files.dir, files: roles, settings }
}

/** The identity of a plugin-shared model (the same settings as `onnxScorer` with these options). */
export function sharedModelIdentity(options: { model: string; executionProviders?: readonly unknown[] }): CacheIdentity {
  return onnxCacheIdentity(locateModel(options.model), { executionProviders: options.executionProviders ?? ['cpu'] })
}
