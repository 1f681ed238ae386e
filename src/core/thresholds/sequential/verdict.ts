/**
 * Threshold verdicts of a run that could stop early: when it stopped, the anytime-valid
 * verdicts decide; when every decision was scored, the fixed-sample verdict does, saying
 * whether the looks had already decided.
 */
import type { EvalResultJson } from '../../result/result.ts'
import { formatThreshold, toBounds, type Threshold, type ThresholdVerdict } from '../verdict.ts'
import type { RateBounds } from '../../math/confidence-sequence.ts'
import type { StopEarlyResult } from '../../result/stop-early.ts'

/** A result's `stopEarly`, read defensively (documents written by other versions lack it, a hand-edited one may be malformed). */
export function stopEarlyOf(result: EvalResultJson): StopEarlyResult | undefined {
  const stop: unknown = (result as { stopEarly?: unknown }).stopEarly
  if (typeof stop !== 'object' || stop === null) return undefined
  const { scored, total, alpha, verdicts, bounds } = stop as Record<string, unknown>
  const isObject = (value: unknown) => typeof value === 'object' && value !== null
  return Number.isFinite(scored) && Number.isFinite(total) && Number.isFinite(alpha) && isObject(verdicts) && isObject(bounds) ? (stop as StopEarlyResult) : undefined
}

const pct = (value: number) => `${(value * 100).toFixed(1)}%`
const pctBound = (value: number) => `${Number((value * 100).toFixed(2))}%`

/** `decided after 212 of 1000 decisions, anytime-valid at α = 0.05` */
export function decidedAfter(stop: Pick<StopEarlyResult, 'scored' | 'total' | 'alpha'>): string {
  return `decided after ${stop.scored} of ${stop.total} decisions, anytime-valid at α = ${stop.alpha}`
}

/** What the bounds say about a threshold: `lower bound 73.1% ≥ 70%`, `upper bound 61.0% < 70%`, `upper bound 8.0% ≤ 10%`. */
export function boundsPhrase(threshold: Threshold, bounds: RateBounds, verdict: 'pass' | 'fail' | 'undecided'): string {
  const { min, max } = toBounds(threshold)
  if (verdict === 'fail')
    return min !== undefined && bounds.upper < min ? `upper bound ${pct(bounds.upper)} < ${pctBound(min)}` : `lower bound ${pct(bounds.lower)} > ${pctBound(max!)}`
  if (verdict === 'pass' && max === undefined) return `lower bound ${pct(bounds.lower)} ≥ ${pctBound(min!)}`
  if (verdict === 'pass' && min === undefined) return `upper bound ${pct(bounds.upper)} ≤ ${pctBound(max!)}`
  return `bounds [${pct(bounds.lower)}, ${pct(bounds.upper)}] ${verdict === 'pass' ? '' : 'vs '}${formatThreshold(threshold, pctBound)}`
}

/** The sentence for one threshold of a run evaluated with `stopEarly`. */
export function stopEarlySentence(stop: StopEarlyResult, key: string, threshold: Threshold): string {
  const verdict = stop.verdicts[key] ?? 'undecided'
  const bounds = stop.bounds[key]
  if (verdict !== 'undecided' && bounds) return `${decidedAfter(stop)}: ${boundsPhrase(threshold, bounds, verdict)}`
  if (!stop.stopped)
    return `not decided sequentially (${bounds ? `anytime-valid bounds [${pct(bounds.lower)}, ${pct(bounds.upper)}] at α = ${stop.alpha}` : 'not a per-decision rate'}): all ${stop.total} decisions scored, the full-set value decides`
  const failed = [...Object.keys(stop.verdicts).filter((k) => stop.verdicts[k] === 'fail'), ...(stop.baseline === 'fail' ? ['the baseline gate'] : [])]
  return `not decided: the run stopped after ${stop.scored} of ${stop.total} decisions when ${failed.join(', ')} failed; score every decision (without stopEarly) to measure it`
}

/**
 * A threshold verdict as a run evaluated with `stopEarly` gives it. Stopped early: the
 * anytime-valid verdict, and an undecided threshold fails (it was not measured on the
 * full set). Every decision scored: the fixed-sample verdict as given. Either way the
 * verdict carries its sentence in `sequential`.
 */
export function withStopEarly(result: EvalResultJson, key: string, threshold: Threshold, fixed: ThresholdVerdict): ThresholdVerdict {
  const stop = stopEarlyOf(result)
  if (!stop) return fixed
  const sequential = stopEarlySentence(stop, key, threshold)
  if (!stop.stopped) return { ...fixed, sequential }
  const verdict = stop.verdicts[key] ?? 'undecided'
  if (verdict === 'pass') return { ...fixed, pass: true, reason: null, sequential }
  return { ...fixed, pass: false, reason: sequential, sequential }
}

/**
 * The report's line of a run evaluated with `stopEarly`, or undefined without it:
 * `decided after 212 of 1000 decisions, anytime-valid at α = 0.05: balanced accuracy lower bound 73.1% ≥ 70%`.
 */
export function stopEarlyLine(result: EvalResultJson, label: (key: string) => string = (key) => key): string | undefined {
  const stop = stopEarlyOf(result)
  if (!stop) return undefined
  // The baseline gate decided at the looks (a paired McNemar e-process): its phrase beside the thresholds'.
  const baseline = stop.baseline === 'pass' ? 'baseline gate: no drop to catch' : stop.baseline === 'fail' ? 'baseline gate: regressed' : undefined
  if (Object.keys(stop.verdicts).length === 0 && !(stop.stopped && baseline)) return `no threshold to decide, so every decision was scored (${stop.total})`
  const thresholds = (result.manifest.thresholds ?? {}) as Record<string, Threshold>
  const decided = Object.keys(stop.verdicts).filter((key) => stop.verdicts[key] !== 'undecided' && stop.bounds[key] && thresholds[key] !== undefined)
  const phrases = [...decided.map((key) => `${label(key)} ${boundsPhrase(thresholds[key]!, stop.bounds[key]!, stop.verdicts[key]!)}`), ...(stop.stopped && baseline ? [baseline] : [])]
  if (stop.stopped) return `${decidedAfter(stop)}: ${phrases.join('; ')}`
  const undecided = Object.keys(stop.verdicts).filter((key) => stop.verdicts[key] === 'undecided').map(label)
  return `every decision scored (${stop.total}): ${undecided.length > 0 ? `${undecided.join(', ')} not decided sequentially at α = ${stop.alpha}, so the full set decides` : `decided anytime-valid at α = ${stop.alpha} only at the end`}${phrases.length > 0 ? `; ${phrases.join('; ')}` : ''}`
}
