/**
 * The order-robustness panel: every published position-bias metric, computed from
 * the per-(decision, ordering) picks an evaluation already has (no extra model calls).
 * Only decisions scored under more than one ordering count; with none, every entry
 * is `null`. See docs/reading-the-report.md#order-robustness for each number's question and its paper.
 */
import { LETTERS, type Criterion } from '../decisions/schema.ts'
import { mulberry32 } from '../math/random.ts'
import { chiSquareSurvival } from '../math/chi-square.ts'
import type { Ordering } from '../requests/orderings.ts'
import { isPair, pairwiseAudit } from './pairwise.ts'
import type { PairwiseAudit, RobustnessPanel, SlotBias } from '../result/robustness.ts'

export type { RobustnessPanel, SlotBias }
import { defaultResamples, quantileSorted } from '../math/bootstrap.ts'
import { appendAll, largest, smallest } from '../support/spreadless.ts'

/** One scored decision, as the panel reads it. */
export interface PanelDecision {
  /** Index of the gold option in the criterion's original option order. */
  goldIndex: number
  /** The orderings scored: slot `i` of ordering `o` showed original option `orderings[o][i]`. */
  orderings: readonly Ordering[]
  /** Picked slot under each ordering; −1 where the ordering's maximum is tied (no answer, never a hit). */
  picked: readonly number[]
  /** The tied slots of each tied pick, by ordering index: its letter count is split evenly over them. */
  tiedPicks?: ReadonlyMap<number, readonly number[]>
  /** Slots that move under reordering (not pinned), ascending. */
  movable: readonly number[]
  /** Picked slot per epoch under each ordering; only with more than one epoch. */
  epochPicks?: readonly (readonly number[])[]
}



/** Floor on a picked-letter share inside CKLD's logarithm: a letter never picked contributes at most ln(1e6) ≈ 13.8 times its gold share. */
export const CKLD_FLOOR = 1e-6

/** The slots of a criterion that move under reordering: those of its unpinned options, ascending. */
export function movableSlots(criterion: Criterion): number[] {
  const slots: number[] = []
  criterion.options.forEach((option, i) => {
    if (!option.pinned) slots.push(i)
  })
  return slots
}

/** The slots of a criterion's pinned options (`"pinned": true`), ascending: they keep their place under every ordering. */
export function pinnedSlots(criterion: Criterion): number[] {
  const slots: number[] = []
  criterion.options.forEach((option, i) => {
    if (option.pinned) slots.push(i)
  })
  return slots
}

/** A {@link PanelDecision} from what the evaluator holds: the criterion, the gold index, the orderings and the picked letters. */
export function panelDecision(
  criterion: Criterion,
  goldIndex: number,
  orderings: readonly Ordering[],
  letters: readonly (string | null)[],
  epochPicks?: readonly (readonly number[])[],
  tiedPicks?: ReadonlyMap<number, readonly number[]>,
): PanelDecision {
  return {
    goldIndex,
    orderings,
    picked: letters.map((letter) => (letter === null ? -1 : LETTERS.indexOf(letter as (typeof LETTERS)[number]))),
    movable: movableSlots(criterion),
    ...(epochPicks ? { epochPicks } : {}),
    ...(tiedPicks ? { tiedPicks } : {}),
  }
}

/** The slots one ordering's pick counts on, each with its share: the picked slot, or every tied slot at 1/t. */
function pickShares(d: PanelDecision, o: number): readonly number[] {
  const pick = d.picked[o]!
  return pick >= 0 ? [pick] : (d.tiedPicks?.get(o) ?? [])
}

/**
 * What a uniform random guesser scores on `circularAccuracy`: the mean over decisions
 * scored under several orderings of (1/k)^orderings, k the option count ((1/n)^n under
 * cyclic without pinned options). `null` when there is no such decision.
 */
export function circularChance(decisions: readonly PanelDecision[]): number | null {
  const multi = decisions.filter((d) => d.orderings.length > 1)
  if (multi.length === 0) return null
  return multi.reduce((sum, d) => sum + (1 / d.orderings[0]!.length) ** d.orderings.length, 0) / multi.length
}

/**
 * The panel for a set of scored decisions. `seed` and `resamples` drive Cramér's V
 * interval (default resamples: as the other bootstrap intervals; 0 skips it).
 */
export function robustnessPanel(
  decisions: readonly PanelDecision[],
  options: { seed?: number; resamples?: number } = {},
): RobustnessPanel {
  const multi = decisions.filter((d) => d.orderings.length > 1)
  const pairs = multi.filter((d) => isPair(d.movable, d.orderings.length))
  if (multi.length === 0)
    return { circularAccuracy: null, orderingAccuracy: null, accuracyByGoldSlot: null, slotSensitivityGap: null, slotBias: null, ckld: null, pairwise: null }
  const width = largest(multi.map((d) => d.orderings[0]!.length))
  let strict = 0
  let hits = 0
  let pairsScored = 0
  const goldShown = new Float64Array(width)
  const goldHit = new Float64Array(width)
  const pickedAt = new Float64Array(width)
  for (const d of multi) {
    let all = true
    d.orderings.forEach((ordering, o) => {
      const goldSlot = ordering.indexOf(d.goldIndex)
      const pick = d.picked[o]!
      const hit = pick === goldSlot
      all &&= hit
      hits += hit ? 1 : 0
      pairsScored++
      goldShown[goldSlot]!++
      if (hit) goldHit[goldSlot]!++
      const slots = pickShares(d, o)
      for (const slot of slots) pickedAt[slot]! += 1 / slots.length
    })
    if (all) strict++
  }
  const accuracyByGoldSlot: Record<string, number | null> = {}
  const seen: number[] = []
  for (let slot = 0; slot < width; slot++) {
    const value = goldShown[slot]! > 0 ? goldHit[slot]! / goldShown[slot]! : null
    accuracyByGoldSlot[LETTERS[slot]!] = value
    if (value !== null) seen.push(value)
  }
  let ckld = 0
  for (let slot = 0; slot < width; slot++) {
    const p = goldShown[slot]! / pairsScored
    if (p > 0) ckld += p * Math.log(p / Math.max(pickedAt[slot]! / pairsScored, CKLD_FLOOR))
  }
  return {
    circularAccuracy: strict / multi.length,
    orderingAccuracy: hits / pairsScored,
    accuracyByGoldSlot,
    slotSensitivityGap: largest(seen) - smallest(seen),
    slotBias: slotBias(multi, width, options),
    ckld,
    pairwise: pairwiseAudit(pairs),
  }
}

/**
 * One decision's observed picks per letter and the position-blind expectation. Each ordering whose pick fell on a movable slot
 * expects 1/m on each of its m movable slots (1/k on each letter without pinned
 * options); picks of a pinned option say nothing about position and are left out.
 */
function contribute(d: PanelDecision, observed: Float64Array, expected: Float64Array): void {
  const m = d.movable.length
  d.picked.forEach((_, o) => {
    // A tied pick counts 1/t on each tied slot, like the letters picked.
    const slots = pickShares(d, o)
    let share = 0
    for (const slot of slots)
      if (d.movable.includes(slot)) {
        observed[slot]! += 1 / slots.length
        share += 1 / slots.length
      }
    if (share > 0) for (const slot of d.movable) expected[slot]! += share / m
  })
}

function chiSquareOf(observed: Float64Array, expected: Float64Array): { chiSquare: number; df: number; n: number } | null {
  let chiSquare = 0
  let letters = 0
  let n = 0
  for (let slot = 0; slot < observed.length; slot++) {
    if (expected[slot]! <= 0) continue
    letters++
    n += observed[slot]!
    chiSquare += (observed[slot]! - expected[slot]!) ** 2 / expected[slot]!
  }
  return letters < 2 || n === 0 ? null : { chiSquare, df: letters - 1, n }
}

const cramersV = (chiSquare: number, n: number, df: number) => Math.min(1, Math.sqrt(chiSquare / (n * df)))

/**
 * Pearson's χ² of the pooled letter counts against the position-blind expectation, its
 * p-value, Cramér's V, and V's percentile bootstrap interval over decisions. `null`
 * when fewer than two letters could be picked.
 */
function slotBias(decisions: readonly PanelDecision[], width: number, options: { seed?: number; resamples?: number }): SlotBias | null {
  const n = decisions.length
  // Decisions with the same contribution row are one type: a resample then needs only a
  // count per type (the tables stay small and in cache however many decisions there are).
  const row = new Float64Array(2 * width)
  const types = new Map<string, number>()
  const typeRows: number[] = []
  const typeOf = new Int32Array(n)
  decisions.forEach((d, i) => {
    row.fill(0)
    contribute(d, row.subarray(0, width), row.subarray(width))
    const key = row.join(',')
    let type = types.get(key)
    if (type === undefined) {
      types.set(key, (type = types.size))
      appendAll(typeRows, row)
    }
    typeOf[i] = type
  })
  const observed = new Float64Array(width)
  const expected = new Float64Array(width)
  const sum = (counts: ArrayLike<number>) => {
    observed.fill(0)
    expected.fill(0)
    for (let t = 0; t < counts.length; t++) {
      const count = counts[t]!
      if (count === 0) continue
      for (let slot = 0; slot < width; slot++) {
        observed[slot]! += count * typeRows[2 * width * t + slot]!
        expected[slot]! += count * typeRows[2 * width * t + width + slot]!
      }
    }
    return chiSquareOf(observed, expected)
  }
  const counts = new Int32Array(types.size)
  for (let i = 0; i < n; i++) counts[typeOf[i]!]!++
  const all = sum(counts)
  if (!all) return null
  const random = mulberry32(options.seed ?? 0)
  const resamples = options.resamples ?? defaultResamples(n)
  const values: number[] = []
  for (let b = 0; b < resamples; b++) {
    counts.fill(0)
    for (let i = 0; i < n; i++) counts[typeOf[Math.floor(random() * n)]!]!++
    const fit = sum(counts)
    values.push(fit ? cramersV(fit.chiSquare, fit.n, fit.df) : 0)
  }
  values.sort((x, y) => x - y)
  return {
    chiSquare: all.chiSquare,
    df: all.df,
    p: chiSquareSurvival(all.chiSquare, all.df),
    cramersV: cramersV(all.chiSquare, all.n, all.df),
    cramersVInterval: resamples > 0 ? [quantileSorted(values, 0.025), quantileSorted(values, 0.975)] : null,
  }
}
