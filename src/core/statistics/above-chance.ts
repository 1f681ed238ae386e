/** The exact test of "no better than guessing" behind `toHaveAccuracyAboveChance`. */

/**
 * One-sided exact p-value of "no better than guessing": P(X ≥ hits) where X is the
 * Poisson-binomial count of hits of a uniform guesser, each decision hit with
 * probability 1/options (the Poisson-binomial recursion, Chen & Liu 1997, Statistica Sinica 7:875–892).
 */
export function aboveChanceP(records: readonly { gold: string; prediction: string | null; probabilities: Record<string, number> }[]): number {
  let dist = new Float64Array(records.length + 1)
  dist[0] = 1
  let hits = 0
  records.forEach((record, i) => {
    if (record.gold === record.prediction) hits++
    const p = 1 / Math.max(1, Object.keys(record.probabilities).length)
    const next = new Float64Array(records.length + 1)
    for (let k = 0; k <= i; k++) {
      next[k]! += dist[k]! * (1 - p)
      next[k + 1]! += dist[k]! * p
    }
    dist = next
  })
  let tail = 0
  for (let k = hits; k <= records.length; k++) tail += dist[k]!
  return Math.min(1, tail)
}
