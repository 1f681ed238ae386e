// End-to-end: suite defaults set once on the plugin reach every suite's result (its
// manifest, its scorer calls, its gates), and a suite's own option overrides each one
// (test/fixtures/defaults, on the built package).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const out = useTempDir('sceptic-defaults-')
const dist = useDistSnapshot()

interface Recorded {
  manifest: Record<string, unknown> & { pride?: { fraction: number } }
  statistics: boolean
  calls: number[]
}
const recorded = (name: string): Recorded => JSON.parse(readFileSync(join(out, `${name}.json`), 'utf8'))
const sum = (calls: number[]) => calls.reduce((a, b) => a + b, 0)

test('plugin defaults reach the result; a suite option overrides each', async () => {
  const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'defaults')], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out })
  expect(code, output).toBe(1)

  // sceptic({ debias: 'pride', prideFraction: 0.5, average: 'log', statistics: false, chunkSize: 7, epochs: 2, reducer: 'pass_at_2', … })
  const defaults = recorded('plugin-defaults')
  expect(defaults.manifest).toMatchObject({ debias: 'pride', average: 'log', epochs: 2, reducer: 'pass_at_2', pride: { fraction: 0.5 } })
  expect(defaults.statistics).toBe(false)
  // pride at 0.5: 10 of 20 decisions under both rotations, 10 once = 30 requests, twice (2 epochs), in calls of at most 7.
  expect(sum(defaults.calls)).toBe(60)
  expect(Math.max(...defaults.calls)).toBeLessThanOrEqual(7)
  // maxFailureRate: 0.1 allows the 1 failed decision of 20.
  expect(output).not.toContain('FAIL  evals/defaults.eval.ts > plugin defaults > balancedAccuracy')
  expect(output).toMatch(/✓ balancedAccuracy ≥ 0\.5/)

  // The suite's own options win, each of them.
  const own = recorded('suite-overrides')
  expect(own.manifest).toMatchObject({ debias: 'cyclic', average: 'probability', epochs: 1, reducer: 'mean' })
  expect(own.manifest.pride).toBeUndefined()
  expect(own.statistics).toBe(true)
  expect(own.calls).toEqual([40]) // cyclic, 20 × 2 orderings, one call of up to 1024
  expect(output).toContain('FAIL  evals/defaults.eval.ts > no failures allowed > balancedAccuracy ≥ 0.5')
  expect(output).toContain('"no failures allowed": 1 of 20 labelled decisions failed to score (timeout 1); maxFailureRate is 0')

  // timeout: 1000 (ms) bounds a suite that sets none.
  expect(output).toContain('ScoringTimeout: "slow": scoring timed out after 1 s (0 of 20 decisions scored)')
}, 180_000)

test('a bad plugin default stops the run with a ConfigError naming the option', async () => {
  const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'defaults')], {
    SCEPTIC_E2E_DIST: dist(),
    SCEPTIC_FIXTURE_OUT: out,
    SCEPTIC_FIXTURE_BAD_DEFAULT: '1',
  })
  expect(code).not.toBe(0)
  expect(output).toContain('vitest-sceptic: sceptic({ epochs })')
  expect(output).toContain('got 0')
}, 180_000)
