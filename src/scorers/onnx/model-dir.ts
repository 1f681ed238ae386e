/** Checks on the model directory that can be made before any worker starts. */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { ConfigError } from '../../core/errors.ts'
import { selectVariant, type Dtype } from './dtype.ts'
import { ORT_MISSING } from './protocol.ts'

/** The files of a model directory (docs/onnx.md#pointing-it-at-an-optimum-export). */
export interface ModelFiles {
  /** The directory, absolute. */
  readonly dir: string
  /** The variant's file: `DIR/onnx/model.onnx`, `DIR/model_fp16.onnx`, …, absolute. */
  readonly modelPath: string
  /** `DIR/tokenizer.json`, absolute. */
  readonly tokenizerPath: string
  /** The variant chosen (docs/onnx.md, "Model variants"). */
  readonly dtype: Dtype
}

/** Locate the model files for `dtype` (docs/onnx.md, "Model variants"), or throw a {@link ConfigError} naming what is missing. */
export function locateModel(dir: string, dtype?: Dtype): ModelFiles {
  const absolute = resolve(dir)
  if (!existsSync(absolute)) throw new ConfigError(`${dir}: model directory not found`)
  if (!statSync(absolute).isDirectory())
    throw new ConfigError(`${dir}: not a directory; --model / onnxScorer({ model }) takes the folder holding model.onnx and tokenizer.json`)
  const variant = selectVariant(absolute, dtype)
  if (!variant) {
    const others = listOnnx(absolute)
    const hint = others.length > 0 ? ` (found ${others.join(', ')}; the scorer loads model.onnx or a variant named like model_fp16.onnx: rename or link the decoder you want)` : ''
    throw new ConfigError(`${join(absolute, 'model.onnx')}: missing, and no onnx/model.onnx either${hint}`)
  }
  const modelPath = variant.path
  if (statSync(modelPath).size === 0) throw new ConfigError(`${modelPath}: the file is empty`)
  const tokenizerPath = join(absolute, 'tokenizer.json')
  if (!existsSync(tokenizerPath)) throw new ConfigError(`${tokenizerPath}: missing; the model directory needs the Hugging Face tokenizer.json next to the model`)
  return { dir: absolute, modelPath, tokenizerPath, dtype: variant.dtype }
}

/**
 * Fail fast, synchronously and in one line, when onnxruntime-node is not installed
 * (it is an optional peer dependency). Resolved from this package's location, as
 * the worker's dynamic import will be.
 */
export function assertOrtInstalled(): void {
  try {
    createRequire(import.meta.url).resolve('onnxruntime-node')
  } catch {
    throw new ConfigError(ORT_MISSING)
  }
}

function listOnnx(dir: string): string[] {
  const found: string[] = []
  for (const sub of ['', 'onnx']) {
    try {
      for (const name of readdirSync(join(dir, sub))) if (name.endsWith('.onnx')) found.push(join(sub, name))
    } catch {
      // no such subfolder
    }
  }
  return found
}
