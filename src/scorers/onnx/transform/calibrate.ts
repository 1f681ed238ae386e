/**
 * `quantize-model --calibration DATA.jsonl`: quantization that proves it kept the decisions.
 * DATA is scored (cyclic by default) with the fp32 model and with candidates; a MatMul whose
 * quantization moves decisions stays float, chosen greedily by measured sensitivity (each
 * weight quantized alone: how far it moves the final probabilities of the clear decisions),
 * until the final decisions agree with fp32 on at least `minAgreement` of the clear ones
 * (fp32 margin between the top two ≥ {@link CLEAR_MARGIN}). The result is written beside the
 * model (`quantization.json`), and every run on it records it in its manifest.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, join } from 'node:path'
import { loadDecisions } from '../../../core/decisions/load.ts'
import { ConfigError } from '../../../core/support/errors.ts'
import { removeOwnTreeSync, writeFileAtomicSync } from '../../../core/support/files.ts'
import { evaluateWithScorer } from '../../../core/evaluate/index.ts'
import type { DebiasMode } from '../../../core/requests/orderings.ts'
import type { DecisionRecord } from '../../../core/result/record.ts'
import { QUANTIZATION_FILE, type QuantizationInfo } from '../model/quantization-info.ts'
import { quantizeModel, type QuantizeFormat, type QuantizeResult } from './quantize.ts'

/** A decision is clear when fp32's two likeliest options differ by at least this. */
export const CLEAR_MARGIN = 0.05

/** Agreement of `candidate` records with fp32's on fp32's clear decisions. */
export function agreement(fp32: readonly DecisionRecord[], candidate: readonly DecisionRecord[]): { decisions: number; picks: number; clear: number; moved: number } {
  let clear = 0
  let same = 0
  let picks = 0
  let samePicks = 0
  let moved = 0
  fp32.forEach((base, i) => {
    const p = Object.values(base.probabilities).sort((a, b) => b - a)
    if ((p[0] ?? 0) - (p[1] ?? 0) < CLEAR_MARGIN) return
    const other = candidate[i]!
    clear++
    if (other.prediction === base.prediction) same++
    base.picks.forEach((pick, k) => (picks++, pick === other.picks[k] && samePicks++))
    for (const [id, value] of Object.entries(base.probabilities)) moved += Math.abs(value - (other.probabilities[id] ?? 0))
  })
  return { decisions: clear === 0 ? 1 : same / clear, picks: picks === 0 ? 1 : samePicks / picks, clear, moved }
}

/** One measured candidate: which weights stayed float, its agreement, its scoring seconds. */
export interface Trial {
  readonly keptFloat: readonly string[]
  readonly decisions: number
  readonly picks: number
  readonly moved: number
  readonly seconds: number
}

/**
 * The greedy search over `units` (quantizable weights): all quantized first; below
 * `minAgreement`, each unit's sensitivity is measured alone (`measure` with every other
 * unit float) and units are kept float, most sensitive first, until the target holds. At
 * most `maxFloat` units stay float, and at least one stays quantized; `chosen` undefined
 * means no candidate reached the target, and `best` is the last one measured.
 */
export async function searchKeepFloat(
  units: readonly string[],
  minAgreement: number,
  measure: (keepFloat: ReadonlySet<string>) => Promise<Trial>,
  maxFloat: number = units.length - 1,
): Promise<{ chosen: Trial | undefined; best: Trial; trials: number }> {
  let trials = 1
  const all = await measure(new Set())
  const limit = Math.min(maxFloat, units.length - 1)
  if (all.decisions >= minAgreement || limit < 1) return { chosen: all.decisions >= minAgreement ? all : undefined, best: all, trials }
  const sensitivity = new Map<string, number>()
  for (const unit of units) {
    const alone = await measure(new Set(units.filter((u) => u !== unit)))
    trials++
    sensitivity.set(unit, (1 - alone.decisions) * 1e6 + alone.moved)
  }
  const order = [...units].sort((a, b) => sensitivity.get(b)! - sensitivity.get(a)!)
  let best = all
  for (let k = 1; k <= limit; k++) {
    best = await measure(new Set(order.slice(0, k)))
    trials++
    if (best.decisions >= minAgreement) return { chosen: best, best, trials }
  }
  return { chosen: undefined, best, trials }
}

/** Options of {@link calibratedQuantize}. */
export interface CalibrationOptions {
  readonly format: QuantizeFormat
  readonly bits: 4 | 8
  readonly accuracyLevel: 0 | 4
  readonly calibration: string
  /** The debiasing the decisions are compared under (as the runs that will use the model). Default cyclic. */
  readonly debias?: DebiasMode
  readonly minAgreement: number
  readonly force: boolean
  /** Most MatMuls kept float (default: all but one). */
  readonly maxFloat?: number
  /** Progress lines (trials). */
  readonly log?: (line: string) => void
}

/** Quantize `inDir` into `outDir` keeping float what moves decisions; throws a ConfigError (and writes nothing) below the target without `force`. */
export async function calibratedQuantize(inDir: string, outDir: string, options: CalibrationOptions): Promise<{ result: QuantizeResult; info: QuantizationInfo }> {
  const { onnxScorer } = await import('../scorer.ts')
  const decisions = await loadDecisions(options.calibration)
  if (decisions.length === 0) throw new ConfigError(`${options.calibration}: no decisions to calibrate on`)
  const score = async (dir: string) => {
    const scorer = onnxScorer({ model: dir, workers: 1 })
    try {
      await scorer.ready()
      const t0 = performance.now()
      const result = await evaluateWithScorer(decisions, scorer, { debias: options.debias ?? 'cyclic', statistics: false })
      if (result.failed > 0) throw new ConfigError(`${dir}: ${result.failed} calibration decisions could not be scored`)
      return { records: result.records, seconds: (performance.now() - t0) / 1000 }
    } finally {
      await scorer.close()
    }
  }
  const fp32 = await score(inDir)
  const clear = agreement(fp32.records, fp32.records).clear
  if (clear === 0) throw new ConfigError(`${options.calibration}: fp32 has no clear decision (margin ≥ ${CLEAR_MARGIN}) among ${decisions.length}; agreement cannot be measured`)
  const quantize = (keepFloat: ReadonlySet<string>, dir: string) =>
    quantizeModel(inDir, dir, { format: options.format, bits: options.bits, accuracyLevel: options.accuracyLevel, keepFloat })
  // Candidates go to a folder of this process's own: --model-out may be a user's folder, and a refusal removes only what was tried.
  const work = mkdtempSync(join(tmpdir(), 'sceptic-calibrate-'))
  try {
    return await search(work)
  } finally {
    removeOwnTreeSync(work)
  }

  async function search(work: string): Promise<{ result: QuantizeResult; info: QuantizationInfo }> {
    let units: readonly string[] = []
    const measure = async (keepFloat: ReadonlySet<string>): Promise<Trial> => {
      units = (await quantize(keepFloat, work)).quantizable
      const candidate = await score(work)
      const a = agreement(fp32.records, candidate.records)
      options.log?.(`calibration: ${keepFloat.size} MatMuls float: decisions ${(100 * a.decisions).toFixed(1)}%, picks ${(100 * a.picks).toFixed(1)}%`)
      return { keptFloat: [...keepFloat], decisions: a.decisions, picks: a.picks, moved: a.moved, seconds: candidate.seconds }
    }
    const first = await measure(new Set())
    const { chosen, best } = await searchKeepFloat(units, options.minAgreement, async (keep) => (keep.size === 0 ? first : measure(keep)), options.maxFloat)
    const final = chosen ?? best
    if (!chosen && !options.force) {
      throw new ConfigError(
        `quantize-model: no candidate keeps ${(100 * options.minAgreement).toFixed(1)}% of the ${clear} clear calibration decisions (best ${(100 * final.decisions).toFixed(1)}% with ${final.keptFloat.length} of ${units.length} MatMuls float); nothing written (--force writes it anyway)`,
      )
    }
    const result = await quantize(new Set(final.keptFloat), outDir)
    const info: QuantizationInfo = {
      format: options.format,
      calibration: { file: basename(options.calibration), decisions: decisions.length, clear, debias: options.debias ?? 'cyclic' },
      minAgreement: options.minAgreement,
      agreement: { decisions: final.decisions, picks: final.picks },
      speedup: fp32.seconds / final.seconds,
      keptFloat: final.keptFloat,
      quantized: result.quantized,
      forced: !chosen,
    }
    writeFileAtomicSync(join(outDir, QUANTIZATION_FILE), JSON.stringify(info, null, 2) + '\n', { fsync: false })
    return { result, info }
  }
}
