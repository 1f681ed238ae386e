/**
 * `quantize-model --calibration DATA.jsonl`: quantization that proves it kept the decisions.
 * DATA is scored (cyclic by default) with the fp32 model and with candidates: all quantized;
 * for int8, smoothed per input channel from the channel ranges a probe run measures
 * (activation-stats.ts), kept when it helps; then the first blocks kept float, as few as
 * hold the target ({@link searchKeepFloat}): until the final decisions agree with fp32 on at
 * least `minAgreement` of the clear ones (fp32 margin between the top two ≥ {@link CLEAR_MARGIN}).
 * The result is written beside the model (`quantization.json`), and every run on it records
 * it in its manifest.
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
import { cpuKind } from '../../../core/support/cpu-kind.ts'
import { quantizeModel, type QuantizeFormat, type QuantizeResult } from './quantize.ts'
import { buildPrompt } from '../../../core/requests/prompt.ts'
import { channelRanges, smoothingFactors } from './activation-stats.ts'

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
  /** CPU seconds of the scoring (this process, workers included): steadier than wall time on a shared machine. */
  readonly cpuSeconds?: number
}

/**
 * Units (quantizable weights, graph order) in groups of one block each: consecutive units
 * whose names carry the same first number (`model.layers.3.mlp.up_proj.weight`, `l3.w1`); a
 * unit without a number is a group of its own.
 */
export function blocksOf(units: readonly string[]): string[][] {
  const groups: string[][] = []
  let last: string | undefined
  for (const unit of units) {
    const block = /\d+/.exec(unit)?.[0]
    if (block !== undefined && block === last) groups.at(-1)!.push(unit)
    else groups.push([unit])
    last = block
  }
  return groups
}

/**
 * The search over `groups` (blocks of quantizable weights, in depth order): all quantized
 * first; below `minAgreement`, the first m blocks stay float, m doubling (1, 2, 4, …) until
 * the target holds, then bisected down to the fewest blocks that hold it. Depth order, because
 * quantization noise that enters early is carried and amplified by every later block (at 24
 * layers, keeping the first 4 float kept every held-out decision; keeping every down-projection
 * float, as many units, kept 94%). With `minPicks`, the per-ordering picks must agree on at
 * least that share too. At most `maxFloat` units stay float, and at least one stays
 * quantized; `chosen` undefined means no candidate reached the target, and `best` is the
 * closest one measured.
 */
export async function searchKeepFloat(
  groups: readonly (readonly string[])[],
  minAgreement: number,
  measure: (keepFloat: ReadonlySet<string>) => Promise<Trial>,
  maxFloat: number = groups.flat().length - 1,
  minPicks = 0,
): Promise<{ chosen: Trial | undefined; best: Trial; trials: number }> {
  const limit = Math.min(maxFloat, groups.flat().length - 1)
  const measured = new Map<number, Trial>()
  const floatOf = (m: number) => new Set(groups.slice(0, m).flat())
  const at = async (m: number) => measured.get(m) ?? measured.set(m, await measure(floatOf(m))).get(m)!
  const holds = (t: Trial) => t.decisions >= minAgreement && t.picks >= minPicks
  // The most blocks that fit the float budget.
  let most = 0
  while (most < groups.length && floatOf(most + 1).size <= limit) most++
  let low = 0
  let high: number | undefined
  if (!holds(await at(0)))
    for (let m = 1; m <= most; m = m * 2 > most && m < most ? most : m * 2) {
      if (holds(await at(m))) {
        high = m
        break
      }
      low = m
    }
  else high = 0
  if (high !== undefined)
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2)
      if (holds(await at(middle))) high = middle
      else low = middle
    }
  const all = [...measured.values()]
  const best = all.reduce((a, b) => (b.decisions > a.decisions || (b.decisions === a.decisions && b.picks > a.picks) ? b : a))
  return { chosen: high === undefined ? undefined : measured.get(high), best, trials: measured.size }
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
  /** Share of the clear decisions' per-ordering picks that must agree too (default 0: not required). */
  readonly minPickAgreement?: number
  readonly force: boolean
  /** Most MatMuls kept float (default: all but one). */
  readonly maxFloat?: number
  /** Progress lines (trials). */
  readonly log?: (line: string) => void
}

/** Quantize `inDir` into `outDir` keeping float what moves decisions; throws a ConfigError (and writes nothing) below the target without `force`. */
export async function calibratedQuantize(inDir: string, outDir: string, options: CalibrationOptions): Promise<{ result: QuantizeResult; info: QuantizationInfo }> {
  const started = performance.now()
  const { onnxScorer } = await import('../scorer.ts')
  const decisions = await loadDecisions(options.calibration)
  if (decisions.length === 0) throw new ConfigError(`${options.calibration}: no decisions to calibrate on`)
  const score = async (dir: string) => {
    const scorer = onnxScorer({ model: dir, workers: 1 })
    try {
      await scorer.ready()
      const t0 = performance.now()
      const cpu = process.cpuUsage()
      const result = await evaluateWithScorer(decisions, scorer, { debias: options.debias ?? 'cyclic', statistics: false })
      const used = process.cpuUsage(cpu)
      if (result.failed > 0) throw new ConfigError(`${dir}: ${result.failed} calibration decisions could not be scored`)
      return { records: result.records, seconds: (performance.now() - t0) / 1000, cpuSeconds: (used.user + used.system) / 1e6 }
    } finally {
      await scorer.close()
    }
  }
  const fp32 = await score(inDir)
  const clear = agreement(fp32.records, fp32.records).clear
  if (clear === 0) throw new ConfigError(`${options.calibration}: fp32 has no clear decision (margin ≥ ${CLEAR_MARGIN}) among ${decisions.length}; agreement cannot be measured`)
  const quantize = (keepFloat: ReadonlySet<string>, dir: string, smoothing?: ReadonlyMap<string, Float32Array>) =>
    quantizeModel(inDir, dir, { format: options.format, bits: options.bits, accuracyLevel: options.accuracyLevel, keepFloat, ...(smoothing ? { smoothing } : {}) })
  // Candidates go to a folder of this process's own: --model-out may be a user's folder, and a refusal removes only what was tried.
  const work = mkdtempSync(join(tmpdir(), 'sceptic-calibrate-'))
  try {
    return await search(work)
  } finally {
    removeOwnTreeSync(work)
  }

  /** int8: SmoothQuant factors from the channel ranges of the calibration prompts (one ordering each). */
  async function smoothingFor(work: string): Promise<Map<string, Float32Array> | undefined> {
    if (options.format !== 'int8') return undefined
    const probe = join(work, 'probe')
    const t0 = performance.now()
    try {
      const ranges = await channelRanges(inDir, probe, decisions.map((d) => buildPrompt(d.state, d.criterion)))
      options.log?.(`calibration: channel ranges of ${ranges.size} MatMul inputs over ${decisions.length} prompts (${((performance.now() - t0) / 1000).toFixed(1)} s)`)
      return new Map([...ranges].map(([name, range]) => [name, smoothingFactors(range)]))
    } finally {
      removeOwnTreeSync(probe)
    }
  }

  async function search(work: string): Promise<{ result: QuantizeResult; info: QuantizationInfo }> {
    let units: readonly string[] = []
    const candidate = join(work, 'candidate')
    const measure = async (keepFloat: ReadonlySet<string>, smoothing?: ReadonlyMap<string, Float32Array>): Promise<Trial> => {
      units = (await quantize(keepFloat, candidate, smoothing)).quantizable
      const run = await score(candidate)
      const a = agreement(fp32.records, run.records)
      options.log?.(`calibration: ${keepFloat.size} MatMuls float${smoothing ? ', smoothed' : ''}: decisions ${(100 * a.decisions).toFixed(1)}%, picks ${(100 * a.picks).toFixed(1)}%`)
      return { keptFloat: [...keepFloat], decisions: a.decisions, picks: a.picks, moved: a.moved, seconds: run.seconds, cpuSeconds: run.cpuSeconds }
    }
    const plain = await measure(new Set())
    const minPicks = options.minPickAgreement ?? 0
    const factors = plain.decisions >= options.minAgreement && plain.picks >= Math.max(minPicks, 1) ? undefined : await smoothingFor(work)
    const smoothedTrial = factors && (await measure(new Set(), factors))
    // Smoothing stays when it moved the decisions no more than the plain rounding did.
    const smooth = smoothedTrial && better(smoothedTrial, plain) ? factors : undefined
    const first = smooth ? smoothedTrial! : plain
    const { chosen, best, trials } = await searchKeepFloat(blocksOf(units), options.minAgreement, async (keep) => (keep.size === 0 ? first : measure(keep, smooth)), options.maxFloat, minPicks)
    const final = chosen ?? best
    if (!chosen && !options.force) {
      throw new ConfigError(
        `quantize-model: no candidate keeps ${(100 * options.minAgreement).toFixed(1)}% of the ${clear} clear calibration decisions${minPicks > 0 ? ` and ${(100 * minPicks).toFixed(1)}% of their picks` : ''} (best ${(100 * final.decisions).toFixed(1)}%${minPicks > 0 ? ` / ${(100 * final.picks).toFixed(1)}%` : ''} with ${final.keptFloat.length} of ${units.length} MatMuls float); nothing written (--force writes it anyway)`,
      )
    }
    const result = await quantize(new Set(final.keptFloat), outDir, smooth)
    const info: QuantizationInfo = {
      format: options.format,
      calibration: { file: basename(options.calibration), decisions: decisions.length, clear, debias: options.debias ?? 'cyclic' },
      minAgreement: options.minAgreement,
      ...(minPicks > 0 ? { minPickAgreement: minPicks } : {}),
      agreement: { decisions: final.decisions, picks: final.picks },
      // Integer kernels differ by CPU kind: the agreement holds for the kind it was measured on.
      cpu: cpuKind(),
      speedup: fp32.seconds / final.seconds,
      ...(final.cpuSeconds ? { cpuSpeedup: fp32.cpuSeconds / final.cpuSeconds } : {}),
      keptFloat: final.keptFloat,
      quantized: result.quantized,
      forced: !chosen,
      smoothed: smooth !== undefined,
      trials: trials + (smoothedTrial ? 1 : 0),
      seconds: (performance.now() - started) / 1000,
    }
    writeFileAtomicSync(join(outDir, QUANTIZATION_FILE), JSON.stringify(info, null, 2) + '\n', { fsync: false })
    return { result, info }
  }
}

/** `a` kept at least as many clear decisions as `b`, then as many picks, then moved the probabilities no more. */
function better(a: Trial, b: Trial): boolean {
  if (a.decisions !== b.decisions) return a.decisions > b.decisions
  if (a.picks !== b.picks) return a.picks > b.picks
  return a.moved <= b.moved
}
