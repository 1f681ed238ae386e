// End-to-end: the plugin's default include collects eval files in JavaScript as well as
// TypeScript (`evals/**/*.eval.{ts,mts,cts,js,mjs,cjs}`); before, `.js` and `.mjs` evals were
// silently not run (test/fixtures/js-evals, on the built package).
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const dist = useDistSnapshot()

test('evals/*.eval.js and .mjs are collected and run by default', async () => {
  const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'js-evals')], { SCEPTIC_E2E_DIST: dist() }, 150_000)
  expect(code, output).toBe(0)
  expect(output).toContain('evals/reader.eval.js')
  expect(output).toContain('evals/reader.eval.mjs')
  expect(output).toMatch(/Test Files +2 passed \(2\)/)
}, 180_000)
