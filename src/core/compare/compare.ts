/**
 * Paired comparison of two evaluations of the same decisions (two models, two
 * debias modes, before/after a fine-tune). Paired, because the same items make the
 * test far more powerful than comparing two intervals (Miller 2024 §4; Dietterich
 * 1998), and refused outright when the data differ.
 */
import { createHash } from 'node:crypto'
import { own } from '../support/dict.ts'
import { DataError } from '../support/errors.ts'
import { balancedAccuracy, isConsistent } from '../metrics/headline.ts'
import type { DecisionRecord } from '../result/result.ts'
import type { Comparable } from '../result/files.ts'
import { DEFAULT_LEVEL } from '../math/normal.ts'
import { classIndices, defaultResamples, MAX_RESAMPLES, percentileBootstrapCounts, weightedBalancedAccuracy, type BootstrapInterval } from '../math/bootstrap.ts'
import { mcnemarExact, type McNemarResult } from '../math/binomial.ts'
import { designEffect } from '../math/power.ts'
import { detectableDifference } from '../statistics/detectable.ts'
import { z } from 'zod'
import { refuseOutOfBounds, refuseUnknownOptions, type SameKeys } from '../support/options.ts'
export type { Comparable }

/** Options for {@link compareResults}. */
export interface CompareOptions {
  /** Bootstrap seed. Default 0. */
  seed?: number
  /** Bootstrap replicates. Default 2000 (fewer above 10^4 decisions, see `defaultResamples`). */
  resamples?: number
  /** Confidence level. Default 0.95. */
  level?: number
  /** Group id per record id (`group_id`): the paired bootstrap then resamples whole groups. */
  groups?: Readonly<Record<string, string | null | undefined>>
  /** Names for the two sides in the report. Default `['A', 'B']`. */
  labels?: readonly [string, string]
}

/** The keys of {@link CompareOptions}, checked where they are given: a misspelled one is refused by name. */
export const CompareOptionsSchema = z.strictObject({ seed: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER), resamples: z.number().int().min(1).max(MAX_RESAMPLES), level: z.number().gt(0).lt(1), groups: z.record(z.string(), z.string().nullable().optional()).readonly(), labels: z.tuple([z.string(), z.string()]).readonly() }).partial()
true satisfies SameKeys<z.input<typeof CompareOptionsSchema>, CompareOptions>

/** A paired 2×2 table: counts of decisions by (A right?, B right?). */
export interface PairedTable {
  bothRight: number
  /** A right, B wrong. McNemar's b. */
  onlyA: number
  /** A wrong, B right. McNemar's c. */
  onlyB: number
  neither: number
}

/** A yes/no property of each decision (consistent? answered by position?) on both sides: shares, B − A, the paired table and its exact McNemar test. */
export interface PairedShare {
  decisions: number
  a: number
  b: number
  difference: number
  table: PairedTable
  mcnemar: McNemarResult
}

/** What {@link compareResults} returns. Differences are always B − A. */
export interface Comparison {
  /** Labels of the two sides. */
  labels: { a: string; b: string }
  /** Paired decisions (all of them: pairing is by record id and must be complete). */
  n: number
  /** Fingerprints: each manifest's (or `null`), and the records' own (ids, criteria, gold), equal on both sides. */
  fingerprint: { a: string | null; b: string | null; records: string }
  /** Hits: both right, only A, only B, neither. */
  table: PairedTable
  /** Exact McNemar on (onlyA, onlyB); `pCGreater` is the one-sided p that B is better, `pBGreater` that A is. */
  mcnemar: McNemarResult
  /** Accuracy of each side and B − A. */
  accuracy: { a: number; b: number; difference: number }
  /** Balanced accuracy of each side, B − A, and its paired percentile-bootstrap interval. */
  balancedAccuracy: { a: number; b: number; difference: number; interval: BootstrapInterval }
  /**
   * Order consistency over the decisions scored under several orderings on **both**
   * sides, its change, the paired table of "consistent?" and its exact McNemar test.
   * `null` when no decision qualifies.
   */
  orderConsistency: PairedShare | null
  /**
   * Decisions answered by position: the same letter picked under every ordering while
   * the option there changed (so the pick followed the slot, not the option), over the
   * same decisions as `orderConsistency`, with its paired table and exact McNemar test.
   * `null` when no decision was scored under several orderings on both sides.
   */
  answeredByPosition: PairedShare | null
  /** Smallest accuracy difference this many pairs detects (80% power, α = 0.05, ρ = 0.5; Miller 2024 Eq. 10). */
  minimumDetectableDifference: number
  /** Seed, replicates and level of the bootstrap. */
  settings: { seed: number; resamples: number; level: number }
}

/**
 * A stable hash of what makes two record sets comparable: each record's id, criterion
 * and gold answer, in order (sha256 of canonical JSON, 16 hex digits). A `--records-out`
 * file carries no manifest, so this is what `compare` checks for it.
 */
export function recordsFingerprint(records: readonly DecisionRecord[]): string {
  const hash = createHash('sha256')
  // canonicalJson of { id, criterion, gold } (three strings, keys sorted), written out: 10^5 records in a blink.
  for (const r of records) hash.update(JSON.stringify({ criterion: r.criterion, gold: r.gold, id: r.id }) + '\n')
  return hash.digest('hex').slice(0, 16)
}

/**
 * Compare two evaluations of the same decisions, pairing records by id.
 *
 * Refuses with a {@link DataError} when both manifests carry fingerprints and they
 * differ, when the record ids differ (or repeat), or when a paired decision's criterion
 * or gold answer differs: a paired test on different data means nothing.
 */
export function compareResults(a: Comparable, b: Comparable, options: CompareOptions = {}): Comparison {
  refuseUnknownOptions(CompareOptionsSchema, options, 'compareResults options')
  refuseOutOfBounds(CompareOptionsSchema, options, 'compareResults: ')
  const { seed = 0, level = DEFAULT_LEVEL, groups, labels = ['A', 'B'] } = options
  const resamples = options.resamples ?? defaultResamples(a.records.length)
  const [labelA, labelB] = labels
  const fa = a.manifest?.fingerprint ?? null
  const fb = b.manifest?.fingerprint ?? null
  if (fa !== null && fb !== null && fa !== fb)
    throw new DataError(
      `fingerprints differ (${labelA}: ${fa}, ${labelB}: ${fb}): the two results were computed on different decisions, so a paired comparison would mean nothing. Evaluate both on the same data file.`,
    )
  const recordsA = indexById(a.records, labelA)
  const recordsB = indexById(b.records, labelB)
  const missing = [...recordsA.keys()].filter((id) => !recordsB.has(id))
  const extra = [...recordsB.keys()].filter((id) => !recordsA.has(id))
  if (missing.length > 0 || extra.length > 0) {
    const parts = [
      missing.length > 0 ? `${missing.length} only in ${labelA} (e.g. "${missing[0]}")` : '',
      extra.length > 0 ? `${extra.length} only in ${labelB} (e.g. "${extra[0]}")` : '',
    ].filter(Boolean)
    throw new DataError(`the record sets differ: ${parts.join(', ')}. A paired comparison needs the same decisions on both sides.`)
  }
  if (a.records.length === 0) throw new DataError('no records to compare')
  const pairedA = a.records
  const pairedB = pairedA.map((r) => {
    const other = recordsB.get(r.id)!
    if (other.gold !== r.gold || other.criterion !== r.criterion)
      throw new DataError(
        `decision "${r.id}" differs: ${labelA} has criterion "${r.criterion}" gold "${r.gold}", ${labelB} has criterion "${other.criterion}" gold "${other.gold}". The two results were computed on different data.`,
      )
    return other
  })

  const table = pairedTable(pairedA.map(hit), pairedB.map(hit))
  const n: number = pairedA.length
  const ba = (rs: readonly DecisionRecord[]) => balancedAccuracy(rs.map((r) => r.gold), rs.map((r) => r.prediction))
  const baA = ba(pairedA)
  const baB = ba(pairedB)
  // Paired: one multiplicity vector per replicate, applied to both sides.
  const { classOf, classes } = classIndices(pairedA.map((r) => r.gold))
  const hitsA = Uint8Array.from(pairedA, (r) => Number(hit(r)))
  const hitsB = Uint8Array.from(pairedB, (r) => Number(hit(r)))
  const scratch = new Float64Array(2 * classes)
  const interval = percentileBootstrapCounts(
    n,
    (w) => weightedBalancedAccuracy(classOf, hitsB, classes, w, scratch) - weightedBalancedAccuracy(classOf, hitsA, classes, w, scratch),
    { seed, resamples, level, ...(groups ? { groups: pairedA.map((r) => own(groups, r.id)) } : {}) },
  )!

  const multi = pairedA.map((r, i) => i).filter((i) => pairedA[i]!.picks.length > 1 && pairedB[i]!.picks.length > 1)
  let orderConsistency: Comparison['orderConsistency'] = null
  let answeredByPosition: Comparison['answeredByPosition'] = null
  if (multi.length > 0) {
    orderConsistency = pairedShare(multi.map((i) => isConsistent(pairedA[i]!.picks)), multi.map((i) => isConsistent(pairedB[i]!.picks)))
    answeredByPosition = pairedShare(multi.map((i) => byPosition(pairedA[i]!)), multi.map((i) => byPosition(pairedB[i]!)))
  }

  const accA = (table.bothRight + table.onlyA) / n
  const accB = (table.bothRight + table.onlyB) / n
  return {
    labels: { a: labelA, b: labelB },
    n,
    fingerprint: { a: fa, b: fb, records: recordsFingerprint(pairedA) },
    table,
    mcnemar: mcnemarExact(table.onlyA, table.onlyB),
    accuracy: { a: accA, b: accB, difference: accB - accA },
    balancedAccuracy: { a: baA, b: baB, difference: baB - baA, interval },
    orderConsistency,
    answeredByPosition,
    // The rule `evaluate` states for one run, at the two runs' mean accuracy: a run compared with itself gets its own figure.
    minimumDetectableDifference: detectableDifference(n, (accA + accB) / 2, level, groups ? Math.max(deffOf(pairedA, groups), deffOf(pairedB, groups)) : 1),
    settings: { seed, resamples, level },
  }
}

/** Design effect of one side's hits under `group_id` clustering (as `evaluate` computes it). */
function deffOf(records: readonly DecisionRecord[], groups: Readonly<Record<string, string | null | undefined>>): number {
  return designEffect(records.map((r) => Number(hit(r))), records.map((r) => own(groups, r.id)))
}

function hit(record: DecisionRecord): boolean {
  return record.prediction === record.gold
}

function pairedShare(a: readonly boolean[], b: readonly boolean[]): PairedShare {
  const table = pairedTable(a, b)
  const shareA = a.filter(Boolean).length / a.length
  const shareB = b.filter(Boolean).length / b.length
  return { decisions: a.length, a: shareA, b: shareB, difference: shareB - shareA, table, mcnemar: mcnemarExact(table.onlyA, table.onlyB) }
}

/** One letter under every ordering while the option picked changed: the pick followed the slot. */
function byPosition(record: DecisionRecord): boolean {
  const letters = record.letters
  return letters.length > 1 && letters.every((letter) => letter === letters[0]) && !isConsistent(record.picks)
}

function pairedTable(a: readonly boolean[], b: readonly boolean[]): PairedTable {
  const table: PairedTable = { bothRight: 0, onlyA: 0, onlyB: 0, neither: 0 }
  a.forEach((x, i) => {
    const y = b[i]!
    if (x && y) table.bothRight++
    else if (x) table.onlyA++
    else if (y) table.onlyB++
    else table.neither++
  })
  return table
}

function indexById(records: readonly DecisionRecord[], label: string): Map<string, DecisionRecord> {
  const byId = new Map<string, DecisionRecord>()
  for (const record of records) {
    if (byId.has(record.id))
      throw new DataError(`${label} has two records with id "${record.id}"; records are paired by id, so ids must be unique`)
    byId.set(record.id, record)
  }
  return byId
}
