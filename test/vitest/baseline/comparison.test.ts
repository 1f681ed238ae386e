// Comparing a run with its baseline file: the per-decision McNemar gate and the file's schema.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import type { EvalResult } from '../../../src/core/index.ts'
import { baselineDecisions, baselineFromResult, compareWithBaseline, readBaseline, serialiseBaseline, type BaselineFile } from '../../../src/suite/baseline/file.ts'
import { underCI } from '../../../src/suite/baseline/run-gate.ts'
import { formatP } from '../../../src/report/format.ts'
import { sceptic } from '../../../src/vitest/plugin/plugin.ts'
import { fakeResult } from '../../helpers/fake-result.ts'

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
