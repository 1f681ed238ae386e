// End-to-end: each suite's verdict and headline numbers reach where people look during a
// test run: a test annotation (JUnit writes it as a <property>) on the suite's first test,
// and one line of that test's output (test/fixtures/verdict, on the built package).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const out = useTempDir('sceptic-verdict-')
const dist = useDistSnapshot()

const POSITIONAL = 'answers by position: order consistency 0%, letter A picked 100% · n = 56 · balanced accuracy 0.0% · order consistency 0.0% · letters picked A:100% B:0% C:0% D:0%'
const READER = 'reads the evidence: 96% balanced accuracy, 100% order consistency · n = 56 · balanced accuracy 96.3% · order consistency 100.0% · letters picked A:33% B:33% C:17% D:17%'

test('the verdict is an annotation and a line of output, once per suite, the report opening with it', async () => {
  const junit = join(out, 'junit.xml')
  const { code, output } = await vitest(
    ['run', '--root', join(FIXTURES, 'verdict'), '--reporter=default', '--reporter=junit', `--outputFile.junit=${junit}`],
    { SCEPTIC_E2E_DIST: dist() },
  )
  expect(code, output).toBe(0)
  const xml = readFileSync(junit, 'utf8')
  const properties = [...xml.matchAll(/<property name="sceptic:verdict" value="([^"]*)">/g)].map((m) => m[1])
  expect(properties).toEqual([POSITIONAL, READER])
  // One line of test output per suite, in the output of the test that carries the annotation.
  const testOutput = (name: string) => new RegExp(`<testcase [^>]*name="${name}"[^>]*>\\s*<system-out>\\s*([^<]*?)\\s*</system-out>`).exec(xml)?.[1]
  expect(testOutput('positional &gt; accuracy ≥ 0')).toBe(`vitest-sceptic › positional: ${POSITIONAL}`)
  expect(testOutput('reader &gt; balancedAccuracy ≥ 0.9')).toBe(`vitest-sceptic › reader: ${READER}`)
  expect(output.match(/^vitest-sceptic › /gm)).toHaveLength(2)
  // The sceptic report's block for each suite opens with the same sentence.
  expect(output).toMatch(/^positional {2}evals\/verdict\.eval\.ts\nverdict {12}answers by position: order consistency 0%, letter A picked 100%$/m)
  expect(output).toMatch(/^reader {2}evals\/verdict\.eval\.ts\nverdict {12}reads the evidence: 96% balanced accuracy, 100% order consistency$/m)
})
