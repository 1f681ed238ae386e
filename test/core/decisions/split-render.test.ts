import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DataError, evaluateWithScorer, groupOf, groupSplit, meanGroupBalancedAccuracy, resultToJson, type Decision } from '../../../src/core/index.ts'
import { render } from '../../../src/report/index.ts'
import { alwaysFirst, byId, decision } from '../../helpers/decisions.ts'

const quiet = { onWarning: () => {} }

describe('groupSplit', () => {
  const rowsArb = fc.array(
    fc.record({ state: fc.constantFrom('s1', 's2', 's3', 's4', 's5', 's6'), group: fc.option(fc.constantFrom('g1', 'g2', 'g3')) }),
    { minLength: 2, maxLength: 40 },
  )

  it('never puts one group_id (or, without one, one state) on both sides, and loses no row', () => {
    fc.assert(
      fc.property(rowsArb, fc.double({ min: 0.05, max: 0.95, noNaN: true }), fc.integer(), (specs, evalFraction, seed) => {
        const rows: Decision[] = specs.map((s, i) =>
          decision(2, i % 2, { id: `r${i}`, state: s.state, ...(s.group ? { group_id: s.group } : {}) }),
        )
        const { train, eval: held } = groupSplit(rows, { evalFraction, seed })
        expect(train.length + held.length).toBe(rows.length)
        const trainGroups = new Set(train.map(groupOf))
        for (const row of held) expect(trainGroups.has(groupOf(row))).toBe(false)
        // Deterministic per seed, and independent of input order.
        const again = groupSplit([...rows].reverse(), { evalFraction, seed })
        expect(new Set(again.eval.map((r) => r.id))).toEqual(new Set(held.map((r) => r.id)))
      }),
      { numRuns: 200 },
    )
  })

  it('uses both sides when there are at least two groups', () => {
    const rows = Array.from({ length: 20 }, (_, i) => decision(2, 0, { id: `r${i}`, state: `s${i}` }))
    const { train, eval: held } = groupSplit(rows, { evalFraction: 0.2, seed: 3 })
    expect(held).toHaveLength(4)
    expect(train).toHaveLength(16)
  })

  it('refuses a fraction outside (0, 1)', () => {
    expect(() => groupSplit([], { evalFraction: 1 })).toThrow(DataError)
  })
})

describe('meanGroupBalancedAccuracy', () => {
  it('averages balanced accuracy within groups, unlike the pooled figure', () => {
    // Two criteria share ids yes/no. Pooled, they merge into one class each.
    const gold = ['yes', 'no', 'yes', 'no', 'no', 'no']
    const pred = ['yes', 'no', 'no', 'no', 'no', 'no']
    const groups = ['a', 'a', 'b', 'b', 'b', 'b']
    // a: recall yes 1, no 1 → 1. b: recall yes 0, no 1 → 0.5. Mean 0.75.
    expect(meanGroupBalancedAccuracy(gold, pred, groups)).toBe(0.75)
  })
})

describe('render', () => {
  it('prints the reference block, plain when colour is off', async () => {
    const rows = [
      decision(3, 0, { criterion: { key: 'queue', question: 'Q', options: ['a', 'b', 'c'].map((id) => ({ id, text: id })) } }),
      decision(2, 1, { criterion: { key: 'refund', question: 'Q', options: ['yes', 'no'].map((id) => ({ id, text: id })) } }),
      decision(2, null),
    ].map((d, i) => ({ ...d, answer_id: d.answer_id && (i === 0 ? 'a' : 'no') }))
    // The reference block exactly; intervals and verdicts are tested below.
    const result = await evaluateWithScorer(rows, alwaysFirst, { debias: 'cyclic', statistics: false, ...quiet })
    const text = render(result, { color: false })
    expect(text).toBe(
      [
        // The verdict first: two decisions say nothing either way.
        'verdict            too few decisions to tell: n = 2 (a verdict needs at least 10)',
        'model              alwaysFirst (ScoreFn)',
        'decisions          2   (1 unlabelled skipped)',
        // Both averaged vectors tie: a tie is no answer, so neither is credited.
        'tied               2   decisions with no single answer (counted wrong); 0 tied picks (letter split evenly)',
        'debias             cyclic   3 orderings scored',
        'accuracy           0.0%   (chance 41.7%)',
        'balanced accuracy  0.0%',
        'order consistency  0.0%   same answer under every ordering',
        // Without statistics only the size rule applies (the HTML page says the same).
        `ece                ${result.ece!.toFixed(3)}   unreliable at n = 2 (< 300): read the Brier score`,
        `brier              ${result.brier!.toFixed(3)}`,
        // The order-robustness block; its numbers are tested in test/core/metrics/robustness.test.ts.
        'order robustness   every number from the same picks, no extra model calls',
        // A uniform guesser: ((1/3)^3 + (1/2)^2) / 2 = 14.4%.
        '  circular         0.0%   right under every ordering; a uniform guesser 14.4%',
        '  per ordering     40.0%   mean over (decision, ordering)',
        '  gold at slot     A:100%  B:0%  C:0%',
        '  slot gap         100.0 pp   max − min of the above; a position-blind reader 0',
        // statistics: false skips the bootstrap, so V has no interval here.
        '  slot bias        χ² 7.5, df 2, p = 0.0235, V 0.87',
        `  ckld             ${result.ckld!.toFixed(3)}   KL(gold letters ‖ picked letters); 0 = picks follow gold`,
        // The two-option decision is a pair judged in both orders.
        '  pairs            1 judged in both orders: consistent 0.0%, primacy 1, recency 0',
        '  fairness         -1.00   (recency − primacy)/pairs; fair 0, negative favours the first shown; first shown picked 100.0%',
        'letters picked     A:100%  B:0%  C:0%',
        '',
        'per criterion (balanced accuracy):',
        '  queue                0.000',
        '  refund               0.000',
      ].join('\n'),
    )
    expect(text).not.toMatch(/\x1b\[/)
    expect(render(result, { color: true })).toMatch(/\x1b\[/)
  })

  it('with statistics (the default) adds intervals, verdicts and the honest-numbers lines', async () => {
    const rows = Array.from({ length: 30 }, (_, i) => decision(3, i % 3))
    const result = await evaluateWithScorer(rows, alwaysFirst, { debias: 'cyclic', ...quiet })
    const text = render(result, { color: false })
    // Every decision ties (a tie is no answer): nothing is credited; every class all wrong. MOVER-Wilson,
    // as on every run: three classes of 0/10, Wilson upper z²/(10 + z²) each, √3 of it over 3 = 16.0%.
    expect(text).toMatch(/^balanced accuracy  0\.0%  \[0\.0, 16\.0\]   not better than chance$/m)
    expect(text).toMatch(/^tied {15}30   decisions with no single answer/m)
    // 0 of 30 consistent: Wilson upper z²/(30 + z²) = 0.114, not a collapsed [0.0, 0.0].
    expect(text).toMatch(/^order consistency  0\.0%  \[0\.0, 11\.4\]   same answer under every ordering   not better than a random guesser$/m)
    expect(text).toMatch(/^ece {16}[\d.]+   unreliable at n = 30/m)
    for (const line of ['majority baseline', 'detectable change', 'rstd']) expect(text).toMatch(new RegExp(`^${line} +`, 'm'))
  })

  it('says why order consistency is n/a with one ordering', async () => {
    const result = await evaluateWithScorer([decision(2, 0)], byId(() => 1), { ...quiet, debias: 'none' })
    expect(render(result, { color: false })).toMatch(/order consistency  n\/a {5}not measured: only one ordering was scored \(debias none\)/)
  })

  it('the JSON document has the EvalResult fields as top-level keys plus manifest, no records', async () => {
    const result = await evaluateWithScorer([decision(2, 0)], alwaysFirst, { debias: 'cyclic', ...quiet })
    expect(Object.keys(resultToJson(result)).sort()).toEqual(
      // The metrics of docs/design.md#contracts, the order-robustness panel, plus the epoch score, custom metrics and failure accounting.
      [
        'accuracy', 'balancedAccuracy', 'brier', 'ece', 'letterDistribution', 'manifest', 'n', 'orderConsistency', 'perCriterion', 'score', 'metrics', 'failed', 'failures', 'statistics',
        'circularAccuracy', 'orderingAccuracy', 'accuracyByGoldSlot', 'slotSensitivityGap', 'slotBias', 'ckld', 'pairwise',
      ].sort(),
    )
    expect(Object.keys(result.manifest)).toEqual(
      expect.arrayContaining(['debias', 'orderingsScored', 'forwardPasses', 'decisions', 'unlabelledSkipped', 'fingerprint', 'chance', 'seed', 'versions', 'started', 'seconds', 'scorer']),
    )
  })
})
