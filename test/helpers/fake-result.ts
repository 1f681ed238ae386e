// A small EvalResult for the Vitest layer's tests: the matchers, the baseline file, the reporter.
import type { EvalResult } from '../../src/core/index.ts'

/** A small result: `consistent[i]` says whether decision i keeps its pick under both orderings. */
export function fakeResult(consistent: boolean[], overrides: Partial<EvalResult> = {}): EvalResult {
  const records = consistent.map((ok, i) => ({
    id: `d-${i}`,
    criterion: i % 2 ? 'queue' : 'refund',
    gold: 'a',
    prediction: 'a',
    probabilities: { a: 0.7, b: 0.3 },
    picks: ok ? ['a', 'a'] : ['a', 'b'],
    letters: ok ? ['A', 'B'] : ['A', 'A'],
  }))
  const oc = consistent.filter(Boolean).length / consistent.length
  return {
    accuracy: 0.9,
    balancedAccuracy: 0.85,
    orderConsistency: oc,
    ece: 0.1,
    brier: 0.2,
    perCriterion: { queue: 0.95, refund: 0.62 },
    letterDistribution: { A: 0.75, B: 0.25 },
    n: consistent.length,
    manifest: {
      debias: 'cyclic',
      orderingsScored: 2,
      forwardPasses: consistent.length * 2,
      decisions: consistent.length,
      unlabelledSkipped: 0,
      fingerprint: 'f00dfeedf00dfeed',
      chance: 0.5,
      seed: 0,
      versions: { node: '20', vitestSceptic: '0.1.0' },
      started: '2026-01-01T00:00:00.000Z',
      seconds: 1,
      scorer: 'fake',
    } as EvalResult['manifest'],
    records,
    ...overrides,
  } as EvalResult
}
