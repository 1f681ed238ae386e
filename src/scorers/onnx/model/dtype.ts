/**
 * Model variants as onnx-community / Optimum exports ship them, named like transformers.js
 * names them (docs/onnx.md, "Model variants"): `dtype` → the file in `DIR/onnx/` (or `DIR/`).
 */
import { lstatSync } from 'node:fs'
import { join } from 'node:path'
import { ConfigError } from '../../../core/support/errors.ts'

/** The variants, in transformers.js' names. */
export const DTYPES = ['fp32', 'fp16', 'q8', 'int8', 'uint8', 'q4', 'q4f16'] as const

/** A model variant: `fp32` (`model.onnx`), `fp16`, `q8` (`model_quantized.onnx`), `int8`, `uint8`, `q4` (MatMulNBits), `q4f16`. */
export type Dtype = (typeof DTYPES)[number]

/** The file name of a variant, as transformers.js maps it (`q8` → `model_quantized.onnx`). */
export function dtypeFile(dtype: Dtype): string {
  return dtype === 'fp32' ? 'model.onnx' : dtype === 'q8' ? 'model_quantized.onnx' : `model_${dtype}.onnx`
}

/** Check a user-given dtype; a {@link ConfigError} listing the valid ones. */
export function parseDtype(value: unknown, where: string): Dtype {
  if (typeof value === 'string' && (DTYPES as readonly string[]).includes(value)) return value as Dtype
  throw new ConfigError(`${where}: dtype must be one of ${DTYPES.join(', ')}, got ${JSON.stringify(value)}`)
}

/** The variants present in `dir` (looked for in `dir/` first, then `dir/onnx/`), with their paths. */
export function variantsIn(dir: string): { dtype: Dtype; path: string }[] {
  const found: { dtype: Dtype; path: string }[] = []
  for (const dtype of DTYPES)
    for (const sub of ['', 'onnx']) {
      const path = join(dir, sub, dtypeFile(dtype))
      // A dangling link counts as present, so the check that follows names it rather than calling it missing.
      if (lstatExists(path)) {
        found.push({ dtype, path })
        break
      }
    }
  return found
}

/**
 * The model file for `dtype`, or by default `fp32` when present, else the single variant
 * present. `undefined` when there is no variant at all (the caller reports the directory);
 * a {@link ConfigError} listing the variants found when the asked one is missing or the
 * default is ambiguous.
 */
export function selectVariant(dir: string, dtype: Dtype | undefined): { dtype: Dtype; path: string } | undefined {
  const found = variantsIn(dir)
  const list = found.map((v) => `${v.dtype} (${v.path.slice(dir.length + 1)})`).join(', ')
  if (dtype !== undefined) {
    const match = found.find((v) => v.dtype === dtype)
    if (match) return match
    throw new ConfigError(`${dir}: no ${dtype} variant (${dtypeFile(dtype)} in the directory or onnx/); variants found: ${list || 'none'}`)
  }
  if (found.length === 0) return undefined
  const fp32 = found.find((v) => v.dtype === 'fp32')
  if (fp32) return fp32
  if (found.length === 1) return found[0]
  throw new ConfigError(`${dir}: no fp32 model.onnx and several variants (${list}); choose one with dtype (CLI --dtype)`)
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch {
    return false
  }
}
