// Every budget bounds: the balanced-accuracy test against a guesser promises about a tenth of a
// second (BUDGET cells written plus multiply-adds). Class structures built to break that promise
// (many classes, co-prime sizes whose lattice is large but passes the cost model, mixed option
// counts, up to 10^5 decisions) must spend no more than the budget as counted in the loops. Speed
// itself is measured in the benchmarks, never here: what is asserted is the cost model, and that
// the meter counts what the loops do (cells written plus multiply-adds, step by step).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { BUDGET, balancedAccuracyChanceTest, guesserHits, type ClassUnderGuessing } from '../../../src/core/statistics/above-chance.ts'

/** A class of `size` decisions whose option counts cycle through `options`, with `hits` of them right. */
function klass(size: number, options: readonly number[], hits: number): ClassUnderGuessing {
  return { hits: Math.min(size, hits), chances: Array.from({ length: size }, (_, i) => 1 / options[i % options.length]!) }
}

function withinBudget(classes: readonly ClassUnderGuessing[]): void {
  const test = balancedAccuracyChanceTest(classes)
  expect(test.work).toBeLessThanOrEqual(BUDGET)
  expect(test.p).toBeGreaterThanOrEqual(0)
  expect(test.p).toBeLessThanOrEqual(1)
  expect(test.pLower).toBeLessThanOrEqual(test.p)
}

const PRIMES = [2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97]

describe('the balanced-accuracy chance test stays within its budget', () => {
  it('145 decisions, 5 criteria of 2–6 options, 20 classes of co-prime sizes (lattice 25 740): was about a minute', () => {
    // A held-out shape that took 4 minutes before: gold classes per criterion (2 + 3 + 4 + 5 + 6), 135 labelled.
    const sizes = [13, 11, 11, 12, 3, 2, 12, 12, 9, 6, 1, 6, 10, 12, 10, 1, 1, 1, 1, 1]
    const options = [2, 2, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 5, 6, 6, 6, 6, 6, 6]
    const classes = sizes.map((n, c) => klass(n, [options[c]!], Math.round(0.3 * n)))
    withinBudget(classes)
    // The exact p on the 25 740-step lattice (computed with the budget raised): the answer brackets it.
    const test = balancedAccuracyChanceTest(classes)
    expect(test.pLower).toBeLessThanOrEqual(0.60438709477578)
    expect(test.p).toBeGreaterThanOrEqual(0.60438709477578)
    expect(test.p - test.pLower).toBeLessThan(0.001)
  })

  it('adversarial class structures up to 10^5 decisions (property)', () => {
    const size = fc.oneof(fc.constantFrom(...PRIMES), fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 20_000 }))
    const structure = fc
      .array(fc.record({ size, options: fc.array(fc.integer({ min: 2, max: 6 }), { minLength: 1, maxLength: 5 }), hit: fc.double({ min: 0, max: 1, noNaN: true }) }), { minLength: 1, maxLength: 300 })
      .filter((classes) => classes.reduce((s, c) => s + c.size, 0) <= 100_000)
    // Issue 42's shape: criteria of 2–6 options, one gold class per option, each of 1–13 decisions.
    const hit = fc.double({ min: 0, max: 1, noNaN: true })
    const criterion = fc.integer({ min: 2, max: 6 }).chain((k) => fc.array(fc.record({ size: fc.integer({ min: 1, max: 13 }), options: fc.constant([k]), hit }), { minLength: k, maxLength: k }))
    const criteria = fc.array(criterion, { minLength: 3, maxLength: 8 }).map((classes) => classes.flat())
    fc.assert(
      fc.property(fc.oneof(structure, criteria), (classes) => withinBudget(classes.map((c) => klass(c.size, c.options, Math.round(c.hit * c.size))))),
      { numRuns: 60, seed: 42 },
    )
  })

  it('many co-prime classes with mixed option counts: the largest lattice the cost model admits', () => {
    // Distinct primes up to 97 with 2–6 options each: the lattice overflows 10^7, so a grid is chosen.
    withinBudget(PRIMES.map((p, i) => klass(p, [2 + (i % 5), 2 + ((i + 2) % 5)], Math.ceil(p / 2))))
    // Eight prime classes (lattice 2·3·5·7·11·13·17·19 = 9 699 690) beside one of 99 923 mixed decisions: 10^5 in all.
    withinBudget([...[2, 3, 5, 7, 11, 13, 17, 19].map((p) => klass(p, [3], 1)), klass(100_000 - 77, [2, 3, 4, 5, 6], 40_000)])
  })
})

describe('the meter counts what the loops do', () => {
  /** Non-zero cells of a distribution. */
  const nonzero = (mass: Float64Array) => mass.reduce((n, m) => n + (m !== 0 ? 1 : 0), 0)

  it('the guesser\'s distribution: per option count, the binomial\'s cells, the sum\'s cells and one multiply-add per pair of non-zeros (property)', () => {
    // Rows of 2–6 options; the distribution is built one option count at a time (smallest chance first).
    const rows = fc.array(fc.record({ options: fc.integer({ min: 2, max: 6 }), n: fc.integer({ min: 1, max: 3000 }) }), { minLength: 1, maxLength: 5 })
    fc.assert(
      fc.property(rows, (groups) => {
        const byChance = new Map<number, number>()
        for (const { options, n } of groups) byChance.set(1 / options, (byChance.get(1 / options) ?? 0) + n)
        const steps = [...byChance].sort((a, b) => a[0] - b[0])
        let expected = 0
        let before: Float64Array = Float64Array.of(1)
        const chances: number[] = []
        for (const [q, n] of steps) {
          chances.push(...Array<number>(n).fill(q))
          const after = guesserHits(chances).mass
          // Bin(n, q) evaluated at n + 1 points; its kept support (dense) is what widened the sum.
          const binomialCells = after.length - before.length + 1
          expected += n + 1 + after.length + nonzero(before) * binomialCells
          before = after
        }
        const meter = { work: 0 }
        guesserHits(chances, meter)
        expect(meter.work).toBe(expected)
      }),
      { numRuns: 60, seed: 42 },
    )
  })

  it('the chance test never counts less than the guesser distributions it builds', () => {
    const classes = [13, 11, 7, 5].map((n, c) => klass(n, [2 + c], 2))
    const built = classes.reduce((sum, c) => {
      const meter = { work: 0 }
      guesserHits(c.chances, meter)
      return sum + meter.work
    }, 0)
    const test = balancedAccuracyChanceTest(classes)
    // Then one binning, one convolution and the tails per class on top: at least a cell per lattice step.
    expect(test.work).toBeGreaterThan(built + 13 * 11 * 7 * 5)
  })
})
