/** The seeded percentile bootstrap (Efron 1979, Ann. Stat. 7:1–26): single, paired and clustered, and its quantiles. */
import { checkLevel, DEFAULT_LEVEL, type Interval } from './normal.ts'
import { mulberry32 } from './random.ts'

/** Default number of bootstrap resamples: 2000 (the 2.5% quantile of 2000 replicates is off by about ±0.1 standard errors). */
export const DEFAULT_RESAMPLES = 2000

/** Most bootstrap resamples accepted (`--resamples`, `statistics.resamples`): each one is a pass over every decision. */
export const MAX_RESAMPLES = 100_000

/**
 * Replicates {@link percentileBootstrapCounts} draws by default for `count` items:
 * 2000, reduced above 10^4 items so one bootstrap stays near 2·10^7 draws (never
 * below 200). At that size the interval is narrow and the cost is O(replicates·n);
 * the interval records the count actually used.
 */
export function defaultResamples(count: number): number {
  return Math.max(200, Math.min(DEFAULT_RESAMPLES, Math.floor(2e7 / Math.max(1, count))))
}

/** A percentile-bootstrap interval, with what was resampled. */
export interface BootstrapInterval extends Interval {
  /**
   * `percentile-bootstrap`; a result's balanced accuracy is `mover-wilson` and its order
   * consistency `wilson` (no replicates: `resamples` 0). `clopper-pearson` and
   * `clopper-pearson-bonferroni` are read from result files written before 0.4.
   */
  method: 'percentile-bootstrap' | 'wilson' | 'mover-wilson' | 'clopper-pearson' | 'clopper-pearson-bonferroni'
  /** Replicates drawn (replicates where the statistic is undefined are dropped and not counted; 0 for a closed-form interval). */
  resamples: number
  /** What was resampled with replacement: whole groups (cluster bootstrap) or single items. */
  unit: 'groups' | 'items'
  /** How many groups or items there were to resample. */
  units: number
  /** Seed of the PRNG (mulberry32); the same seed and data give the same interval. */
  seed: number
}

/** Options for {@link percentileBootstrap}. */
export interface BootstrapOptions {
  /**
   * Cluster of each item (same length as the items). When given, whole clusters are
   * resampled with replacement (the cluster bootstrap; items sharing evidence are not
   * independent, Miller 2024 §2.2). `null`/`undefined` entries are singleton clusters.
   */
  groups?: readonly (string | null | undefined)[]
  /** PRNG seed (mulberry32). Default 0. */
  seed?: number
  /** Replicates to draw. Default {@link DEFAULT_RESAMPLES}. */
  resamples?: number
  /** Confidence level. Default 0.95. */
  level?: number
}

/**
 * Seeded percentile bootstrap (Efron 1979; Efron & Tibshirani 1993, ch. 13): resample
 * items (or whole groups) with replacement, recompute `statistic` on each replicate,
 * and take the (α/2, 1 − α/2) quantiles of the replicates (linear interpolation,
 * Hyndman–Fan type 7). Replicates where the statistic is not finite (e.g. no decision
 * with two orderings drawn) are dropped. Deterministic for a given seed and data.
 *
 * Caveats: at 0/n or n/n it collapses to a zero-width interval, and it under-covers at
 * small n; use {@link wilsonInterval} for plain proportions. Returns `null` when the
 * statistic is not finite on the data itself.
 *
 * @param items the data; one entry per decision
 * @param statistic computed on a resampled array (order not meaningful)
 */
export function percentileBootstrap<T>(
  items: readonly T[],
  statistic: (sample: readonly T[]) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { seed = 0, resamples = DEFAULT_RESAMPLES, level = DEFAULT_LEVEL, groups } = options
  checkLevel(level)
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES) throw new RangeError(`resamples must be an integer ≥ 1 and ≤ ${MAX_RESAMPLES}, got ${resamples}`)
  if (groups && groups.length !== items.length)
    throw new RangeError(`groups has ${groups.length} entries for ${items.length} items`)
  const estimate = statistic(items)
  if (!Number.isFinite(estimate)) return null
  const clusters = clustersOf(items.length, groups)
  const random = mulberry32(seed)
  const replicates: number[] = []
  const sample: T[] = []
  for (let r = 0; r < resamples; r++) {
    sample.length = 0
    for (let j = 0; j < clusters.length; j++) {
      const cluster = clusters[Math.floor(random() * clusters.length)]!
      for (const index of cluster) sample.push(items[index]!)
    }
    const value = statistic(sample)
    if (Number.isFinite(value)) replicates.push(value)
  }
  return percentileInterval(estimate, replicates, level, seed, clusters.length, items.length, groups !== undefined && groups !== null)
}

/**
 * Paired percentile bootstrap of `statistic(b) − statistic(a)` (Koehn 2004;
 * Berg-Kirkpatrick et al. 2012): one set of resampled indices is applied to both
 * systems, so the item-level correlation is kept. Same options and caveats as
 * {@link percentileBootstrap}.
 */
export function pairedBootstrapDifference<T>(
  a: readonly T[],
  b: readonly T[],
  statistic: (sample: readonly T[]) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  if (a.length !== b.length) throw new RangeError(`paired samples differ in length: ${a.length} vs ${b.length}`)
  const pairs = a.map((x, i) => [x, b[i]!] as const)
  return percentileBootstrap(
    pairs,
    (sample) => statistic(sample.map((pair) => pair[1])) - statistic(sample.map((pair) => pair[0])),
    options,
  )
}

/**
 * The same percentile bootstrap as {@link percentileBootstrap}, for large sets: each
 * replicate is handed to `statistic` as a multiplicity per item (how often item i was
 * drawn; whole groups when `groups` is given, the cluster bootstrap of Davison & Hinkley
 * 1997 for hierarchical data) instead of a copied array, so a statistic runs over typed arrays with no allocation.
 */
export function percentileBootstrapCounts(
  count: number,
  statistic: (weights: Int32Array) => number,
  options: BootstrapOptions = {},
): BootstrapInterval | null {
  const { seed = 0, resamples = defaultResamples(count), level = DEFAULT_LEVEL, groups } = options
  checkLevel(level)
  if (!Number.isInteger(resamples) || resamples < 1 || resamples > MAX_RESAMPLES) throw new RangeError(`resamples must be an integer ≥ 1 and ≤ ${MAX_RESAMPLES}, got ${resamples}`)
  if (groups && groups.length !== count) throw new RangeError(`groups has ${groups.length} entries for ${count} items`)
  const weights = new Int32Array(count).fill(1)
  const estimate = statistic(weights)
  if (!Number.isFinite(estimate)) return null
  const clusters = clustersOf(count, groups)
  // Clusters flattened (members of cluster c at offsets[c] .. offsets[c + 1]): the same
  // draws in the same order as iterating the arrays, without chasing an array per draw.
  const m = clusters.length
  const offsets = new Int32Array(m + 1)
  for (let c = 0; c < m; c++) offsets[c + 1] = offsets[c]! + clusters[c]!.length
  const members = new Int32Array(offsets[m]!)
  for (let c = 0; c < m; c++) members.set(clusters[c]!, offsets[c]!)
  const random = mulberry32(seed)
  const replicates: number[] = []
  for (let r = 0; r < resamples; r++) {
    weights.fill(0)
    // Without groups every cluster is item j itself: index directly (no pointer chasing).
    if (!groups) for (let j = 0; j < count; j++) weights[Math.floor(random() * count)]!++
    else
      for (let j = 0; j < m; j++) {
        const c = Math.floor(random() * m)
        for (let k = offsets[c]!, end = offsets[c + 1]!; k < end; k++) weights[members[k]!]!++
      }
    const value = statistic(weights)
    if (Number.isFinite(value)) replicates.push(value)
  }
  return percentileInterval(estimate, replicates, level, seed, clusters.length, count, groups !== undefined && groups !== null)
}
/**
 * The percentile interval of sorted-or-not replicates, with how it was made. It always
 * holds its estimate, as Wilson's does: a replicate statistic can sit on one side of
 * the estimate (balanced accuracy over the classes a replicate drew: with many rare
 * classes most replicates miss one), and the quantiles would then exclude it.
 */
function percentileInterval(
  estimate: number,
  replicates: number[],
  level: number,
  seed: number,
  clusters: number,
  items: number,
  grouped: boolean,
): BootstrapInterval {
  replicates.sort((x, y) => x - y)
  const alpha = 1 - level
  return {
    estimate,
    lower: replicates.length > 0 ? Math.min(quantileSorted(replicates, alpha / 2), estimate) : estimate,
    upper: replicates.length > 0 ? Math.max(quantileSorted(replicates, 1 - alpha / 2), estimate) : estimate,
    level,
    method: 'percentile-bootstrap',
    resamples: replicates.length,
    unit: grouped && clusters < items ? 'groups' : 'items',
    units: clusters,
    seed,
  }
}


/**
 * Balanced accuracy of a weighted sample, for {@link percentileBootstrapCounts}:
 * `classOf[i]` is item i's gold class (0..classes−1), `hit[i]` 1 when it was answered
 * right. Mean over the classes drawn at least once of (weighted hits / weighted count);
 * NaN when nothing was drawn.
 */
export function weightedBalancedAccuracy(
  classOf: Int32Array,
  hit: Uint8Array,
  classes: number,
  weights: Int32Array,
  scratch = new Float64Array(2 * classes),
): number {
  scratch.fill(0)
  for (let i = 0; i < classOf.length; i++) {
    const w = weights[i]!
    if (w === 0) continue
    const c = classOf[i]!
    scratch[2 * c]! += w
    if (hit[i]) scratch[2 * c + 1]! += w
  }
  let sum = 0
  let present = 0
  for (let c = 0; c < classes; c++) {
    const total = scratch[2 * c]!
    if (total === 0) continue
    sum += scratch[2 * c + 1]! / total
    present++
  }
  return present === 0 ? NaN : sum / present
}

/** Gold labels as dense class indices (first-seen order) for {@link weightedBalancedAccuracy}. */
export function classIndices(gold: readonly string[]): { classOf: Int32Array; classes: number } {
  const index = new Map<string, number>()
  const classOf = new Int32Array(gold.length)
  gold.forEach((label, i) => {
    let c = index.get(label)
    if (c === undefined) index.set(label, (c = index.size))
    classOf[i] = c
  })
  return { classOf, classes: index.size }
}

function clustersOf(count: number, groups: BootstrapOptions['groups']): number[][] {
  if (!groups) return Array.from({ length: count }, (_, i) => [i])
  const byGroup = new Map<string, number[]>()
  const clusters: number[][] = []
  for (let i = 0; i < count; i++) {
    const group = groups[i]
    if (group == null) {
      clusters.push([i])
      continue
    }
    let members = byGroup.get(group)
    if (!members) {
      byGroup.set(group, (members = []))
      clusters.push(members)
    }
    members.push(i)
  }
  return clusters
}

/** Quantile of sorted values by linear interpolation between order statistics (Hyndman & Fan 1996, type 7). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN
  const h = (sorted.length - 1) * q
  const lo = Math.floor(h)
  const hi = Math.ceil(h)
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!)
}
