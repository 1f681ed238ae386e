/**
 * Baselines: one reviewable JSON file per suite with the scorer setup and, per decision, a
 * content fingerprint and its consistency and strict-correctness flags. The gate pairs
 * decisions by id and fingerprint and runs one-sided exact McNemar tests (McNemar 1947;
 * docs/statistics.md) with a power check, so "no detectable drop" is never said when none could be detected.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile } from 'node:fs/promises'
import { describeKind, pathKind, writeFileAtomic } from '../../core/support/files.ts'
import { dirname, join } from 'node:path'
import { z } from 'zod'
import { DEBIAS_MODES, type EvalResult } from '../../core/index.ts'
import { nearTieNote, otherCpuKind, tooManyNearTieFlips } from './cpu-kind.ts'
import type { BaselineOutcome } from './outcome.ts'
import { pairFlags, type SequentialVerdict } from '../../core/thresholds/sequential/paired.ts'
import { dictSchema } from '../../core/support/dict.ts'
import { formatValue, percent, slug } from '../assertions/format.ts'
import { formatP } from '../../report/format.ts'
import { mcnemarRegression, powerCheck, type PowerCheck } from '../../core/statistics/regression-gate.ts'
import { parseJsonText } from '../../core/support/json-text.ts'

/** One decision in a baseline. */
const BaselineDecisionSchema = z.strictObject({
  /** First 16 hex digits of sha256 over the decision's criterion, gold answer, option ids and prompt hash. */
  fingerprint: z.string().regex(/^[0-9a-f]{16}$/),
  /**
   * Whether its pick was the same under every ordering; `null` when it was scored under one
   * ordering (`pride` scores only its sample under several), so there is nothing to compare.
   */
  consistent: z.boolean().nullable(),
  /** Whether its pick was the gold option under every ordering (strict correctness, as in `circularAccuracy`). */
  strict: z.boolean(),
  /** Present (true) only when some ordering's pick was a near-tie (top two within 1e-4): rounding on another CPU kind could swap it. */
  nearTie: z.literal(true).optional(),
})

/** The baseline file's layout (`<baseline dir>/<suite slug>.json`), checked on read. */
export const BaselineFileSchema = z.strictObject({
  /** Layout version: 2 (per-decision fingerprints). Version 1 files are refused with a hint to refresh. */
  schema: z.literal(2),
  /** The suite name it belongs to. */
  suite: z.string(),
  /** Debias mode it was recorded with; a different mode invalidates the baseline. */
  debias: z.enum(DEBIAS_MODES),
  /** What scored it (`manifest.model ?? manifest.scorer`); a different scorer invalidates the baseline. */
  scorer: z.string(),
  /** The CPU kind that scored it (`manifest.cpu.kind`); on another kind, flips at near-ties are named, not counted. */
  cpu: z.string().optional(),
  /** Labelled decisions scored. */
  n: z.number().int().nonnegative(),
  /** Order consistency at baseline (`null` when one ordering was scored). */
  orderConsistency: z.number().min(0).max(1).nullable(),
  /** Balanced accuracy at baseline, for the record (not gated). */
  balancedAccuracy: z.number().min(0).max(1),
  /** Circular accuracy at baseline (`null` when one ordering was scored); gated per decision. */
  circularAccuracy: z.number().min(0).max(1).nullable(),
  /** Per decision (record id): its content fingerprint, consistency flag and strict-correctness flag. */
  decisions: dictSchema(BaselineDecisionSchema),
})

/** A baseline file (see {@link BaselineFileSchema}). */
export type BaselineFile = z.infer<typeof BaselineFileSchema>
/** One decision of a {@link BaselineFile}. */
export type BaselineDecision = z.infer<typeof BaselineDecisionSchema>

export type { BaselineOutcome, BaselineStatus } from './outcome.ts'

/** The baseline path of a suite: `<dir>/<slug(suite)>.json`. */
export function baselinePath(dir: string, suite: string): string {
  return join(dir, `${slug(suite)}.json`)
}

/**
 * Per-decision fingerprints and consistency flags by record id. Ids are unique within a
 * well-formed set; a repeated id gets `~2`, `~3`, … so no flag is lost.
 */
export function baselineDecisions(result: Pick<EvalResult, 'records'>): Record<string, BaselineDecision> {
  const out: Record<string, BaselineDecision> = Object.create(null)
  for (const record of result.records) {
    let key = record.id
    for (let k = 2; key in out; k++) key = `${record.id}~${k}`
    out[key] = { fingerprint: decisionFingerprint(record), ...pairFlags(record), ...(record.nearTie ? { nearTie: true as const } : {}) }
  }
  return { ...out }
}

/**
 * A decision's content fingerprint: sha256 (first 16 hex digits) over its criterion key,
 * gold answer, option ids and the hash of its prompt (state, question and option texts).
 */
export function decisionFingerprint(record: Pick<EvalResult['records'][number], 'criterion' | 'gold' | 'probabilities' | 'promptHash'>): string {
  const content = JSON.stringify([record.criterion, record.gold, Object.keys(record.probabilities).sort(), record.promptHash ?? ''])
  return createHash('sha256').update(content).digest('hex').slice(0, 16)
}

/** The baseline a result would write. */
export function baselineFromResult(suite: string, result: EvalResult): BaselineFile {
  return {
    schema: 2,
    suite,
    debias: result.manifest.debias,
    scorer: String(result.manifest.model ?? result.manifest.scorer),
    ...(result.manifest.cpu ? { cpu: result.manifest.cpu.kind } : {}),
    n: result.n,
    orderConsistency: result.orderConsistency,
    balancedAccuracy: result.balancedAccuracy,
    circularAccuracy: result.circularAccuracy ?? null,
    decisions: baselineDecisions(result),
  }
}

/**
 * Stable JSON text: two-space indent, one decision per line, trailing newline (so an
 * edited decision is a one-line diff and `-u` without change rewrites identical bytes).
 */
export function serialiseBaseline(baseline: BaselineFile): string {
  const { decisions, ...head } = baseline
  const rows = Object.entries(decisions).map(([id, decision]) => `    ${JSON.stringify(id)}: ${JSON.stringify(decision)}`)
  const top = JSON.stringify(head, null, 2).slice(0, -2)
  return `${top},\n  "decisions": {${rows.length ? `\n${rows.join(',\n')}\n  ` : ''}}\n}\n`
}

/** Read a baseline, or `undefined` when the file does not exist. A malformed file throws with its path. */
export async function readBaseline(path: string): Promise<BaselineFile | undefined> {
  // A FIFO would be read forever, a folder is no baseline: only a regular file is read.
  const kind = pathKind(path)
  if (kind === 'missing') return undefined
  if (kind !== 'file') throw new Error(`baseline ${path} is ${describeKind(kind)}, not a regular file; remove it or refresh the baseline with \`vitest -u\``)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
  const value = parseJsonText(text, (at) => new Error(`baseline ${path} is not valid JSON (${at}); fix it or refresh it with \`vitest -u\``))
  if ((value as { schema?: unknown } | null)?.schema === 1)
    throw new Error(`baseline ${path} has the old layout (schema 1, one fingerprint for the whole set); refresh it with \`vitest -u\` and commit it`)
  const parsed = BaselineFileSchema.safeParse(value)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!
    const field = issue.path.map(String).join('.') || '(top level)'
    throw new Error(`baseline ${path}, field "${field}": ${issue.message}; fix it or refresh it with \`vitest -u\``)
  }
  const contradiction = contradictedAggregate(parsed.data)
  if (contradiction !== undefined)
    throw new Error(`baseline ${path}: ${contradiction}: the file was edited by hand; refresh it with \`vitest -u\` and review it`)
  return parsed.data
}

/**
 * Where a baseline's stored aggregates disagree with its per-decision flags, as the
 * writer derives them (order consistency counts a decision scored under one ordering as
 * consistent; circular accuracy counts only decisions scored under several); `undefined` when they agree.
 */
export function contradictedAggregate(baseline: BaselineFile): string | undefined {
  const rows = Object.values(baseline.decisions)
  if (rows.length !== baseline.n) return `it stores n ${baseline.n} but lists ${rows.length} decisions`
  const multi = rows.filter((row) => row.consistent !== null)
  const near = (a: number, b: number) => Math.abs(a - b) <= 1e-9
  const oc = multi.length === 0 ? null : rows.filter((row) => row.consistent !== false).length / rows.length
  if (oc === null ? baseline.orderConsistency !== null : baseline.orderConsistency === null || !near(oc, baseline.orderConsistency))
    return `it stores order consistency ${String(baseline.orderConsistency)} but its decisions' consistent flags give ${oc === null ? 'null' : formatValue(oc)}`
  const circular = multi.length === 0 ? null : multi.filter((row) => row.strict).length / multi.length
  if (baseline.circularAccuracy !== null && (circular === null || !near(circular, baseline.circularAccuracy)))
    return `it stores circular accuracy ${baseline.circularAccuracy} but its decisions' strict flags give ${circular === null ? 'null' : formatValue(circular)}`
  return undefined
}

/** Write a baseline atomically (temp file + rename), creating the directory; identical content is left alone. */
export async function writeBaseline(path: string, baseline: BaselineFile): Promise<void> {
  const text = serialiseBaseline(baseline)
  // Unchanged bytes are not rewritten: a write would be a change event that reruns watch mode.
  if ((await readFile(path, 'utf8').catch(() => undefined)) === text) return
  await mkdir(dirname(path), { recursive: true })
  await writeFileAtomic(path, text)
}

/** Options of {@link compareWithBaseline}. */
export interface BaselineGateOptions {
  /** Significance level of the one-sided test. */
  alpha: number
  /** The drop (share of decisions) the set should be able to detect; used for the power check. */
  detectableDrop: number
}

/**
 * The gate: pair decisions by id and fingerprint, count the discordant pairs, and fail
 * when `P(Bin(worse + better, ½) ≥ worse) < alpha`. Changed, added and removed decisions
 * are counted and left out. A different scorer setup fails with a hint to refresh.
 * Returns the outcome without `file`.
 */
export function compareWithBaseline(
  baseline: BaselineFile,
  current: BaselineFile,
  { alpha, detectableDrop }: BaselineGateOptions,
): Omit<BaselineOutcome, 'file'> {
  if (baseline.debias !== current.debias || baseline.scorer !== current.scorer)
    return {
      status: 'setup-changed',
      pass: false,
      message:
        `baseline scorer setup changed: the baseline was recorded with ${setup(baseline)}, this run used ${setup(current)}, ` +
        'so its decisions cannot be paired. If the change is intended, refresh the baseline with `vitest -u` and commit it.',
      baselineOrderConsistency: baseline.orderConsistency,
      orderConsistency: current.orderConsistency,
    }

  const pairs = pairDecisions(baseline, current)
  const { worse, better, paired, baselineConsistent, strictWorse, strictBetter } = pairs
  // Fail closed: a gate that paired nothing has checked nothing (a replaced data set, renamed ids).
  if (paired === 0)
    return {
      status: 'unpaired',
      pass: false,
      message:
        `no decision of this run pairs with the baseline (${pairs.changed} changed, ${pairs.added} new, ${pairs.removed} removed), ` +
        'so nothing was compared. If the data set was replaced on purpose, refresh the baseline with `vitest -u` and commit it.',
      baselineOrderConsistency: baseline.orderConsistency,
      orderConsistency: current.orderConsistency,
      paired,
      changed: pairs.changed,
      added: pairs.added,
      removed: pairs.removed,
    }
  const { p } = mcnemarRegression(worse, better)
  const { p: strictP } = mcnemarRegression(strictWorse, strictBetter)
  // Power over the decisions whose consistency can change at all (under pride, only its sample).
  const { comparable } = pairs
  const power = powerCheck(comparable, baselineConsistent, detectableDrop, alpha)
  const strictRegressed = strictP < alpha
  const regressed = p < alpha || strictRegressed
  const unpaired = [
    pairs.changed ? `${pairs.changed} changed` : '',
    pairs.added ? `${pairs.added} new` : '',
    pairs.removed ? `${pairs.removed} removed` : '',
  ].filter(Boolean)
  const counts =
    `order consistency ${percent(current.orderConsistency ?? 0)} vs ${percent(baseline.orderConsistency ?? 0)} at baseline: ` +
    `${worse} decision${worse === 1 ? '' : 's'} newly inconsistent, ${better} newly consistent` +
    (unpaired.length ? ` (${paired} paired; ${unpaired.join(', ')} since the baseline, not paired)` : '') +
    (comparable < paired ? ` (${comparable} of ${paired} paired decisions were scored under several orderings; only they can change consistency)` : '') +
    `, one-sided exact McNemar ${formatP(p)}`
  const strictCounts =
    `circular accuracy ${percent(current.circularAccuracy ?? 0)} vs ${percent(baseline.circularAccuracy ?? 0)} at baseline: ` +
    `${strictWorse} decision${strictWorse === 1 ? '' : 's'} no longer right under every ordering, ${strictBetter} newly right, ` +
    `one-sided exact McNemar ${formatP(strictP)}` +
    (strictRegressed ? ` < alpha ${alpha}: circular accuracy regressed by more than chance allows` : '')
  let message: string
  if (p < alpha) message = `${counts} < alpha ${alpha}: order consistency regressed by more than chance allows`
  else if (strictRegressed) message = `${counts}`
  else if (!power.detectable)
    message =
      `${counts}: no significant drop, but this set is too small to detect a drop of ${percent(detectableDrop)} ` +
      `(${power.decisionsForDrop} decision${power.decisionsForDrop === 1 ? '' : 's'}; even all of them flipping one way gives ${formatP(power.bestCaseP)} ≥ ${alpha}). ` +
      `The smallest drop it can detect is ${power.minimumFlips} decisions (${percent(power.minimumDetectableDrop)})` +
      (baselineConsistent < power.minimumFlips ? `, and only ${baselineConsistent} were consistent at baseline` : '')
  else message = `${counts}: no significant drop (a drop of ${percent(detectableDrop)} would be detectable)`
  message += `; ${strictCounts}`
  return pairedOutcome(baseline, current, pairs, regressed, message, { kind: 'exact', p, strictP, alpha, power })
}

/** The test a paired gate ran: the fixed-sample exact McNemar, or the sequential e-value of a run that stopped early. */
export type PairedTest =
  | { kind: 'exact'; p: number; strictP: number; alpha: number; power: PowerCheck }
  | { kind: 'sequential'; eValue: number; strictEValue: number; alpha: number; verdict: SequentialVerdict }

/** The outcome of a gate that paired decisions with the baseline, under either test. */
export function pairedOutcome(
  baseline: BaselineFile,
  current: BaselineFile,
  pairs: DecisionPairs,
  regressed: boolean,
  message: string,
  test: PairedTest,
): Omit<BaselineOutcome, 'file'> {
  const { worse, better, paired, comparable, strictWorse, strictBetter } = pairs
  const cpus = otherCpuKind(baseline, current)
  // More near-tie flips than rounding explains fail the gate (./cpu-kind.ts), under either test.
  const failed = regressed || tooManyNearTieFlips(cpus, pairs.nearTieFlips, paired)
  const said = message + nearTieNote(cpus, pairs.nearTieFlips, paired)
  const head = { status: failed ? 'regressed' : 'pass', pass: !failed, message: said, baselineOrderConsistency: baseline.orderConsistency, orderConsistency: current.orderConsistency, worse, better, paired, comparable } as const
  const circular = {
    baselineCircularAccuracy: baseline.circularAccuracy,
    circularAccuracy: current.circularAccuracy,
    strictWorse,
    strictBetter,
    ...(cpus ? { cpus, nearTieFlips: pairs.nearTieFlips } : {}),
  }
  if (test.kind === 'sequential') return { ...head, ...circular, alpha: test.alpha, eValue: test.eValue, strictEValue: test.strictEValue, sequential: test.verdict }
  return { ...head, changed: pairs.changed, added: pairs.added, removed: pairs.removed, p: test.p, ...circular, strictP: test.strictP, alpha: test.alpha, power: test.power }
}

/** What {@link pairDecisions} counts. */
export type DecisionPairs = ReturnType<typeof pairDecisions>

/**
 * Pair current decisions with the baseline's by id; a different fingerprint means changed, not
 * paired. Between CPU kinds, a decision whose flags flipped at a near-tie (in either run) is
 * named in `nearTieFlips` and not counted: rounding, not the model, may have swapped it (up to an
 * allowance, ./cpu-kind.ts).
 */
export function pairDecisions(baseline: BaselineFile, current: BaselineFile) {
  const otherCpu = otherCpuKind(baseline, current) !== undefined
  const nearTieFlips: string[] = []
  let worse = 0
  let better = 0
  let paired = 0
  let comparable = 0
  let baselineConsistent = 0
  let changed = 0
  let added = 0
  let strictWorse = 0
  let strictBetter = 0
  for (const [id, now] of Object.entries(current.decisions)) {
    const before = Object.hasOwn(baseline.decisions, id) ? baseline.decisions[id]! : undefined
    if (before === undefined) added++
    else if (before.fingerprint !== now.fingerprint) changed++
    else {
      paired++
      const flipped = before.consistent !== now.consistent || before.strict !== now.strict
      if (otherCpu && flipped && (before.nearTie || now.nearTie)) {
        nearTieFlips.push(id)
        continue
      }
      if (before.consistent !== null && now.consistent !== null) {
        comparable++
        if (before.consistent) baselineConsistent++
        if (before.consistent && !now.consistent) worse++
        else if (!before.consistent && now.consistent) better++
      }
      if (before.strict && !now.strict) strictWorse++
      else if (!before.strict && now.strict) strictBetter++
    }
  }
  const removed = Object.keys(baseline.decisions).filter((id) => !Object.hasOwn(current.decisions, id)).length
  return { worse, better, paired, comparable, baselineConsistent, changed, added, removed, strictWorse, strictBetter, nearTieFlips }
}

function setup(baseline: Pick<BaselineFile, 'debias' | 'scorer'>): string {
  return `debias ${baseline.debias} and scorer "${baseline.scorer}"`
}

/** `0.893 → 0.911` style summary of two values. */
export function formatChange(before: number | null | undefined, after: number | null | undefined): string {
  return `${formatValue(before)} → ${formatValue(after)}`
}
