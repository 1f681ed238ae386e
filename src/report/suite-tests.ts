/**
 * What a suite's tests ended as, so every summary agrees with them: a suite is shown as
 * passed only when every one of its tests ran and passed. A failed callback, a threshold
 * failed by the failure-rate rule, or a gate skipped by `-t` / `.only` is never "passed".
 * Pure; the reporter reads the states from Vitest's task tree.
 */

/** One test of a suite as Vitest ended it. */
export interface SuiteTest {
  /** The test name (`balancedAccuracy ≥ 0.7`, `order consistency vs baseline`, `assertions`). */
  name: string
  /** Vitest's final state: `passed`, `failed`, `skipped` (also filtered out by `-t` or `.only`), or `pending`. */
  state: string
}

/**
 * The suite's tests as the task tree holds them, plus every declared check missing from the
 * tree as not run: whatever kept a check out of the tree (a filter, a runner that leaves
 * filtered tests out), a check that left no trace must not read as passed.
 */
export function withDeclaredChecks(tests: readonly SuiteTest[], declared: readonly string[] | undefined): SuiteTest[] {
  const present = new Set(tests.map((t) => t.name))
  return [...tests, ...(declared ?? []).filter((name) => !present.has(name)).map((name) => ({ name, state: 'not collected' }))]
}

/** The tests of a suite, counted. */
export interface SuiteTestsSummary {
  passed: number
  /** Names of tests that failed. */
  failed: string[]
  /** Names of tests that did not run (skipped, filtered out, or pending): their checks were not made. */
  notRun: string[]
  /** Whether every test ran and passed (false for a suite with no tests). */
  ok: boolean
}

/** Count a suite's tests. */
export function summariseTests(tests: readonly SuiteTest[]): SuiteTestsSummary {
  const failed = tests.filter((t) => t.state === 'failed').map((t) => t.name)
  const notRun = tests.filter((t) => t.state !== 'failed' && t.state !== 'passed').map((t) => t.name)
  const passed = tests.length - failed.length - notRun.length
  return { passed, failed, notRun, ok: tests.length > 0 && failed.length === 0 && notRun.length === 0 }
}

/** How the test of one check ended: `undefined` when the states are unknown or there is no such test. */
export function testOutcome(tests: readonly SuiteTest[] | undefined, name: string): 'passed' | 'failed' | 'not run' | undefined {
  const test = tests?.find((t) => t.name === name)
  if (!test) return undefined
  return test.state === 'passed' || test.state === 'failed' ? test.state : 'not run'
}

/**
 * A check's pass mark as its test ended: a met bound whose test failed (the failure-rate
 * rule) or did not run is not shown as passed. `passMark` and the two others are the
 * renderer's own symbols.
 */
export function checkMark(verdictPass: boolean, outcome: ReturnType<typeof testOutcome>, marks: { pass: string; fail: string; notRun: string }): string {
  if (!verdictPass) return marks.fail
  if (outcome === 'failed') return `${marks.fail} test failed`
  if (outcome === 'not run') return `${marks.notRun} not run`
  return marks.pass
}

/** One line for a suite whose tests did not all pass: `1 failed: assertions; 2 not run: …`; `null` when all passed. */
export function describeTests(summary: SuiteTestsSummary, quote: (name: string) => string = (name) => name): string | null {
  if (summary.ok) return null
  if (summary.passed + summary.failed.length + summary.notRun.length === 0)
    return 'none: the suite declares no threshold, baseline gate or callback, so nothing was checked'
  const parts = [`${summary.passed} passed`]
  if (summary.failed.length) parts.push(`${summary.failed.length} failed: ${summary.failed.map(quote).join(', ')}`)
  if (summary.notRun.length) parts.push(`${summary.notRun.length} not run (skipped or filtered out, so not checked): ${summary.notRun.map(quote).join(', ')}`)
  return parts.join('; ')
}
