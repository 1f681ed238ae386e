/**
 * Betting confidence sequences for Bernoulli rates and for the mean of several class rates
 * (Waudby-Smith & Ramdas 2024, "Estimating means of bounded random variables by betting",
 * JRSS-B 86(1)), bounded at every look by Ville's inequality (Ville 1939). Pure.
 *
 * To test a rate m, a gambler starts with capital 1 and, before each outcome X ∈ {0, 1},
 * stakes a fraction f of it on "X = 1" (or on "X = 0"): K_t(m) = ∏ (1 + λ_i (X_i − m)) with
 * λ_i ∈ [0, 1/m] (or [−1/(1−m), 0]) chosen before X_i. If m is the true rate every bet is fair,
 * K_t(m) is a nonnegative martingale with K_0 = 1 and P(∃t: K_t(m) ≥ 1/α) ≤ α (Ville), so the
 * rates not yet ruled out, { m : K_t(m) < 1/α }, hold the true rate at every look at once.
 *
 * Rates: a mixture over constant bets (Waudby-Smith & Ramdas 2024, §5, "diversified" betting;
 * any mixture of test martingales is one). A constant-bet capital depends on the counts only,
 * so the bound is a function of (successes, n) like the beta mixture it replaces. Each bet is
 * the Kelly bet for an effect of δ points, the rate m + δ against m (its capital is that
 * likelihood ratio), and the mixing law is a half-normal of scale 15 points over δ: a gate's
 * effects. The previous law, a half-normal over the fraction of the largest stake, put a
 * weight of e⁻⁸ on the near-largest stakes a clear effect near a small rate needs (order
 * consistency 0.02 under 0.17), and needed ~60 decisions where this one needs ~40. For a
 * Bernoulli rate a predictable plug-in bet from a Beta posterior *is* the beta mixture
 * (Robbins 1970), so the gain comes from that law and from one-sided ends, not from the plug-in.
 */

/** Anytime-valid bounds on a rate: each end's level is said where they are computed. */
export interface RateBounds {
  lower: number
  upper: number
}

/**
 * A mixture over constant bets: each bet's weight and size. A bet's fraction of the largest
 * safe stake when testing "above m" is a fixed function of m ({@link fractionAt}): the weights
 * never read the data, so each K(m) is a test supermartingale, and every capital stays
 * nonincreasing in m (the fraction is nondecreasing in m and f·(1 − m)/m nonincreasing).
 */
export interface BetMixture {
  /** ln of each bet's weight (they sum to 1). */
  readonly logWeights: readonly number[]
  /** Each bet's effect δ (its fraction at m is δ / (1 − m), at most LARGEST_FRACTION), or with `fixed` its fraction at every m. */
  readonly sizes: readonly number[]
  readonly fixed: boolean
}

const CELLS = 32

/** ln of weights ∝ `weight(j)` over CELLS bets (they sum to 1). */
function logNormalised(weight: (j: number) => number): number[] {
  const w = Array.from({ length: CELLS }, (_, j) => weight(j))
  const total = w.reduce((a, b) => a + b, 0)
  return w.map((x) => Math.log(x / total))
}

/** Cell midpoints of (0, 1). */
const MIDPOINTS: readonly number[] = Array.from({ length: CELLS }, (_, j) => (j + 0.5) / CELLS)

/** The largest fraction a bet stakes (a failure then leaves 1/64 of the capital). */
const LARGEST_FRACTION = MIDPOINTS[CELLS - 1]!

/** Scale of the half-normal law over the effect δ a bet is Kelly for: 15 points, a gate's clear regression. */
const EFFECT_SCALE = 0.15

/** The effects bet on: squared cell midpoints, fine near 0 (where a rate near 0 or 1 has little room), 0.0002 to 0.97. */
const EFFECTS: readonly number[] = MIDPOINTS.map((u) => u * u)

/**
 * The default mixture: bet j is the Kelly bet for the rate m + δ_j against m, the fraction
 * δ_j / (1 − m) of the largest stake (its capital is the likelihood ratio of the two rates),
 * capped at LARGEST_FRACTION when m + δ_j would pass 1; weighted by a half-normal density of
 * scale EFFECT_SCALE over δ times the cell's width in δ (2u/CELLS for δ = u²).
 */
export const EFFECT_BETS: BetMixture = Object.freeze({
  logWeights: logNormalised((j) => Math.exp(-(EFFECTS[j]! ** 2) / (2 * EFFECT_SCALE ** 2)) * MIDPOINTS[j]!),
  sizes: EFFECTS,
  fixed: false,
})

/** The previous version's mixture, kept for comparison: fractions of the largest stake at the cell midpoints, whatever m, weighted by a half-normal of scale ¼. */
export const FRACTION_BETS: BetMixture = Object.freeze({
  logWeights: logNormalised((j) => Math.exp(-(MIDPOINTS[j]! ** 2) / (2 * 0.25 ** 2))),
  sizes: MIDPOINTS,
  fixed: true,
})

/** Bet j's fraction of the largest safe stake when testing "above m", with room = 1 − m. */
function fractionAt(bets: BetMixture, j: number, room: number): number {
  const size = bets.sizes[j]!
  return bets.fixed ? size : Math.min(size / room, LARGEST_FRACTION)
}

/**
 * ln K_n(m) of the mixture over constant bets that the rate is ABOVE m, after `successes` of `n`:
 * each fraction f stakes λ = f/m on a success, so a success multiplies the capital by
 * 1 + f(1 − m)/m and a failure by 1 − f. Nonincreasing in m, ≤ 0 at m = successes/n (no bet gains
 * at the observed rate).
 */
export function logCapitalAbove(successes: number, n: number, m: number, bets: BetMixture = EFFECT_BETS): number {
  if (m <= 0) return successes > 0 ? Infinity : 0
  if (m >= 1) return n > successes ? -Infinity : 0
  const failures = n - successes
  const odds = (1 - m) / m
  const { logWeights } = bets
  let max = -Infinity
  const terms = new Array<number>(logWeights.length)
  for (let j = 0; j < logWeights.length; j++) {
    const f = fractionAt(bets, j, 1 - m)
    const t = logWeights[j]! + (successes > 0 ? successes * Math.log1p(f * odds) : 0) + (failures > 0 ? failures * Math.log1p(-f) : 0)
    terms[j] = t
    if (t > max) max = t
  }
  let sum = 0
  for (const t of terms) sum += Math.exp(t - max)
  return max + Math.log(sum)
}

/** ln K_n(m) of the mirror bet, that the rate is BELOW m. */
export function logCapitalBelow(successes: number, n: number, m: number, bets: BetMixture = EFFECT_BETS): number {
  return logCapitalAbove(n - successes, n, 1 - m, bets)
}

/**
 * One-sided anytime-valid ends for a Bernoulli rate after `successes` of `n`: the lower end
 * errs (lies above the true rate at some look) with chance ≤ `alphaLower`, the upper end
 * (below it) with chance ≤ `alphaUpper`; each is the edge of the rates its capital has not
 * ruled out. Ends at level 1 are left open (0 or 1).
 */
export function bettingRateBounds(successes: number, n: number, alphaLower: number, alphaUpper: number, bets: BetMixture = EFFECT_BETS): RateBounds {
  for (const a of [alphaLower, alphaUpper]) if (!(a > 0 && a <= 1)) throw new RangeError(`alpha must be in (0, 1], got ${a}`)
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(successes) && successes >= 0 && successes <= n))
    throw new RangeError(`bettingRateBounds: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`)
  if (n === 0) return { lower: 0, upper: 1 }
  const rate = successes / n
  return {
    lower: alphaLower >= 1 ? 0 : edge((m) => logCapitalAbove(successes, n, m, bets) >= Math.log(1 / alphaLower), 0, rate, true),
    upper: alphaUpper >= 1 ? 1 : edge((m) => logCapitalBelow(successes, n, m, bets) >= Math.log(1 / alphaUpper), rate, 1, false),
  }
}

/**
 * The boundary in [lo, hi] between ruled-out rates and the rest (the capital is monotone in m,
 * so the ruled-out set is an end segment); `outsideLow` says which end is ruled out. The
 * inside end is reported, never a ruled-out rate.
 */
function edge(outside: (m: number) => boolean, lo: number, hi: number, outsideLow: boolean): number {
  if (outsideLow ? !outside(lo) : !outside(hi)) return outsideLow ? lo : hi
  for (let i = 0; i < 44; i++) {
    const mid = (lo + hi) / 2
    if (outside(mid) === outsideLow) lo = mid
    else hi = mid
  }
  return outsideLow ? hi : lo
}

/** One stratum's outcomes for a stratified rate, and the stake it carries relative to the others. */
export interface StratumCount {
  readonly successes: number
  readonly n: number
  /** Relative stake per outcome (> 0): the stratum's weight in the rate over its draws per round. */
  readonly stake: number
}

/**
 * ln K(m) of the mixture over constant bets that a weighted mean of stratum rates is ABOVE m,
 * when the outcomes come in rounds that draw every stratum a fixed number of times. Stratum s
 * stakes λ·c_s per outcome (c_s its weight over its draws per round, `stake`), so a round's
 * factor ∏ (1 + λ c_s (X − m)) has mean ∏ (1 + λ c_s (r_s − m)) ≤ exp(λ Σ c_s (r_s − m))
 * = exp(λ M (μ − m)) ≤ 1 when the mean μ is at most m (1 + x ≤ eˣ; M the round's size): each
 * constant bet is a supermartingale over rounds, and so is their mixture. With equal stakes
 * it is {@link logCapitalAbove} of the pooled counts. Nonincreasing in m.
 */
export function logStratifiedCapitalAbove(strata: readonly StratumCount[], m: number, bets: BetMixture = EFFECT_BETS): number {
  if (m <= 0) return strata.some((s) => s.successes > 0) ? Infinity : 0
  if (m >= 1) return strata.some((s) => s.n > s.successes) ? -Infinity : 0
  const top = strata.reduce((most, s) => Math.max(most, s.stake), 0)
  const odds = (1 - m) / m
  const { logWeights } = bets
  let max = -Infinity
  const terms = new Array<number>(logWeights.length)
  for (let j = 0; j < logWeights.length; j++) {
    let t = logWeights[j]!
    const fraction = fractionAt(bets, j, 1 - m)
    for (const { successes, n, stake } of strata) {
      // The largest safe λ is 1/(top·m): a failure at the largest stake then leaves 1 − f.
      const f = (fraction * stake) / top
      if (successes > 0) t += successes * Math.log1p(f * odds)
      if (n > successes) t += (n - successes) * Math.log1p(-f)
    }
    terms[j] = t
    if (t > max) max = t
  }
  let sum = 0
  for (const t of terms) sum += Math.exp(t - max)
  return max + Math.log(sum)
}

/** The mirror of {@link logStratifiedCapitalAbove}: that the mean is BELOW m. */
export function logStratifiedCapitalBelow(strata: readonly StratumCount[], m: number, bets: BetMixture = EFFECT_BETS): number {
  return logStratifiedCapitalAbove(
    strata.map((s) => ({ successes: s.n - s.successes, n: s.n, stake: s.stake })),
    1 - m,
    bets,
  )
}

/**
 * One-sided anytime-valid ends for a weighted mean of stratum rates (balanced accuracy over
 * gold classes, accuracy over the same classes) read from complete rounds of a stratified
 * order, each end at its level, as {@link bettingRateBounds} does for one rate.
 */
export function stratifiedRateBounds(strata: readonly StratumCount[], alphaLower: number, alphaUpper: number, bets: BetMixture = EFFECT_BETS): RateBounds {
  for (const a of [alphaLower, alphaUpper]) if (!(a > 0 && a <= 1)) throw new RangeError(`alpha must be in (0, 1], got ${a}`)
  const used = strata.filter((s) => s.stake > 0)
  for (const s of used)
    if (!(Number.isInteger(s.n) && Number.isInteger(s.successes) && s.successes >= 0 && s.successes <= s.n && Number.isFinite(s.stake)))
      throw new RangeError(`stratifiedRateBounds: need integers 0 ≤ successes ≤ n and a finite stake, got ${s.successes} of ${s.n} at ${s.stake}`)
  const n = used.reduce((sum, s) => sum + s.n, 0)
  if (n === 0) return { lower: 0, upper: 1 }
  // Cells of one stake bet alike: their counts add up (fewer terms in every capital).
  const byStake = new Map<number, { successes: number; n: number; stake: number }>()
  for (const s of used) {
    const cell = byStake.get(s.stake) ?? byStake.set(s.stake, { successes: 0, n: 0, stake: s.stake }).get(s.stake)!
    cell.successes += s.successes
    cell.n += s.n
  }
  const merged = [...byStake.values()]
  // The weighted estimate lies inside the rates no capital has ruled out.
  const total = used.reduce((sum, s) => sum + s.stake * s.n, 0)
  const rate = used.reduce((sum, s) => sum + s.stake * s.successes, 0) / total
  return {
    lower: alphaLower >= 1 ? 0 : edge((m) => logStratifiedCapitalAbove(merged, m, bets) >= Math.log(1 / alphaLower), 0, rate, true),
    upper: alphaUpper >= 1 ? 1 : edge((m) => logStratifiedCapitalBelow(merged, m, bets) >= Math.log(1 / alphaUpper), rate, 1, false),
  }
}
