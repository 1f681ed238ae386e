// End-to-end: every failure a suite reports points at the user's `describeDecisions` call (or,
// for the user's own callback, at the user's line in it), never inside the package: before,
// a failing threshold pointed at node_modules/vitest-sceptic/src/vitest/suite/describe-decisions.ts,
// a file that is not even shipped (test/fixtures/user-line, on the built package).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const dist = useDistSnapshot()
const EVAL = join(FIXTURES, 'user-line/evals/user-line.eval.ts')

/** The 1-based line of the first line of the eval file containing `text`. */
const lineOf = (text: string) => readFileSync(EVAL, 'utf8').split('\n').findIndex((line) => line.includes(text)) + 1

/** Each failed test's block of Vitest's failure report: from its `FAIL` header to the next. */
function failures(output: string): Map<string, string> {
  const blocks = new Map<string, string>()
  const parts = output.split(/^ FAIL +/m).slice(1)
  for (const part of parts) blocks.set(part.split('\n')[0]!.trim(), part)
  return blocks
}

test('thresholds, the baseline gate, a scoring error and a failing callback point at the user\'s file', async () => {
  const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'user-line')], { SCEPTIC_E2E_DIST: dist() }, 150_000)
  expect(code, output).toBe(1)
  // No frame of the package: neither its dist/ nor the src/ its source maps name.
  expect(output).not.toMatch(/describe-decisions|[\\/](src|dist)[\\/]vitest[\\/]|vitest-sceptic-e2e-\d+[\\/]dist[\\/]/)
  const blocks = failures(output)
  const expected: [string, string, number][] = [
    ['threshold fails > balancedAccuracy ≥ 0.9', 'describeDecisions(\'threshold fails\'', 0],
    ['baseline cannot gate > order consistency vs baseline', 'describeDecisions(\'baseline cannot gate\'', 0],
    ['scorer throws', 'describeDecisions(\'scorer throws\'', 0],
    ['callback fails > assertions', 'toHaveBalancedAccuracy', 0],
  ]
  for (const [name, text] of expected) {
    const block = [...blocks].find(([header]) => header.includes(name))?.[1]
    expect(block, `${name}: no FAIL block in\n${output}`).toBeDefined()
    // Vitest's pointer (❯ file:line:column) and code frame name the user's line.
    expect(block, name).toMatch(new RegExp(`❯ evals/user-line\\.eval\\.ts:${lineOf(text)}:\\d+`))
  }
}, 180_000)
