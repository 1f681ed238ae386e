// End-to-end: a mistake in the plugin's options stops Vitest with one line naming it, not
// the error wrapped in Vitest's startup stack (test/fixtures/startup-error, built package).
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const dist = useDistSnapshot()

const errorBlock = (output: string) => output.slice(output.indexOf('Startup Error')).split('\n').slice(1).filter((line) => line.trim() !== '')

test.each([
  ['models', /^\[?ConfigError: vitest-sceptic: models\.tiny: no model directory at models\/nope \(relative paths resolve against the Vitest root .*startup-error\)\]?$/],
  ['alpha', /^\[?ConfigError: vitest-sceptic: sceptic\(\): alpha must be a significance level in \(0, 1\), got 2\]?$/],
  ['baseline', /^\[?ConfigError: vitest-sceptic: sceptic\(\): baseline must be the folder of the baselines \(a path\), got false; to turn the gate off for one suite, set baseline: false on that suite\]?$/],
])('a bad %s option: one line, no stack, a failing exit', async (bad, line) => {
  const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'startup-error')], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_BAD: bad })
  expect(code, output).toBe(1)
  expect(output).toContain('Startup Error')
  expect(errorBlock(output)).toHaveLength(1)
  expect(errorBlock(output)[0]).toMatch(line)
  expect(output).not.toMatch(/^\s+at /m)
  expect(output).not.toContain('exitCode')
})
