/** Checks on the model directory that can be made before any worker starts. */
import { closeSync, existsSync, lstatSync, openSync, readdirSync, readSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join, resolve } from 'node:path'
import { ConfigError } from '../../../core/support/errors.ts'
import { describeKind, kindOf, pathKind } from '../../../core/support/files.ts'
import { DTYPES, dtypeFile, selectVariant, type Dtype } from './dtype.ts'
import { READOUT_FILE } from '../readout/readout-file.ts'
import { declaredExternalData } from './external-locations.ts'
import { appendAll } from '../../../core/support/spreadless.ts'
import { ORT_MISSING } from '../runtime/protocol.ts'

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
  checkModelFile(modelPath)
  const tokenizerPath = join(absolute, 'tokenizer.json')
  if (!present(tokenizerPath)) throw new ConfigError(`${tokenizerPath}: missing; the model directory needs the Hugging Face tokenizer.json next to the model`)
  checkModelFile(tokenizerPath)
  // The optional files the scorer reads: absent is fine, anything but a readable file is not.
  for (const path of [join(absolute, 'tokenizer_config.json'), join(absolute, 'config.json'), join(dirname(modelPath), READOUT_FILE), ...externalDataOf(modelPath)])
    if (present(path)) checkModelFile(path)
  return { dir: absolute, modelPath, tokenizerPath, dtype: variant.dtype }
}

/** Whether anything is at `path`, a dangling link included. */
function present(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}

/**
 * A file of a model directory must be a readable, non-empty regular file: a folder, a
 * dangling link, a link loop, a FIFO (reading it would wait for a writer forever), a
 * socket, a device or an unreadable file is a one-line {@link ConfigError} naming it.
 */
export function checkModelFile(path: string): void {
  let kind
  try {
    kind = kindOf(statSync(path))
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw new ConfigError(`${path}: a symbolic link to a missing file`)
    if (code === 'ELOOP') throw new ConfigError(`${path}: a symbolic link loop`)
    throw new ConfigError(`${path}: cannot be read (${code ?? 'error'})`)
  }
  if (kind !== 'file') throw new ConfigError(`${path}: is ${describeKind(kind)}, not a file; a model directory holds regular files`)
  if (statSync(path).size === 0) throw new ConfigError(`${path}: the file is empty`)
  try {
    const fd = openSync(path, 'r')
    try {
      readSync(fd, Buffer.alloc(1), 0, 1, 0)
    } finally {
      closeSync(fd)
    }
  } catch (error) {
    throw new ConfigError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`)
  }
}

/** External-data files of a model file: `model.onnx_data`, `model.onnx.data`, `model.onnx_data_1`, … beside it. */
export function externalDataOf(modelPath: string): string[] {
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

/** Files the scorer reads beside the model, in the directory itself. */
const SIDE_INPUTS = ['tokenizer.json', 'tokenizer_config.json', 'config.json', 'special_tokens_map.json', 'generation_config.json']

/**
 * Every file of model directory `dir` the ONNX scorer may read, for every variant (in
 * `dir/` and `dir/onnx/`): the model files, their external data, the readout sidecar,
 * the tokenizer files and config.json. No output may be written over one of them.
 */
export function modelInputFiles(dir: string): string[] {
  // A link loop or an unreadable entry is not read here: locateModel names it later, in one line.
  const isRegularFile = (path: string) => {
    try {
      return pathKind(path) === 'file'
    } catch {
      return false
    }
  }
  const out = SIDE_INPUTS.map((name) => join(dir, name))
  for (const sub of [dir, join(dir, 'onnx')]) {
    out.push(join(sub, READOUT_FILE))
    for (const dtype of DTYPES) {
      const model = join(sub, dtypeFile(dtype))
      out.push(model)
      // Named like external data, and any other file the graph itself names (weights.bin …).
      appendAll(out, isRegularFile(model) ? new Set([...externalDataOf(model), ...declaredExternalData(model)]) : externalDataOf(model))
    }
  }
  return out
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
