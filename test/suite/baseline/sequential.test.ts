import { describe, expect, it } from 'vitest'
import type { BaselineFile } from '../../../src/suite/baseline/file.ts'
import { compareSequentially } from '../../../src/suite/baseline/sequential.ts'

/** A baseline-shaped file of `n` decisions, consistent and strict unless listed. */
function file(n: number, inconsistent: ReadonlySet<number> = new Set(), overrides: Partial<BaselineFile> = {}): BaselineFile {
  const decisions: BaselineFile['decisions'] = {}
  for (let i = 0; i < n; i++) decisions[`d${i}`] = { fingerprint: `f${i}`, consistent: !inconsistent.has(i), strict: !inconsistent.has(i) }
  return { schema: 2, suite: 's', debias: 'cyclic', scorer: 'x', n, orderConsistency: 1 - inconsistent.size / n, balancedAccuracy: 0.8, circularAccuracy: 1 - inconsistent.size / n, decisions, ...overrides }
}
const stop = { alpha: 0.05, scored: 100, total: 1000, stopped: true, verdicts: {}, bounds: {} }
const gate = { alpha: 0.05, detectableDrop: 0.1 }

describe('the baseline gate of a run that stopped early (sequential McNemar)', () => {
  it('6 one-way flips are not enough at α = 0.05, 7 are (e = 18.1, then 31.9 ≥ 20)', () => {
    const six = compareSequentially(file(1000), file(100, new Set([0, 1, 2, 3, 4, 5])), gate, stop)
    expect(six).toMatchObject({ status: 'pass', pass: true, worse: 6, better: 0, paired: 100, sequential: 'undecided' })
    expect(six.eValue).toBeCloseTo((128 / 7) * (127 / 128), 9)
    expect(six.message).toContain('stopped early after 100 of 1000 decisions: on the 100 scored decisions paired with the baseline')
    expect(six.message).toContain('not decided: no regression detected (e < 1/α = 20.00)')
    const seven = compareSequentially(file(1000), file(100, new Set([0, 1, 2, 3, 4, 5, 6])), gate, stop)
    expect(seven).toMatchObject({ status: 'regressed', pass: false, worse: 7 })
    expect(seven.message).toContain('order consistency regressed: e ≥ 1/α = 20.00, anytime-valid at α = 0.05')
  })

  it('the unscored decisions are not "removed"; a changed setup still fails as in a full run', () => {
    const same = compareSequentially(file(1000), file(100), gate, stop)
    expect(same.message).not.toMatch(/removed/)
    const other = compareSequentially(file(1000), file(100, new Set(), { scorer: 'y' }), gate, stop)
    expect(other).toMatchObject({ status: 'setup-changed', pass: false })
  })
})
