/** Numbers as people read them (shares, points, p-values, intervals, the letters and progress lines), for every output that prints one. */
import { escapeControl } from '../core/support/escape.ts'

/** What a number that was not measured prints as. */
export const NOT_MEASURED = 'n/a'

const finite = (value: number | null | undefined): value is number => typeof value === 'number' && Number.isFinite(value)

/** A share in percent: `53.3%` (`digits` decimals), `n/a` when not measured. */
export function percent(value: number | null | undefined, digits = 1): string {
  return finite(value) ? `${(value * 100).toFixed(digits)}%` : NOT_MEASURED
}

/** A difference of shares in percentage points: `46.7 pp`. */
export function points(value: number, digits = 1): string {
  return `${Math.abs(value * 100).toFixed(digits)} pp`
}

/** A number with its sign: `+0.42`, `−0.42`, `0.00` (a true minus sign). */
export function signed(value: number, digits: number): string {
  const text = Math.abs(value).toFixed(digits)
  const zero = Number(text) === 0
  return `${zero ? '' : value > 0 ? '+' : '−'}${text}`
}

/** A difference of shares with its sign: `+46.7 pp`, `−46.7 pp`. */
export function signedPoints(value: number, digits = 1): string {
  return `${signed(value * 100, digits)} pp`
}

/** An interval of differences in points: `[−5.0, +22.1] pp`. */
export function signedPointsInterval(interval: { lower: number; upper: number }): string {
  return `[${signed(interval.lower * 100, 1)}, ${signed(interval.upper * 100, 1)}] pp`
}

/** Below this a p-value prints as `p < 0.0001`. */
export const P_FLOOR = 1e-4

/**
 * A p-value as a statement: `p < 0.0001` below {@link P_FLOOR}, else `p = ` and three
 * significant digits (`p = 0.041`, `p = 0.00012`, `p = 1`). `name` replaces the `p`
 * (`mid-p`), so the comparison sign is never doubled.
 */
export function formatP(p: number, name = 'p'): string {
  if (!Number.isFinite(p)) return `${name} ${NOT_MEASURED}`
  if (p < P_FLOOR) return `${name} < 0.0001`
  return `${name} = ${p >= 0.9995 ? '1' : String(Number(p.toPrecision(3)))}`
}

/** What each interval method is called where a page or a line names it. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  wilson: 'Wilson',
  'clopper-pearson': 'exact Clopper-Pearson',
  'clopper-pearson-bonferroni': 'exact Clopper-Pearson per class, Bonferroni',
  'mover-wilson': 'MOVER-Wilson',
  'percentile-bootstrap': 'percentile bootstrap',
}

/** The methods an interval falls back to when its bootstrap collapses (every decision right, or every one wrong). */
const FALLBACK_METHODS = new Set(['clopper-pearson', 'clopper-pearson-bonferroni'])

/** An interval method's reader-facing name (`exact Clopper-Pearson`); the raw name when unknown. */
export function methodName(method: string): string {
  return METHOD_NAMES[method] ?? method
}

/**
 * A share's interval in percent, one decimal: `[62.0, 79.8]`. An interval that fell
 * back from the bootstrap names its method: `[93.6, 100.0] exact Clopper-Pearson`.
 */
export function formatInterval(interval: { lower: number; upper: number; method?: string | undefined }): string {
  const bounds = `[${(interval.lower * 100).toFixed(1)}, ${(interval.upper * 100).toFixed(1)}]`
  return interval.method !== undefined && FALLBACK_METHODS.has(interval.method) ? `${bounds} ${methodName(interval.method)}` : bounds
}

/** Letters in reading order: A before B, Z before AA. */
export function sortLetters(letters: Iterable<string>): string[] {
  return [...letters].sort((x, y) => x.length - y.length || (x < y ? -1 : x > y ? 1 : 0))
}

/** The letters picked: `A:100%  B:0%  C:0%`, in letter order (the evidence a position prior leaves). */
export function lettersLine(distribution: Readonly<Record<string, number>> | undefined, separator = '  '): string {
  if (!distribution) return NOT_MEASURED
  return sortLetters(Object.keys(distribution))
    .map((letter) => `${letter}:${percent(distribution[letter] ?? 0, 0)}`)
    .join(separator)
}

/** The most-picked letter and its share, or `null` when nothing was picked. */
export function topLetter(distribution: Readonly<Record<string, number>> | undefined): [letter: string, share: number] | null {
  let best: [string, number] | null = null
  for (const letter of sortLetters(Object.keys(distribution ?? {}))) {
    const share = distribution![letter] ?? 0
    if (best === null || share > best[1]) best = [letter, share]
  }
  return best === null || best[1] <= 0 ? null : best
}

/** Fewest paired decisions whose exact two-sided McNemar test can reach p < 0.05 (all flipping one way: 2·½⁶ = 0.031; five give 0.0625). */
export const MIN_DETECTING_PAIRS = 6

/**
 * The smallest paired accuracy change a set detects, as a reader should take it:
 * `±19.4 pp`, or `n = 2: too small to detect any change` when no outcome of the exact
 * test could be significant (fewer than {@link MIN_DETECTING_PAIRS} decisions) or the
 * approximation asks for 100 points or more (no accuracy can move further).
 */
export function detectableChange(minimumDetectableDifference: number, n: number): string {
  if (tooSmallToDetect(minimumDetectableDifference, n)) return `n = ${n}: too small to detect any change`
  return `±${points(minimumDetectableDifference)}`
}

/** Whether a set of `n` paired decisions can detect no change at all (see {@link detectableChange}). */
export function tooSmallToDetect(minimumDetectableDifference: number, n: number): boolean {
  return !Number.isFinite(minimumDetectableDifference) || minimumDetectableDifference >= 1 || n < MIN_DETECTING_PAIRS
}


/** Units the report prints a thresholded metric in: shares in percent, the slot gap in points, the rest as numbers. */
const PERCENT_KEYS = new Set(['accuracy', 'balancedAccuracy', 'orderConsistency', 'circularAccuracy', 'orderingAccuracy', 'positionConsistency', 'firstShownRate', 'repetitionStability'])
const POINT_KEYS = new Set(['slotSensitivityGap'])

/**
 * A thresholded metric's value, or one of its bounds, in the unit the report shows that
 * metric in (`70.0%`, `35.0 pp`, `0.35`), so a value and its bound always read alike.
 */
export function metricValue(key: string, value: number): string {
  if (PERCENT_KEYS.has(key)) return percent(value)
  if (POINT_KEYS.has(key)) return points(value)
  return String(Number(value.toFixed(3)))
}

/** Least time between two progress lines of one run, in ms. */
export const PROGRESS_INTERVAL_MS = 2000

/** What a progress line reports. */
export interface ProgressFacts {
  /** Suite name or data file. */
  suite: string
  /** Decisions fully scored. */
  scored: number
  /** Decisions to score. */
  total: number
  /** Milliseconds since scoring started. */
  elapsedMs: number
}

/** `support triage: 120/560 decisions scored · 41.3/s · ETA 11s`. */
export function progressLine({ suite, scored, total, elapsedMs }: ProgressFacts): string {
  const rate = elapsedMs > 0 ? scored / (elapsedMs / 1000) : 0
  const eta = rate > 0 ? (total - scored) / rate : Infinity
  // The suite's name is the user's (or the data's): escaped like every string on a terminal line.
  return `${escapeControl(suite)}: ${scored}/${total} decisions scored · ${rate.toFixed(1)}/s · ETA ${formatDuration(eta)}`
}

/** Seconds as `42s`, `3m 05s` or `1h 02m`; `?` when unknown. */
export function formatDuration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?'
  const s = Math.max(0, Math.round(seconds))
  if (s < 60) return `${s}s`
  if (s < 3600) return `${Math.floor(s / 60)}m ${String(s % 60).padStart(2, '0')}s`
  return `${Math.floor(s / 3600)}h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`
}

/** Tie counts of a run (`manifest.tied`): decisions with no single answer and tied per-ordering picks. */
export interface TieCounts {
  readonly decisions: number
  readonly picks: number
}

/** Whether a run had any tie worth a line (older results carry no counts). */
export function hasTies(tied: TieCounts | undefined): tied is TieCounts {
  return tied !== undefined && (tied.decisions > 0 || tied.picks > 0)
}

/** What the tie count means, read after it: `decisions with no single answer (counted wrong); 5 tied picks (letter split evenly)`. */
export function tiedDetail(tied: TieCounts): string {
  return `decision${tied.decisions === 1 ? '' : 's'} with no single answer (counted wrong); ${tied.picks} tied pick${tied.picks === 1 ? '' : 's'} (letter split evenly)`
}

/**
 * How an ONNX scorer read the letters (`manifest.readout`), in the report's words: the letter
 * head (the last position's letter rows only) or the full logits, with the reason the scorer
 * gave for falling back. Undefined when the scorer recorded none (not an ONNX scorer).
 */
export function readoutText(readout: unknown): string | undefined {
  if (typeof readout !== 'string' || readout === '') return undefined
  if (readout.startsWith('last position')) return `letter head (${readout})`
  // A run whose every answer came from the score cache never loaded the model.
  if (readout === 'not started') return 'not started: every answer came from the score cache'
  return readout
}
