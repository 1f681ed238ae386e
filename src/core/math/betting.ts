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
 * so the bound is a function of (successes, n) like the beta mixture it replaces, and its
 * mixing law can sit where a gate's effects are: most of its weight on fractions under ½
 * (a half-normal of scale ¼ over the fraction of the largest safe stake). For a Bernoulli rate
 * a predictable plug-in bet from a Beta posterior *is* the beta mixture (Robbins 1970), so
 * the gain comes from that law and from one-sided ends, not from the plug-in.
 */

/** Anytime-valid bounds on a rate: each end's level is said where they are computed. */
export interface RateBounds {
  lower: number
  upper: number
}

/** Fractions of the largest safe stake the mixture bets (midpoints of 32 equal cells of (0, 1)). */
const FRACTIONS: readonly number[] = Array.from({ length: 32 }, (_, j) => (j + 0.5) / 32)

/** Scale of the half-normal law over the fractions: Kelly's fraction for a 15-point effect at a 0.7 rate is 0.2 to 0.5. */
export const BET_SCALE = 0.25

/** ln of each fraction's mixing weight (they sum to 1). */
const LOG_WEIGHTS: readonly number[] = (() => {
  const w = FRACTIONS.map((f) => Math.exp(-(f * f) / (2 * BET_SCALE * BET_SCALE)))
  const total = w.reduce((a, b) => a + b, 0)
  return w.map((x) => Math.log(x / total))
})()

/**
 * ln K_n(m) of the mixture over constant bets that the rate is ABOVE m, after `successes` of `n`:
 * each fraction f stakes λ = f/m on a success, so a success multiplies the capital by
 * 1 + f(1 − m)/m and a failure by 1 − f. Convex and nonincreasing in m, ≤ 0 at m = successes/n.
 */
export function logCapitalAbove(successes: number, n: number, m: number): number {
  if (m <= 0) return successes > 0 ? Infinity : 0
  if (m >= 1) return n > successes ? -Infinity : 0
  const failures = n - successes
  const odds = (1 - m) / m
  let max = -Infinity
  const terms = new Array<number>(FRACTIONS.length)
  for (let j = 0; j < FRACTIONS.length; j++) {
    const f = FRACTIONS[j]!
    const t = LOG_WEIGHTS[j]! + (successes > 0 ? successes * Math.log1p(f * odds) : 0) + (failures > 0 ? failures * Math.log1p(-f) : 0)
    terms[j] = t
    if (t > max) max = t
  }
  let sum = 0
  for (const t of terms) sum += Math.exp(t - max)
  return max + Math.log(sum)
}

/** ln K_n(m) of the mirror bet, that the rate is BELOW m. */
export function logCapitalBelow(successes: number, n: number, m: number): number {
  return logCapitalAbove(n - successes, n, 1 - m)
}

/**
 * One-sided anytime-valid ends for a Bernoulli rate after `successes` of `n`: the lower end
 * errs (lies above the true rate at some look) with chance ≤ `alphaLower`, the upper end
 * (below it) with chance ≤ `alphaUpper`; each is the edge of the rates its capital has not
 * ruled out. Ends at level 1 are left open (0 or 1).
 */
export function bettingRateBounds(successes: number, n: number, alphaLower: number, alphaUpper: number): RateBounds {
  for (const a of [alphaLower, alphaUpper]) if (!(a > 0 && a <= 1)) throw new RangeError(`alpha must be in (0, 1], got ${a}`)
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(successes) && successes >= 0 && successes <= n))
    throw new RangeError(`bettingRateBounds: need integers 0 ≤ successes ≤ n, got ${successes} of ${n}`)
  if (n === 0) return { lower: 0, upper: 1 }
  const rate = successes / n
  return {
    lower: alphaLower >= 1 ? 0 : edge((m) => logCapitalAbove(successes, n, m) >= Math.log(1 / alphaLower), 0, rate, true),
    upper: alphaUpper >= 1 ? 1 : edge((m) => logCapitalBelow(successes, n, m) >= Math.log(1 / alphaUpper), rate, 1, false),
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
export function logStratifiedCapitalAbove(strata: readonly StratumCount[], m: number): number {
  if (m <= 0) return strata.some((s) => s.successes > 0) ? Infinity : 0
  if (m >= 1) return strata.some((s) => s.n > s.successes) ? -Infinity : 0
  const top = strata.reduce((most, s) => Math.max(most, s.stake), 0)
  const odds = (1 - m) / m
  let max = -Infinity
  const terms = new Array<number>(FRACTIONS.length)
  for (let j = 0; j < FRACTIONS.length; j++) {
    let t = LOG_WEIGHTS[j]!
    for (const { successes, n, stake } of strata) {
      // The largest safe λ is 1/(top·m): a failure at the largest stake then leaves 1 − f.
      const f = (FRACTIONS[j]! * stake) / top
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
export function logStratifiedCapitalBelow(strata: readonly StratumCount[], m: number): number {
  return logStratifiedCapitalAbove(
    strata.map((s) => ({ successes: s.n - s.successes, n: s.n, stake: s.stake })),
    1 - m,
  )
}

/**
 * One-sided anytime-valid ends for a weighted mean of stratum rates (balanced accuracy over
 * gold classes, accuracy over the same classes) read from complete rounds of a stratified
 * order, each end at its level, as {@link bettingRateBounds} does for one rate.
 */
export function stratifiedRateBounds(strata: readonly StratumCount[], alphaLower: number, alphaUpper: number): RateBounds {
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
    lower: alphaLower >= 1 ? 0 : edge((m) => logStratifiedCapitalAbove(merged, m) >= Math.log(1 / alphaLower), 0, rate, true),
    upper: alphaUpper >= 1 ? 1 : edge((m) => logStratifiedCapitalBelow(merged, m) >= Math.log(1 / alphaUpper), rate, 1, false),
  }
}
