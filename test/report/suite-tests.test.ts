// A suite is shown as passed only when every one of its tests ran and passed.
import { describe, expect, test } from 'vitest'
import { githubSummary, type GitHubSuite } from '../../src/report/github.ts'
import { describeTests, summariseTests, withDeclaredChecks } from '../../src/report/suite-tests.ts'

const result = {
  accuracy: 1,
  balancedAccuracy: 1,
  orderConsistency: 1,
  perCriterion: { k: 1 },
  letterDistribution: { A: 0.5, B: 0.5 },
  n: 20,
  brier: 0.02,
  manifest: { debias: 'cyclic', orderingsScored: 2, chance: 0.5 },
} as unknown as NonNullable<GitHubSuite['result']>

describe('summariseTests / describeTests', () => {
  test('all passed: ok, no line', () => {
    const summary = summariseTests([{ name: 'a', state: 'passed' }, { name: 'b', state: 'passed' }])
    expect(summary).toEqual({ passed: 2, failed: [], notRun: [], ok: true })
    expect(describeTests(summary)).toBeNull()
  })

  test('failed, skipped and pending tests are named', () => {
    const summary = summariseTests([
      { name: 'a', state: 'passed' },
      { name: 'b', state: 'failed' },
      { name: 'c', state: 'skipped' },
      { name: 'd', state: 'pending' },
    ])
    expect(summary).toEqual({ passed: 1, failed: ['b'], notRun: ['c', 'd'], ok: false })
    expect(describeTests(summary)).toBe('1 passed; 1 failed: b; 2 not run (skipped or filtered out, so not checked): c, d')
  })

  test('a suite without tests checked nothing', () => {
    expect(summariseTests([]).ok).toBe(false)
    expect(describeTests(summariseTests([]))).toBe('none: the suite declares no threshold, baseline gate or callback, so nothing was checked')
  })
})

describe('withDeclaredChecks: a declared check missing from the task tree did not run', () => {
  test('a check absent from the tree is not run, so the suite is not passed', () => {
    const tests = withDeclaredChecks([{ name: 'assertions', state: 'passed' }], ['balancedAccuracy ≥ 0.5', 'assertions'])
    expect(tests).toEqual([
      { name: 'assertions', state: 'passed' },
      { name: 'balancedAccuracy ≥ 0.5', state: 'not collected' },
    ])
    const summary = summariseTests(tests)
    expect(summary.ok).toBe(false)
    expect(summary.notRun).toEqual(['balancedAccuracy ≥ 0.5'])
  })

  test('checks in the tree keep their state; no declared list changes nothing', () => {
    const tree = [
      { name: 'a', state: 'failed' },
      { name: 'b', state: 'skipped' },
    ]
    expect(withDeclaredChecks(tree, ['a', 'b'])).toEqual(tree)
    expect(withDeclaredChecks(tree, undefined)).toEqual(tree)
  })
})

describe('the job summary agrees with the tests', () => {
  const heading = (suite: GitHubSuite) => githubSummary([suite]).split('\n').find((line) => line.startsWith('### '))
  const base: GitHubSuite = { suite: 's', file: 'e.eval.ts', thresholds: { balancedAccuracy: 0.5 }, result }

  test('every threshold met: ✅ only when every test passed', () => {
    expect(heading(base)).toBe('### ✅ s') // no test states given: the verdicts decide, as before
    expect(heading({ ...base, tests: [{ name: 'balancedAccuracy ≥ 0.5', state: 'passed' }] })).toBe('### ✅ s')
    // Before: ✅ for each of these.
    expect(heading({ ...base, tests: [{ name: 'balancedAccuracy ≥ 0.5', state: 'passed' }, { name: 'assertions', state: 'failed' }] })).toBe('### ❌ s')
    expect(heading({ ...base, tests: [{ name: 'balancedAccuracy ≥ 0.5', state: 'skipped' }, { name: 'assertions', state: 'passed' }] })).toBe('### ⚠️ s')
    expect(heading({ ...base, thresholds: {}, tests: [] })).toBe('### ⚠️ s')
    expect(githubSummary([{ ...base, tests: [{ name: 'a|b', state: 'failed' }] }])).toContain('**Tests:** 0 passed; 1 failed: “a\\|b”')
  })

  test("a met bound's row shows how its test ended", () => {
    const row = (state: string) =>
      githubSummary([{ ...base, tests: [{ name: 'balancedAccuracy ≥ 0.5', state }] }]).split('\n').find((line) => line.startsWith('| balanced accuracy'))
    expect(row('passed')).toBe('| balanced accuracy | **100.0%** | ≥ 50.0% | ✅ |')
    expect(row('failed')).toBe('| balanced accuracy | **100.0%** | ≥ 50.0% | ❌ test failed |')
    expect(row('skipped')).toBe('| balanced accuracy | **100.0%** | ≥ 50.0% | ⚠️ not run |')
  })

  test('a failed verdict stays ❌ whatever the test states', () => {
    expect(heading({ ...base, thresholds: { balancedAccuracy: { max: 0.5 } }, tests: [{ name: 'x', state: 'skipped' }] })).toBe('### ❌ s')
  })
})
