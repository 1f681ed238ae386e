// End-to-end: the plugin with Vitest `projects` on the installed Vitest
// (test/fixtures/projects). A root sceptic() that no project inherits used to pass
// silently (no gate, no reporter, no setup reached the suites); it now fails at startup in
// one line naming `extends: true`. The two supported layouts run the suite and report it.
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const E2E_TIMEOUT = 120_000
const out = useTempDir('sceptic-projects-')
const dist = useDistSnapshot()
const run = (layout: string) =>
  vitest(['run', '--root', join(FIXTURES, 'projects'), '--reporter=verbose'], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: join(out, layout), SCEPTIC_FIXTURE_LAYOUT: layout })

test('a root plugin no project inherits fails at startup, in one line naming extends: true', async () => {
  const { code, output } = await run('root')
  expect(code, output).not.toBe(0)
  const lines = output.split('\n').filter((line) => line.includes('vitest-sceptic:'))
  expect(lines, output).toHaveLength(1)
  expect(lines[0]).toContain('sceptic() is in the root config, but none of its 1 test.projects inherits it; add `extends: true`')
  expect(output).not.toMatch(/\n\s+at /)
  expect(output).not.toContain('SCEPTIC REPORT')
}, E2E_TIMEOUT)

test.each(['extends', 'project'])('layout "%s": the suite runs with the plugin, its baseline gate and its report', async (layout) => {
  const { code, output } = await run(layout)
  expect(code, output).toBe(0)
  expect(output).toContain('projects > balancedAccuracy ≥ 0.9')
  expect(output).toContain('projects > order consistency vs baseline')
  expect(output).toMatch(/Tests\s+2 passed \(2\)/)
  expect(output).toContain('SCEPTIC REPORT  1 suite')
  expect(output).toMatch(/baseline +✓ written/)
}, E2E_TIMEOUT)
