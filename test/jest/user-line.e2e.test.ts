// End-to-end: under Jest, every failure of a suite points at the user's code, where Jest shows its
// code frame: a broken data line, a scorer's error found by the package and a misspelt option at
// the user's `describeDecisions(...)` call, a failing threshold too (in a TypeScript eval file, by
// Babel's source map), a scorer that throws at its own throwing line; never a frame of the package,
// installed as the tarball ships it (no source maps). One real Jest run on test/fixtures/jest/user-line.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { jest, jestProject } from '../helpers/jest.ts'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot } from '../helpers/vitest.ts'

const work = useTempDir('sceptic-jest-user-line-')
const dist = useDistSnapshot()
const FIXTURE = join(FIXTURES, 'jest/user-line')

/** The 1-based line of the fixture file `file` holding `text`. */
const lineOf = (file: string, text: string) => readFileSync(join(FIXTURE, file), 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1

/** Jest's failure blocks (`● title` to the next), by title. */
function failures(output: string): Map<string, string> {
  const blocks = new Map<string, string>()
  for (const part of output.split(/^ {2}● /m).slice(1)) blocks.set(part.split('\n')[0]!.trim(), part)
  return blocks
}

/** Jest's code frame pointing at line `line` (`> 5 | …`), and its `at` line for `file:line`. */
function pointsAt(block: string | undefined, file: string, line: number): void {
  expect(block, `no failure block for ${file}`).toBeDefined()
  expect(block, block).toMatch(new RegExp(`^\\s+> ${line} \\| .+$`, 'm'))
  expect(block, block).toMatch(new RegExp(`^\\s+at .*\\(${file.replace(/\./g, '\\.')}:${line}:\\d+\\)$`, 'm'))
}

test('data, scorer, option and threshold failures point at the user\'s line, with a code frame', async () => {
  const project = jestProject(join(work, 'project'), 'user-line', dist())
  const { code, output } = await jest(project, [])
  expect(code, output).toBe(1)
  const tests = output.slice(0, output.indexOf('SCEPTIC REPORT'))
  // No frame of the package's dist/ (or of the src/ a source map would name).
  expect(tests).not.toMatch(/node_modules[\\/]vitest-sceptic|[\\/]dist[\\/]|describe-decisions/)
  const blocks = failures(tests)
  const call = 'describeDecisions('
  // [failure title, what it says, the file and the text of the line it points at]
  const cases: [string, string | RegExp, string, string][] = [
    ['broken data › balancedAccuracy ≥ 0.8', /DataError: "broken data": scoring failed: .*data[\\/]broken\.jsonl:3: not valid JSON/, 'evals/broken-data.eval.js', call],
    // The suite's other test points at the first, and at the same call.
    ['broken data › orderConsistency ≥ 0.8', '"broken data" was not scored; the suite\'s first failed test says why', 'evals/broken-data.eval.js', call],
    ['too few scores › balancedAccuracy ≥ 0.8', 'ScorerError: "too few scores": scoring failed: the scorer returned 1 values for request 0', 'evals/too-few.eval.js', call],
    ['Test suite failed to run', 'ConfigError: describeDecisions("bad options"): unknown threshold "balancedAcuracy"; did you mean "balancedAccuracy"?', 'evals/bad-options.eval.js', call],
    ['threshold fails › balancedAccuracy ≥ 0.8', 'expected balanced accuracy ≥ 0.80, measured 0.000', 'evals/threshold.eval.ts', call],
    // The scorer's own error: at its throwing line, not at the suite's call.
    ['scorer throws › balancedAccuracy ≥ 0.8', 'ScorerError: "scorer throws": scoring failed: the scorer threw on request 0', 'my-scorer.cjs', 'throw new Error'],
  ]
  for (const [title, says, file, line] of cases) {
    const block = blocks.get(title)
    if (typeof says === 'string') expect(block, title).toContain(says)
    else expect(block, title).toMatch(says)
    pointsAt(block, file, lineOf(file, line))
  }
}, 180_000)
