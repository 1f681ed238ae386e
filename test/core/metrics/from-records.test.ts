/** Metrics read back from records agree with the run that wrote them, at a near-tie on a bin edge too. */
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, type FallibleScoreFn } from '../../../src/core/index.ts'
import { recordConfidence, reliabilityBins } from '../../../src/core/metrics/from-records.ts'
import { eceFromBins } from '../../../src/core/metrics/headline.ts'
import { decision } from '../../helpers/decisions.ts'

describe('reliability bins from records', () => {
  it('bin a stated pick inside the tie tolerance at its own probability, as the run ECE does', async () => {
    // [1, 1 − 1e-13] renormalises to 0.5 ± 2.5e-14: slot B, the stated pick, sits just below the 0.5 bin edge, slot A just above.
    const scorer: FallibleScoreFn = (requests) => requests.map(() => ({ probabilities: [1, 1 - 1e-13], pick: 1 }))
    const result = await evaluateWithScorer([decision(2, 1)], scorer, { debias: 'none', statistics: false })
    const [record] = result.records
    expect(record!.prediction).toBe(record!.gold)
    expect(recordConfidence(record!)).toBeLessThan(0.5)
    const bins = reliabilityBins(result.records)
    expect(bins.map((b) => b.count)).toEqual([0, 0, 0, 0, 1, 0, 0, 0, 0, 0])
    expect(eceFromBins(bins)).toBe(result.ece)
  })

  it('reads a tie (no prediction) at the tied maximum', () => {
    const record = { id: 'q', criterion: 'c', gold: 'a', prediction: null, tied: ['a', 'b'], probabilities: { a: 0.5, b: 0.5 }, picks: [null], letters: [null] }
    expect(recordConfidence(record)).toBe(0.5)
    expect(reliabilityBins([record]).map((b) => b.hits)).toEqual(Array(10).fill(0))
  })
})
