// End-to-end: a misspelled option fails the run where it was written, on every face kind —
// a suite's options in an eval file and the plugin's options under `vitest run`, and a
// threshold name on `sceptic evaluate` — with one line naming the key and the nearest valid
// one, and a failing exit (test/fixtures/options, built package). Before, each ran and passed.
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, expect, test } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'
import { cleanup, decisions, temp, writeData, writeScorer } from './helpers.ts'

const dist = useDistSnapshot()
afterAll(cleanup)
const project = join(FIXTURES, 'options')

test("vitest run: a suite's `threshold` fails the file with the ConfigError at the eval file's line", async () => {
  const { code, output } = await vitest(['run', '--root', project], { SCEPTIC_E2E_DIST: dist() })
  expect(code, output).not.toBe(0)
  expect(output).toContain('ConfigError: unknown option `threshold` in describeDecisions("misspelled") options — did you mean `thresholds`?')
  expect(output).toMatch(/misspelled\.eval\.ts:\d+:\d+/)
  expect(output).toMatch(/Test Files\s+1 failed/)
})

test('vitest run: the plugin\'s `baselines` stops Vitest at startup, naming `baseline`', async () => {
  const { code, output } = await vitest(['run', '--root', project], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_BAD: 'plugin' })
  expect(code, output).toBe(1)
  expect(output).toContain('ConfigError: unknown option `baselines` in sceptic() options — did you mean `baseline`?')
  expect(output).not.toMatch(/Test Files\s+1 passed/)
})

test('sceptic evaluate: a misspelled --threshold metric exits 2 before anything is scored', async () => {
  const dir = temp()
  const data = writeData(dir, decisions(6))
  const marker = join(dir, 'scored')
  const scorer = writeScorer(dir, `import { writeFileSync } from 'node:fs'\nexport default (requests) => { writeFileSync(${JSON.stringify(marker)}, 'x'); return requests.map((r) => r.criterion.options.map(() => 1)) }\n`)
  const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--threshold', 'balancedAcuracy=0.9'])
  expect(code, stderr).toBe(2)
  expect(stderr).toContain('unknown threshold "balancedAcuracy"; did you mean "balancedAccuracy"?')
  expect(existsSync(marker)).toBe(false)
})
