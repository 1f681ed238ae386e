/** The record `quantize-model --calibration` writes beside a model, read back into every run's manifest. */
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The quantized MatMul forms `quantize-model --format` writes. */
export type QuantizeFormat = 'nbits' | 'int8'

/** What `quantize-model --calibration` writes beside the model (calibrate.ts): its agreement with fp32. */
export const QUANTIZATION_FILE = 'quantization.json'

/** What `quantization.json` holds, and what a run's manifest records as `quantization`. */
export interface QuantizationInfo {
  readonly format: QuantizeFormat
  /** The calibration file's name and its decisions: scored, and clear under fp32. */
  readonly calibration: { readonly file: string; readonly decisions: number; readonly clear: number; readonly debias: string }
  readonly minAgreement: number
  /** The share of per-ordering picks required too (`--min-pick-agreement`), when one was. */
  readonly minPickAgreement?: number
  /** Share of clear decisions whose final pick equals fp32's, and of their per-ordering picks. */
  readonly agreement: { readonly decisions: number; readonly picks: number }
  /** The CPU kind and model the agreement was measured on (cpu-kind.ts); absent in files written before 0.5. */
  readonly cpu?: { readonly kind: string; readonly model: string }
  /** fp32 scoring time over the candidate's, on the calibration set. */
  readonly speedup: number
  /** The same in CPU seconds (scorer process, workers included), which other processes on a shared machine inflate less. */
  readonly cpuSpeedup?: number
  /** Weights whose MatMuls stayed float32 (the LM head aside). */
  readonly keptFloat: readonly string[]
  readonly quantized: number
  /** Written below the target with `--force`. */
  readonly forced: boolean
  /** int8: inputs smoothed per channel (SmoothQuant factors from the calibration prompts' channel ranges). */
  readonly smoothed?: boolean
  /** Candidates scored, and the calibration's wall-clock seconds (fp32 scoring included). */
  readonly trials?: number
  readonly seconds?: number
}

/** The model directory's `quantization.json`, when it has a readable one. */
export function readQuantizationInfo(dir: string): QuantizationInfo | undefined {
  const path = join(dir, QUANTIZATION_FILE)
  if (!existsSync(path)) return undefined
  try {
    return JSON.parse(readFileSync(path, 'utf8')) as QuantizationInfo
  } catch {
    return undefined
  }
}

/**
 * A note when `info`'s agreement was measured on another CPU kind than `kind` (or on an
 * unrecorded one): integer kernels differ by kind, so the agreement is not this machine's.
 */
export function agreementElsewhere(info: QuantizationInfo, kind: string): string | undefined {
  if (info.cpu?.kind === kind) return undefined
  return `agreement with fp32 measured on ${info.cpu ? info.cpu.kind : 'an unrecorded CPU kind'}, not on this ${kind}: re-check with quantize-model --calibration here`
}
