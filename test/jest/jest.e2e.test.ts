// End-to-end: a real Jest 30 on fixture projects (test/fixtures/jest) with the built package
// installed: Jest's CommonJS mode (JavaScript and TypeScript eval files) and its native ESM
// mode, beside a Vitest run of the same suite. The faces must write identical records and
// reach the same verdicts; a letter snapshot and a baseline behave the Jest way (`jest -u`,
// never rewritten under CI); a scorer that throws is reported once.
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { jest, jestProject } from '../helpers/jest.ts'
import { useTempDir } from '../helpers/temp.ts'
import { useDistSnapshot, vitest } from '../helpers/vitest.ts'

const E2E_TIMEOUT = 180_000
const work = useTempDir('sceptic-jest-')
const dist = useDistSnapshot()
const out = (face: string) => {
  const dir = join(work, `out-${face}`)
  mkdirSync(dir, { recursive: true })
  return dir
}
let cjs = ''
let esm = ''
const cjsProject = () => (cjs ||= jestProject(join(work, 'cjs'), 'cjs', dist()))
const esmProject = () => (esm ||= jestProject(join(work, 'esm'), 'esm', dist()))
const runCjs = (args: string[], env: Record<string, string> = {}) => jest(cjsProject(), args, { SCEPTIC_FIXTURE_OUT: out('cjs'), SCEPTIC_FIXTURE_FACE: 'jest-cjs', ...env })
const runEsm = (args: string[], env: Record<string, string> = {}) =>
  jest(esmProject(), args, { SCEPTIC_FIXTURE_OUT: out('esm'), SCEPTIC_FIXTURE_FACE: 'jest-esm', NODE_OPTIONS: '--experimental-vm-modules', ...env })
const snapFile = () => join(cjsProject(), 'evals/__snapshots__/triage.eval.js.snap')
const baselineFile = () => join(out('cjs'), 'baselines/triage.json')
const TESTS = ['balancedAccuracy ≥ 0.8', 'orderConsistency ≥ 0.9', 'order consistency vs baseline', 'assertions']

/** What a face's callback wrote: records and headline numbers. */
const written = (face: string, dir: string) => JSON.parse(readFileSync(join(dir, `${face}.result.json`), 'utf8'))

test('CommonJS mode: named tests, the report, a baseline and a letter snapshot written; a TypeScript eval file', async () => {
  const { code, output } = await runCjs(['--verbose'])
  expect(code, output).toBe(0)
  for (const name of TESTS) expect(output).toContain(`✓ ${name}`)
  expect(output).toMatch(/PASS evals\/typed\.eval\.ts/)
  expect(output).toContain('SCEPTIC REPORT  2 suites')
  expect(output).toMatch(/triage {2}evals\/triage\.eval\.js\nverdict {12}reads the evidence/)
  expect(output).toMatch(/balanced accuracy {2}96\.3% {3}✓ ≥ 80\.0%/)
  expect(output).toMatch(/baseline {11}✓ written/)
  expect(readFileSync(snapFile(), 'utf8')).toContain('exports[`triage assertions 1`] = `\n"\nA=0.333\nB=0.333\nC=0.167\nD=0.167\n"\n`;')
  expect(existsSync(baselineFile())).toBe(true)
}, E2E_TIMEOUT)

test('native ESM mode and the Vitest face write the same records and reach the same verdict', async () => {
  const esmRun = await runEsm([])
  expect(esmRun.code, esmRun.output).toBe(0)
  expect(esmRun.output).toContain('SCEPTIC REPORT  1 suite')
  // The Vitest face, on the same data and scorer.
  const project = join(work, 'vitest')
  jestProject(project, 'vitest', dist())
  const vitestOut = out('vitest')
  const vitestRun = await vitest(['run', '--root', project], { SCEPTIC_FIXTURE_OUT: vitestOut })
  expect(vitestRun.code, vitestRun.output).toBe(0)
  const [fromCjs, fromEsm, fromVitest] = [written('jest-cjs', out('cjs')), written('jest-esm', out('esm')), written('vitest', vitestOut)]
  expect(fromCjs.records).toHaveLength(56)
  expect(fromEsm).toEqual(fromCjs)
  expect(fromVitest).toEqual(fromCjs)
  // The same verdict sentence opens each report.
  const verdict = /verdict {12}(.*)/
  expect(verdict.exec(esmRun.output)?.[1]).toBe('reads the evidence: 96% balanced accuracy, 100% order consistency')
  expect(verdict.exec(vitestRun.output)?.[1]).toBe(verdict.exec(esmRun.output)?.[1])
  // The baselines the faces wrote agree too.
  expect(readFileSync(join(vitestOut, 'baselines/triage.json'), 'utf8')).toBe(readFileSync(join(out('esm'), 'baselines/triage.json'), 'utf8'))
}, E2E_TIMEOUT)

test('a positional scorer fails the thresholds, the baseline gate and the letter snapshot by name', async () => {
  const { code, output } = await runCjs(['evals/triage'], { SCEPTIC_FIXTURE_SCORER: 'first' })
  expect(code, output).toBe(1)
  for (const name of TESTS) expect(output).toContain(`✕ ${name}`)
  expect(output).toContain('● triage › balancedAccuracy ≥ 0.8\n\n    expected balanced accuracy ≥ 0.80, measured 0.000 (n = 56, chance 0.375, debias cyclic; letters picked A:100% B:0% C:0% D:0%)')
  expect(output).toMatch(/● triage › order consistency vs baseline\n\n {4}order consistency 0\.0% vs 100\.0% at baseline: 56 decisions newly inconsistent.*regressed by more than chance allows/)
  expect(output).toContain('letter-distribution snapshot "triage assertions 1": letters outside ±0.05: A 1.000 vs stored 0.333')
  expect(output).toMatch(/verdict {12}answers by position/)
  expect(output).toMatch(/tests {14}✗ 0 passed; 4 failed/)
}, E2E_TIMEOUT)

test('under CI, jest -u rewrites neither the snapshot nor the baseline and fails', async () => {
  const [snap, baseline] = [readFileSync(snapFile(), 'utf8'), readFileSync(baselineFile(), 'utf8')]
  const summary = join(work, 'step-summary.md')
  const { code, output } = await runCjs(['evals/triage', '-u'], { SCEPTIC_FIXTURE_SCORER: 'first', CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
  expect(code, output).toBe(1)
  expect(output).toContain('the letter-distribution snapshot was not refreshed: letter-distribution snapshots are never written under CI (CI is set), not even with `jest -u`')
  expect(output).toContain('was not refreshed: baselines are never written under CI (CI is set), not even with `jest -u`')
  expect(readFileSync(snapFile(), 'utf8')).toBe(snap)
  expect(readFileSync(baselineFile(), 'utf8')).toBe(baseline)
  // The job summary, as the Vitest reporter writes it.
  const markdown = readFileSync(summary, 'utf8')
  expect(markdown).toContain('### ❌ triage')
  expect(markdown).toContain('`evals/triage.eval.js`')
}, E2E_TIMEOUT)

test('locally, jest -u rewrites the letter snapshot and the baseline; the thresholds still fail', async () => {
  const { code, output } = await runCjs(['evals/triage', '-u'], { SCEPTIC_FIXTURE_SCORER: 'first' })
  expect(code, output).toBe(1)
  expect(output).toContain('✕ balancedAccuracy ≥ 0.8')
  expect(output).toContain('✓ order consistency vs baseline')
  expect(output).toContain('1 snapshot updated')
  expect(readFileSync(snapFile(), 'utf8')).toContain('A=1.000\nB=0.000\nC=0.000\nD=0.000')
  expect(JSON.parse(readFileSync(baselineFile(), 'utf8')).orderConsistency).toBe(0)
}, E2E_TIMEOUT)

test('a scorer that throws is reported once, at the scorer, without the package frames', async () => {
  const { code, output } = await runCjs(['evals/triage'], { SCEPTIC_FIXTURE_SCORER: 'throw' })
  expect(code, output).toBe(1)
  const tests = output.slice(0, output.indexOf('SCEPTIC REPORT'))
  // The error once (the code frame of the scorer's throw quotes its source line, not the error).
  expect(tests.split('scoring failed: the scorer threw').length - 1, output).toBe(1)
  expect(tests.split('Error: "triage": scoring failed').length - 1, output).toBe(1)
  expect(tests).toContain('● triage › balancedAccuracy ≥ 0.8\n\n    ScorerError: "triage": scoring failed: the scorer threw on request 0')
  expect(tests).toContain('at brokenScorer (scorers.cjs:')
  expect(tests).not.toMatch(/node_modules\/vitest-sceptic|[/\\]dist[/\\]|describe-decisions/)
  for (const name of TESTS.slice(1)) expect(tests).toContain(`● triage › ${name}\n\n    "triage" was not scored; the suite's first failed test says why`)
  expect(output).toMatch(/triage {2}evals\/triage\.eval\.js\nnot scored: "triage": scoring failed/)
}, E2E_TIMEOUT)

test('native ESM mode: a positional scorer fails the threshold by name', async () => {
  const { code, output } = await runEsm([], { SCEPTIC_FIXTURE_SCORER: 'first' })
  expect(code, output).toBe(1)
  expect(output).toContain('● triage › balancedAccuracy ≥ 0.8\n\n    expected balanced accuracy ≥ 0.80, measured 0.000')
  expect(output).toMatch(/balanced accuracy {2}0\.0% {3}✗ < 80\.0%/)
}, E2E_TIMEOUT)


let nested = ''
const nestedProject = () => (nested ||= jestProject(join(work, 'nested'), 'nested', dist()))

test('describeDecisions inside describe(), at any depth: the report and the job summary count each suite by its own title path', async () => {
  const summary = join(work, 'nested-summary.md')
  const { code, output } = await jest(nestedProject(), [], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
  expect(code, output).toBe(1)
  expect(output).toMatch(/Tests: {7}2 failed, 4 passed, 6 total/)
  expect(output).toContain('● outer › triage › balancedAccuracy ≥ 0.99')
  expect(output).toContain('● outer › inner › triage › balancedAccuracy ≥ 0.99')
  const report = output.slice(output.indexOf('SCEPTIC REPORT'))
  expect(report).toContain('SCEPTIC REPORT  3 suites')
  // The top-level suite passed every test (no tests line); each nested one failed one of two.
  expect(report.split('tests              ✗ 1 passed; 1 failed: "balancedAccuracy ≥ 0.99"').length - 1, report).toBe(2)
  expect(report).not.toContain('not run')
  expect(report.match(/balanced accuracy {2}96\.3% {3}✗ < 99\.0%/g), report).toHaveLength(2)
  const markdown = readFileSync(summary, 'utf8')
  expect(markdown.match(/### ✅ triage/g), markdown).toHaveLength(1)
  expect(markdown.match(/### ❌ triage/g), markdown).toHaveLength(2)
  expect(markdown.split('**Tests:** 1 passed; 1 failed: “balancedAccuracy ≥ 0.99”').length - 1, markdown).toBe(2)
  expect(markdown).not.toContain('not run')
}, E2E_TIMEOUT)

test('a misspelt or mistyped reporter option is an error naming it, and nothing is written', async () => {
  const summary = join(work, 'misspelt-summary.md')
  // Only the top-level suite runs, and it passes: the option alone fails the run.
  const run = (options: object) => jest(nestedProject(), ['-t', '^triage '], { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary, SCEPTIC_FIXTURE_REPORTER_OPTIONS: JSON.stringify(options) })
  const passing = await run({ githubSummary: false })
  expect(passing.code, passing.output).toBe(0)
  const misspelt = await run({ githubSumary: false })
  expect(misspelt.code, misspelt.output).not.toBe(0)
  expect(misspelt.output).toContain('unknown option `githubSumary` in vitest-sceptic/jest/reporter options — did you mean `githubSummary`?')
  const mistyped = await run({ color: 'yes' })
  expect(mistyped.code, mistyped.output).not.toBe(0)
  expect(mistyped.output).toMatch(/vitest-sceptic\/jest\/reporter options: `color` expected boolean/)
  expect(existsSync(summary)).toBe(false)
  expect(misspelt.output + mistyped.output).not.toContain('SCEPTIC REPORT')
}, E2E_TIMEOUT)
