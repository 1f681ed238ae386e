// In-process tests of the Vitest layer's pure parts and of the matchers.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, expectTypeOf, test } from 'vitest'
import { configDefaults } from 'vitest/config'
import type { EvalResult } from '../../src/core/index.ts'
import { baselineDecisions, baselineFromResult, compareWithBaseline, readBaseline, serialiseBaseline, type BaselineFile } from '../../src/vitest/baseline/file.ts'
import { underCI } from '../../src/vitest/baseline/gate.ts'
import { formatBound, meets, slug, thresholdMark, worstCriterion } from '../../src/vitest/assertions/format.ts'
import { formatP } from '../../src/report/format.ts'
import { scorerHandle } from '../../src/vitest/suite/score-suite.ts'
import { aboveChanceP } from '../../src/core/statistics/above-chance.ts'
import { scepticMatchers, type AtLeast } from '../../src/vitest/assertions/matchers.ts'
import { mcnemarRegression, minimumDetectableDiscordant, powerCheck } from '../../src/core/statistics/regression-gate.ts'
import { sceptic } from '../../src/vitest/plugin/plugin.ts'
import { formatDuration, formatProgress, interactiveTerminal, parseProgress, progressEmitter } from '../../src/vitest/suite/progress.ts'
import { blobRun, renderSuite } from '../../src/vitest/reporter/reporter.ts'
import { compareDistributions, parseDistribution, renderDistribution } from '../../src/vitest/assertions/snapshot.ts'

expect.extend(scepticMatchers)

/** A small result: `consistent[i]` says whether decision i keeps its pick under both orderings. */
function fakeResult(consistent: boolean[], overrides: Partial<EvalResult> = {}): EvalResult {
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

describe('exact one-sided McNemar (McNemar 1947)', () => {
  test('one-sided p on the discordant pairs', () => {
    expect(mcnemarRegression(6, 1).p).toBeCloseTo(8 / 128, 12) // b = 1, c = 6 → 0.0625
    expect(mcnemarRegression(5, 0).p).toBeCloseTo(1 / 32, 12)
    expect(mcnemarRegression(8, 3).p).toBeCloseTo((165 + 55 + 11 + 1) / 2048, 12)
    expect(mcnemarRegression(1000, 1000).p).toBeGreaterThan(0.5)
    expect(mcnemarRegression(1000, 1000).p).toBeLessThan(0.52)
  })

  test('regression direction: worse counts against, better in favour', () => {
    expect(mcnemarRegression(6, 0).p).toBeCloseTo(1 / 64, 12)
    expect(mcnemarRegression(0, 6).p).toBe(1)
    expect(mcnemarRegression(0, 0).p).toBe(1)
  })

  test('five one-way flips are the fewest that can be significant at 0.05', () => {
    expect(minimumDetectableDiscordant(0.05)).toBe(5)
    expect(minimumDetectableDiscordant(0.0625)).toBe(5) // 2^-4 = 0.0625 is not < 0.0625
    expect(minimumDetectableDiscordant(0.01)).toBe(7)
    expect(powerCheck(30, 30, 0.1, 0.05)).toMatchObject({ detectable: false, decisionsForDrop: 3, bestCaseP: 0.125, minimumFlips: 5 })
    expect(powerCheck(56, 56, 0.1, 0.05)).toMatchObject({ detectable: true, decisionsForDrop: 6 })
    expect(powerCheck(100, 3, 0.1, 0.05).detectable).toBe(false) // only 3 consistent at baseline
  })
})

describe('baseline comparison', () => {
  const base = baselineFromResult('suite', fakeResult(Array(40).fill(true)))

  test('flags by record id; repeated ids keep every flag', () => {
    const records = [{ id: 'x', criterion: 'c', gold: 'a', probabilities: { a: 1 }, picks: ['a', 'a'] }, { id: 'x', criterion: 'c', gold: 'a', probabilities: { a: 1 }, picks: ['a', 'b'] }]
    const decisions = baselineDecisions({ records } as unknown as Pick<EvalResult, 'records'>)
    expect(Object.keys(decisions)).toEqual(['x', 'x~2'])
    expect([decisions.x!.consistent, decisions['x~2']!.consistent]).toEqual([true, false])
    expect(decisions.x!.fingerprint).toMatch(/^[0-9a-f]{16}$/)
  })

  test('noise within chance passes, a regression beyond it fails', () => {
    const noise = baselineFromResult('suite', fakeResult([false, false, false, ...Array(37).fill(true)]))
    const noisy = compareWithBaseline(base, noise, { alpha: 0.05, detectableDrop: 0.1 })
    expect(noisy).toMatchObject({ status: 'pass', pass: true, worse: 3, better: 0 })
    expect(noisy.p).toBeCloseTo(0.125, 12)
    const drop = baselineFromResult('suite', fakeResult([...Array(8).fill(false), ...Array(32).fill(true)]))
    const dropped = compareWithBaseline(base, drop, { alpha: 0.05, detectableDrop: 0.1 })
    expect(dropped).toMatchObject({ status: 'regressed', pass: false, worse: 8 })
    expect(dropped.message).toContain('p = 0.00391 < alpha 0.05')
  })

  test('improvements offset regressions (paired, not a difference of means)', () => {
    const before: BaselineFile = baselineFromResult('suite', fakeResult(Array.from({ length: 40 }, (_, i) => i >= 6)))
    const now = baselineFromResult('suite', fakeResult(Array.from({ length: 40 }, (_, i) => i < 6 || i >= 12)))
    expect(compareWithBaseline(before, now, { alpha: 0.05, detectableDrop: 0.1 })).toMatchObject({ worse: 6, better: 6, status: 'pass' })
  })

  test('a different scorer setup (debias or scorer) is its own failure', () => {
    for (const other of [{ ...base, debias: 'permutation' as const }, { ...base, scorer: 'other' }]) {
      const outcome = compareWithBaseline(base, other, { alpha: 0.05, detectableDrop: 0.1 })
      expect(outcome).toMatchObject({ status: 'setup-changed', pass: false })
      expect(outcome.message).toContain('refresh the baseline with `vitest -u`')
    }
  })

  test('a run that pairs with no baseline decision (a replaced data set) fails: nothing was compared', () => {
    // The same 40 flags under other ids: the old gate passed with "0 paired", p = 1.
    const renamed = Object.fromEntries(Object.entries(base.decisions).map(([id, d]) => [`new-${id}`, d]))
    const outcome = compareWithBaseline(base, { ...base, decisions: renamed }, { alpha: 0.05, detectableDrop: 0.1 })
    expect(outcome).toMatchObject({ status: 'unpaired', pass: false, paired: 0, added: 40, removed: 40 })
    expect(outcome.message).toBe(
      'no decision of this run pairs with the baseline (0 changed, 40 new, 40 removed), so nothing was compared. ' +
        'If the data set was replaced on purpose, refresh the baseline with `vitest -u` and commit it.',
    )
    // One paired decision is enough to compare (and a small set says it is underpowered).
    const one = compareWithBaseline(base, { ...base, decisions: { ...renamed, 'd-0': base.decisions['d-0']! } }, { alpha: 0.05, detectableDrop: 0.1 })
    expect(one).toMatchObject({ status: 'pass', paired: 1 })
  })

  test('underCI: CI set to anything but empty, 0 or false', () => {
    expect([undefined, '', '0', 'false', 'FALSE', ' '].map((CI) => underCI(CI === undefined ? {} : { CI }))).toEqual(Array(6).fill(false))
    expect(['true', '1', 'yes', 'woodpecker'].map((CI) => underCI({ CI }))).toEqual(Array(4).fill(true))
  })

  test('edited, added and removed decisions are counted and left out of the paired test', () => {
    // 8 decisions newly inconsistent would regress (p = 0.0039); if all 8 were edited, none is paired.
    const now = baselineFromResult('suite', fakeResult([...Array(8).fill(false), ...Array(32).fill(true)]))
    const decisions = { ...now.decisions }
    for (let i = 0; i < 8; i++) decisions[`d-${i}`] = { ...decisions[`d-${i}`]!, fingerprint: '0123456789abcdef' }
    delete decisions['d-39']
    decisions['d-new'] = { fingerprint: 'fedcba9876543210', consistent: false, strict: false }
    const outcome = compareWithBaseline(base, { ...now, decisions }, { alpha: 0.05, detectableDrop: 0.1 })
    expect(outcome).toMatchObject({ status: 'pass', pass: true, worse: 0, better: 0, paired: 31, changed: 8, added: 1, removed: 1 })
    expect(outcome.message).toContain('(31 paired; 8 changed, 1 new, 1 removed since the baseline, not paired)')
    // The same flips on unedited decisions regress.
    expect(compareWithBaseline(base, now, { alpha: 0.05, detectableDrop: 0.1 })).toMatchObject({ status: 'regressed', paired: 40, changed: 0 })
  })

  test('strict correctness (right under every ordering) is gated too: consistent but wrong is a regression', () => {
    const records = [
      { id: 'right', gold: 'a', picks: ['a', 'a'] },
      { id: 'wrong', gold: 'a', picks: ['b', 'b'] },
      { id: 'flip', gold: 'a', picks: ['a', 'b'] },
    ].map((r) => ({ ...r, criterion: 'c', probabilities: { a: 0.5, b: 0.5 } }))
    const flags = baselineDecisions({ records } as unknown as Pick<EvalResult, 'records'>)
    expect(Object.values(flags).map((d) => [d.consistent, d.strict])).toEqual([[true, true], [true, false], [false, false]])
    // Six decisions stay consistent but become consistently wrong: order consistency is unchanged,
    // circular accuracy drops, p = 2^-6 (McNemar, one-sided exact).
    const before = { ...structuredClone(base), circularAccuracy: 1 }
    const now = structuredClone(before)
    for (let i = 0; i < 6; i++) now.decisions[`d-${i}`]!.strict = false
    now.circularAccuracy = 34 / 40
    const outcome = compareWithBaseline(before, now, { alpha: 0.05, detectableDrop: 0.1 })
    expect(outcome).toMatchObject({ status: 'regressed', pass: false, worse: 0, better: 0, strictWorse: 6, strictBetter: 0 })
    expect(outcome.strictP).toBeCloseTo(2 ** -6, 15)
    expect(outcome.message).toContain('circular accuracy 85.0% vs 100.0% at baseline: 6 decisions no longer right under every ordering')
    expect(outcome.message).toContain('circular accuracy regressed by more than chance allows')
    // Three such flips are within chance (p = 0.125).
    const few = structuredClone(base)
    for (let i = 0; i < 3; i++) few.decisions[`d-${i}`]!.strict = false
    expect(compareWithBaseline(base, few, { alpha: 0.05, detectableDrop: 0.1 })).toMatchObject({ status: 'pass', strictWorse: 3 })
  })

  test('a baseline file is parsed with its schema: a wrong field is a clear error naming the file, never a pass', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sceptic-baseline-'))
    const file = join(dir, 'b.json')
    await writeFile(file, serialiseBaseline(base))
    expect(await readBaseline(file)).toEqual(base)
    const bad = JSON.parse(serialiseBaseline(base))
    bad.decisions['d-3'].consistent = 'yes'
    await writeFile(file, JSON.stringify(bad))
    await expect(readBaseline(file)).rejects.toThrow(`baseline ${file}, field "decisions.d-3.consistent": `)
    const noStrict = JSON.parse(serialiseBaseline(base))
    delete noStrict.decisions['d-2'].strict
    await writeFile(file, JSON.stringify(noStrict))
    await expect(readBaseline(file)).rejects.toThrow(`baseline ${file}, field "decisions.d-2.strict": `)
    await writeFile(file, JSON.stringify({ ...bad, decisions: [] }))
    await expect(readBaseline(file)).rejects.toThrow(`baseline ${file}, field "decisions": `)
    await writeFile(file, JSON.stringify({ schema: 1, suite: 's', fingerprint: 'x', consistent: { a: true } }))
    await expect(readBaseline(file)).rejects.toThrow(`baseline ${file} has the old layout (schema 1, one fingerprint for the whole set); refresh it with \`vitest -u\``)
    await rm(dir, { recursive: true, force: true })
  })

  test('a small set says it cannot detect the drop asked for', () => {
    const small = baselineFromResult('s', fakeResult(Array(12).fill(true)))
    expect(compareWithBaseline(small, small, { alpha: 0.05, detectableDrop: 0.1 }).message).toContain(
      'too small to detect a drop of 10.0% (2 decisions; even all of them flipping one way gives p = 0.25 ≥ 0.05). The smallest drop it can detect is 5 decisions (41.7%)',
    )
  })

  test('p-values for humans', () => {
    expect(formatP(0.125)).toBe('p = 0.125')
    expect(formatP(1)).toBe('p = 1')
    expect(formatP(2 ** -20)).toBe('p < 0.0001')
  })
})

describe('letter-distribution snapshot adapter', () => {
  test('round trip and tolerance', () => {
    const text = renderDistribution({ B: 0.25, A: 0.75 })
    expect(text).toBe('\nA=0.750\nB=0.250\n')
    expect(parseDistribution(text)).toEqual({ A: 0.75, B: 0.25 })
    const within = compareDistributions({ A: 0.79, B: 0.21 }, { A: 0.75, B: 0.25 }, 0.05)
    // Within tolerance the stored values are kept, so `-u` rewrites identical text.
    expect(within).toMatchObject({ pass: true, resolved: { A: 0.75, B: 0.25 } })
    const outside = compareDistributions({ A: 0.9, B: 0.1 }, { A: 0.75, B: 0.25 }, 0.05)
    expect(outside.pass).toBe(false)
    expect(outside.resolved).toEqual({ A: 0.9, B: 0.1 })
    expect(compareDistributions({ A: 0.5, B: 0.5, C: 0 }, { A: 0.5, B: 0.5 }, 0.05).offending).toEqual([{ letter: 'C', actual: 0, expected: null }])
  })
})

describe('matchers', () => {
  const good = fakeResult(Array(10).fill(true))
  const bad = fakeResult([true, ...Array(9).fill(false)])

  test('pass, fail with value, bound and letters, and .not', () => {
    expect(good).toHaveOrderConsistency({ atLeast: 0.9 })
    expect(good).toHaveBalancedAccuracy({ atLeast: 0.85 })
    expect(bad).not.toHaveOrderConsistency({ atLeast: 0.5 })
    expect(() => expect(bad).toHaveOrderConsistency({ atLeast: 0.8 })).toThrow(
      'expected order consistency ≥ 0.80, measured 0.100: 1 of 10 decisions gave the same answer under every ordering (n = 10, chance 0.500, debias cyclic; letters picked A:75% B:25%)',
    )
    expect(() => expect(good).not.toHaveBalancedAccuracy({ atLeast: 0.5 })).toThrow('expected balanced accuracy below 0.50, measured 0.850')
    expect(() => expect(good).toHaveOrderConsistency({ atLeast: 0.5, ...{} } as never)).not.toThrow()
  })

  test('order consistency n/a fails with the reason', () => {
    expect(() => expect(fakeResult([true], { orderConsistency: null })).toHaveOrderConsistency({ atLeast: 0 })).toThrow(
      'measured n/a: only one ordering was scored',
    )
  })

  test('a value that was not measured fails the matcher and its .not alike (no green from n/a)', () => {
    // Before: .not passed on n/a, NaN and an empty perCriterion, so an audit under debias "none" was green.
    const oneOrdering = fakeResult([true], { orderConsistency: null })
    expect(() => expect(oneOrdering).not.toHaveOrderConsistency({ atLeast: 0.5 })).toThrow('measured n/a: only one ordering was scored')
    expect(() => expect(fakeResult([true], { balancedAccuracy: NaN })).not.toHaveBalancedAccuracy({ atLeast: 0.5 })).toThrow(
      'expected balanced accuracy ≥ 0.50, measured n/a: not measured',
    )
    expect(() => expect(fakeResult([true], { perCriterion: {} })).not.toHavePerCriterionBalancedAccuracy({ atLeast: 0.5 })).toThrow(
      'but the result has no criterion',
    )
  })

  test('above chance refuses a margin or alpha that would silently weaken it', () => {
    // Before: margin NaN was read as 0, and alpha 2 made every p-value pass.
    const few = fakeResult([true, true, true])
    for (const margin of [NaN, -0.1, 2, '0.1'])
      expect(() => expect(few).toHaveAccuracyAboveChance({ margin } as never)).toThrow(`toHaveAccuracyAboveChance({ margin }) needs a number in [0, 1]`)
    for (const alpha of [NaN, 0, 1, 2])
      expect(() => expect(few).toHaveAccuracyAboveChance({ alpha })).toThrow(`toHaveAccuracyAboveChance({ alpha }) needs a significance level in (0, 1), got ${alpha}`)
  })

  test('per criterion names the worst criterion', () => {
    expect(good).toHavePerCriterionBalancedAccuracy({ atLeast: 0.6 })
    expect(() => expect(good).toHavePerCriterionBalancedAccuracy({ atLeast: 0.7 })).toThrow(
      `expected every criterion's balanced accuracy ≥ 0.70; worst is "refund" at 0.620`,
    )
  })

  test('above chance, with and without the exact test', () => {
    expect(good).toHaveAccuracyAboveChance()
    expect(good).toHaveAccuracyAboveChance({ margin: 0.3 })
    expect(good).not.toHaveAccuracyAboveChance({ margin: 0.5 })
    // 10 of 10 right at chance ½: p = 2^-10.
    expect(aboveChanceP(good.records)).toBeCloseTo(2 ** -10, 12)
    expect(good).toHaveAccuracyAboveChance({ alpha: 0.01 })
    const few = fakeResult([true, true, true])
    expect(() => expect(few).toHaveAccuracyAboveChance({ alpha: 0.05 })).toThrow('one-sided exact p = 0.125 vs alpha 0.05')
  })

  test('expect.soft records the failure and carries on', ({ task }) => {
    expect.soft(bad).toHaveOrderConsistency({ atLeast: 0.8 })
    expect.soft(bad).toHaveBalancedAccuracy({ atLeast: 0.99 })
    expect(task.result?.errors?.length).toBe(2)
    // Clear the soft failures so this test itself passes.
    task.result!.errors = []
    task.result!.state = 'pass'
  })

  test('typed: a wrong option or an unknown matcher is a type error', () => {
    // Checked by tsc (npm test): an unused @ts-expect-error is itself an error. Never called.
    const _typeOnly = () => {
      // @ts-expect-error the bound is called `atLeast`
      expect(good).toHaveBalancedAccuracy({ min: 0.5 })
      // @ts-expect-error no such matcher
      expect(good).toHaveOrderConsistencyOf(0.5)
    }
    expectTypeOf(expect(good).toHaveBalancedAccuracy).parameter(0).toEqualTypeOf<AtLeast>()
    expectTypeOf(expect(good).toHaveOrderConsistency).parameter(0).toEqualTypeOf<AtLeast>()
    expectTypeOf<{ min: number }>().not.toMatchTypeOf<AtLeast>()
    expectTypeOf(expect(good)).not.toHaveProperty('toHaveOrderConsistencyOf')
  })

  test('misuse is a TypeError naming the matcher', () => {
    expect(() => expect({ accuracy: 1 }).toHaveBalancedAccuracy({ atLeast: 0.5 })).toThrow(/toHaveBalancedAccuracy\(\) expects an EvalResult/)
    expect(() => expect(good).toHaveBalancedAccuracy({} as never)).toThrow(/needs a number/)
  })
})

describe('helpers', () => {
  test('bounds and marks agree', () => {
    expect(meets(0.7 - 1e-12, 0.7)).toBe(true)
    expect(meets(null, 0)).toBe(false)
    expect(thresholdMark(0.71, 0.7)).toBe('✓ ≥ 0.70')
    expect(thresholdMark(0.5, 0.8)).toBe('✗ < 0.80')
    expect(formatBound(0.875)).toBe('0.875')
    expect(worstCriterion({ b: 0.5, a: 0.5, c: 0.9 })).toEqual(['a', 0.5])
    expect(slug('Support triage (v2)!')).toBe('support-triage-v2')
  })

  test('progress: throttled, parsed, formatted; only on a terminal outside CI', () => {
    const lines: string[] = []
    let t = 0
    const emit = progressEmitter('s', (line) => lines.push(line), () => t, 1000)
    for (const scored of [10, 20, 30, 40, 100]) {
      t += 600
      emit({ scored, total: 100, requestsScored: 0, requestsTotal: 0 })
    }
    expect(lines).toHaveLength(2) // at 1200 ms and 2400 ms; the final one is never sent
    expect(parseProgress(lines[0]!)).toEqual({ suite: 's', scored: 20, total: 100, elapsedMs: 1200 })
    expect(parseProgress('hello')).toBeUndefined()
    expect(formatProgress({ suite: 's', scored: 20, total: 100, elapsedMs: 2000 })).toBe('s: 20/100 decisions scored · 10.0/s · ETA 8s')
    expect(formatDuration(185)).toBe('3m 05s')
    expect(interactiveTerminal({}, { isTTY: true })).toBe(true)
    expect(interactiveTerminal({ CI: 'true' }, { isTTY: true })).toBe(false)
    expect(interactiveTerminal({}, { isTTY: false })).toBe(false)
    expect(interactiveTerminal({ SCEPTIC_PROGRESS: '1', CI: '1' }, {})).toBe(true)
  })

  test('scorer handles: a ScoreFn carrying description/close (ONNX, HTTP scorers) is used as one', async () => {
    let closed = 0
    const fn = Object.assign(() => [[1]], { description: 'onnx models/tiny (2 workers)', close: async () => void closed++ })
    const handle = scorerHandle(fn)
    expect(handle.description).toBe('onnx models/tiny (2 workers)')
    await handle.close?.()
    expect(closed).toBe(1)
    expect(scorerHandle(() => [[1]]).description).toBeUndefined()
  })

  test('plugin: the eval include is added to the project\'s (or to Vitest\'s default); vm pools refused', () => {
    const plugin = sceptic() as unknown as { config: (c: { test?: { include?: string[]; pool?: string } }) => unknown }
    const unset: { test?: { include?: string[] } } = {}
    plugin.config(unset)
    expect(unset.test?.include).toEqual([...configDefaults.include, 'evals/**/*.eval.ts'])
    const own = { test: { include: ['x/*.ts'] } }
    plugin.config(own)
    expect(own.test.include).toEqual(['x/*.ts', 'evals/**/*.eval.ts'])
    expect(() => plugin.config({ test: { pool: 'vmForks' } })).toThrow(/vm pools run tests in a separate V8 realm/)
  })

  test('reporter: blob runs are detected; a suite block carries marks and the baseline verdict', () => {
    expect(blobRun({ config: { reporters: [['blob', {}]] } } as never)).toBe(true)
    expect(blobRun({ config: { reporters: [['default', {}]] } } as never)).toBe(false)
    const { records: _records, ...result } = fakeResult(Array(10).fill(true))
    const text = renderSuite(
      {
        file: 'evals/x.eval.ts',
        meta: {
          schema: 1,
          suite: 'x',
          thresholds: { balancedAccuracy: 0.9, orderConsistency: 0.5, perCriterion: 0.7 },
          result,
          baseline: { status: 'pass', pass: true, file: 'b/x.json', message: 'no significant drop' },
        },
      },
      false,
    )
    expect(text).toMatch(/balanced accuracy\s+85\.0%.*✗ < 90\.0%/)
    expect(text).toMatch(/order consistency\s+100\.0%.*✓ ≥ 50\.0%/)
    expect(text).toMatch(/every criterion\s+✗ < 0\.70\s+worst "refund" 0\.620/)
    expect(text).toMatch(/baseline\s+✓ pass\s+b\/x\.json\n  no significant drop/)
    expect(renderSuite({ file: 'f', meta: { schema: 1, suite: 'y', thresholds: {}, error: 'boom' } }, false)).toBe('y  f\nnot scored: boom')
  })
})
