/**
 * Baselines: one reviewable JSON file per suite holding what the paired regression
 * test needs (issue 3, "Must hold" 4): order consistency, balanced accuracy, the
 * data fingerprint and each decision's consistency flag by record id. The gate is an
 * exact one-sided McNemar test on the decisions whose flag changed (literature notes
 * §4.5 step 1), plus a power check so "no detectable drop" is never said when no drop
 * could have been detected (§4.5 step 3).
 */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { isConsistent, type DebiasMode, type EvalResult } from '../core/index.ts'
import { formatValue, percent, slug } from './format.ts'
import { mcnemarRegression, powerCheck, type PowerCheck } from './mcnemar.ts'

/** The baseline file's layout (`<baseline dir>/<suite slug>.json`). */
export interface BaselineFile {
  /** Layout version. */
  schema: 1
  /** The suite name it belongs to. */
  suite: string
  /** `manifest.fingerprint` of the data it was recorded on; the paired test needs it to match. */
  fingerprint: string
  /** Debias mode it was recorded with. */
  debias: DebiasMode
  /** What scored it (`manifest.model ?? manifest.scorer`). */
  scorer: string
  /** Labelled decisions scored. */
  n: number
  /** Order consistency at baseline (`null` when one ordering was scored). */
  orderConsistency: number | null
  /** Balanced accuracy at baseline, for the record (not gated). */
  balancedAccuracy: number
  /** Per decision (record id): whether its pick was the same under every ordering. */
  consistent: Record<string, boolean>
}

/** How the gate ended. */
export type BaselineStatus =
  /** Compared, no significant drop. */
  | 'pass'
  /** Compared, order consistency dropped by more than chance allows. */
  | 'regressed'
  /** No baseline yet; one was written (local run). */
  | 'written'
  /** `vitest -u`: the baseline was rewritten from this run. */
  | 'updated'
  /** No baseline, and baselines are not written in this mode (CI). */
  | 'missing'
  /** The baseline was recorded on other data; nothing can be paired. */
  | 'fingerprint-mismatch'

/** The gate's outcome, stored in suite meta for the report. */
export interface BaselineOutcome {
  /** How the gate ended. */
  status: BaselineStatus
  /** The baseline file, relative to the Vitest root. */
  file: string
  /** Whether the named test `… > order consistency vs baseline` passed. */
  pass: boolean
  /** One plain sentence for the report and the failure message. */
  message: string
  /** Order consistency at baseline, when a baseline was read. */
  baselineOrderConsistency?: number | null
  /** Order consistency now. */
  orderConsistency?: number | null
  /** Decisions consistent at baseline and not now. */
  worse?: number
  /** Decisions inconsistent at baseline and consistent now. */
  better?: number
  /** One-sided exact McNemar p-value. */
  p?: number
  /** Significance level used. */
  alpha?: number
  /** What this set can detect at all. */
  power?: PowerCheck
}

/** The baseline path of a suite: `<dir>/<slug(suite)>.json`. */
export function baselinePath(dir: string, suite: string): string {
  return join(dir, `${slug(suite)}.json`)
}

/**
 * Per-decision consistency flags by record id. Ids are unique within a well-formed
 * set; a repeated id gets `~2`, `~3`, … so no flag is lost.
 */
export function consistencyFlags(result: Pick<EvalResult, 'records'>): Record<string, boolean> {
  const out: Record<string, boolean> = {}
  for (const record of result.records) {
    let key = record.id
    for (let k = 2; key in out; k++) key = `${record.id}~${k}`
    out[key] = isConsistent(record.picks)
  }
  return out
}

/** The baseline a result would write. */
export function baselineFromResult(suite: string, result: EvalResult): BaselineFile {
  return {
    schema: 1,
    suite,
    fingerprint: result.manifest.fingerprint,
    debias: result.manifest.debias,
    scorer: String(result.manifest.model ?? result.manifest.scorer),
    n: result.n,
    orderConsistency: result.orderConsistency,
    balancedAccuracy: result.balancedAccuracy,
    consistent: consistencyFlags(result),
  }
}

/** Stable JSON text: two-space indent, one flag per line, trailing newline (so diffs review well and `-u` without change rewrites identical bytes). */
export function serialiseBaseline(baseline: BaselineFile): string {
  return JSON.stringify(baseline, null, 2) + '\n'
}

/** Read a baseline, or `undefined` when the file does not exist. A malformed file throws with its path. */
export async function readBaseline(path: string): Promise<BaselineFile | undefined> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  let value: BaselineFile
  try {
    value = JSON.parse(text) as BaselineFile
  } catch (error) {
    throw new Error(`baseline ${path} is not valid JSON (${(error as Error).message}); fix it or refresh it with \`vitest -u\``)
  }
  if (value?.schema !== 1 || typeof value.fingerprint !== 'string' || typeof value.consistent !== 'object')
    throw new Error(`baseline ${path} is not a vitest-sceptic baseline (schema 1); refresh it with \`vitest -u\``)
  return value
}

/** Write a baseline atomically (temp file + rename), creating the directory. */
export async function writeBaseline(path: string, baseline: BaselineFile): Promise<void> {
  await mkdir(dirname(path), { recursive: true })
  const temp = `${path}.${process.pid}.tmp`
  await writeFile(temp, serialiseBaseline(baseline))
  await rename(temp, path)
}

/** Options of {@link compareWithBaseline}. */
export interface CompareOptions {
  /** Significance level of the one-sided test. */
  alpha: number
  /** The drop (share of decisions) the set should be able to detect; used for the power check. */
  detectableDrop: number
}

/**
 * The gate on data with the same fingerprint: pair decisions by id, count the
 * discordant pairs, and fail when `P(Bin(worse + better, ½) ≥ worse) < alpha`.
 * Returns the outcome without `file`.
 */
export function compareWithBaseline(
  baseline: BaselineFile,
  current: BaselineFile,
  { alpha, detectableDrop }: CompareOptions,
): Omit<BaselineOutcome, 'file'> {
  if (baseline.fingerprint !== current.fingerprint)
    return {
      status: 'fingerprint-mismatch',
      pass: false,
      message:
        `baseline fingerprint mismatch: the baseline was recorded on data ${baseline.fingerprint} (${baseline.n} decisions), ` +
        `this run scored ${current.fingerprint} (${current.n} decisions), so no decision can be paired. ` +
        'If the data changed on purpose, refresh the baseline with `vitest -u` and commit it.',
      baselineOrderConsistency: baseline.orderConsistency,
      orderConsistency: current.orderConsistency,
    }

  let worse = 0
  let better = 0
  let baselineConsistent = 0
  for (const [id, now] of Object.entries(current.consistent)) {
    const before = baseline.consistent[id]
    if (before === undefined) continue
    if (before) baselineConsistent++
    if (before && !now) worse++
    else if (!before && now) better++
  }
  const { p } = mcnemarRegression(worse, better)
  const power = powerCheck(current.n, baselineConsistent, detectableDrop, alpha)
  const regressed = p < alpha
  const counts =
    `order consistency ${percent(current.orderConsistency ?? 0)} vs ${percent(baseline.orderConsistency ?? 0)} at baseline: ` +
    `${worse} decision${worse === 1 ? '' : 's'} newly inconsistent, ${better} newly consistent, ` +
    `one-sided exact McNemar p = ${formatP(p)}`
  let message: string
  if (regressed) message = `${counts} < alpha ${alpha}: order consistency regressed by more than chance allows`
  else if (!power.detectable)
    message =
      `${counts}: no significant drop, but this set is too small to detect a drop of ${percent(detectableDrop)} ` +
      `(${power.decisionsForDrop} decision${power.decisionsForDrop === 1 ? '' : 's'}; even all of them flipping one way gives p = ${formatP(power.bestCaseP)} ≥ ${alpha}). ` +
      `The smallest drop it can detect is ${power.minimumFlips} decisions (${percent(power.minimumDetectableDrop)})` +
      (baselineConsistent < power.minimumFlips ? `, and only ${baselineConsistent} were consistent at baseline` : '')
  else message = `${counts}: no significant drop (a drop of ${percent(detectableDrop)} would be detectable)`
  return {
    status: regressed ? 'regressed' : 'pass',
    pass: !regressed,
    message,
    baselineOrderConsistency: baseline.orderConsistency,
    orderConsistency: current.orderConsistency,
    worse,
    better,
    p,
    alpha,
    power,
  }
}

/** A p-value for humans: 3 significant digits, `< 0.0001` below that. */
export function formatP(p: number): string {
  return p < 1e-4 ? '< 0.0001' : p >= 0.9995 ? '1' : String(Number(p.toPrecision(3)))
}

/** `0.893 → 0.911` style summary of two values. */
export function formatChange(before: number | null | undefined, after: number | null | undefined): string {
  return `${formatValue(before)} → ${formatValue(after)}`
}
