// The baseline gate's write rules and fail-closed cases, on real files in a temp directory.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { evaluateWithScorer, type EvalResult, type ScoreRequest } from '../../src/core/index.ts'
import { baselinePath } from '../../src/vitest/baseline.ts'
import { runBaselineGate } from '../../src/vitest/baseline-gate.ts'
import { decision } from '../helpers/decisions.ts'

let dir = ''
let result: EvalResult
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sceptic-gate-'))
  const rows = Array.from({ length: 12 }, (_, i) => decision(2, i % 2, { id: `d${i}`, state: `s${i}` }))
  const byState = (requests: readonly ScoreRequest[]) => requests.map((r) => r.criterion.options.map((o) => (o.id === `o${Number(r.state.slice(1)) % 2}` ? 0.9 : 0.1)))
  result = await evaluateWithScorer(rows, byState, { debias: 'cyclic', onWarning: () => {} })
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const gate = { alpha: 0.05, detectableDrop: 0.1 }

test('a suite whose name has another suite\'s slug is never compared with that suite\'s baseline', async () => {
  // "Support triage" and "support-triage" share support-triage.json. Before, the second suite
  // compared itself with the first one's baseline and passed.
  const path = baselinePath(dir, 'Support triage')
  expect(path).toBe(baselinePath(dir, 'support-triage'))
  const first = await runBaselineGate('Support triage', result, { path, file: 'b.json', mode: 'new', ci: false, gate })
  expect(first).toMatchObject({ status: 'written', pass: true })
  const second = await runBaselineGate('support-triage', result, { path, file: 'b.json', mode: 'new', ci: false, gate })
  expect(second).toMatchObject({ status: 'other-suite', pass: false })
  expect(second.message).toBe(
    'baseline b.json belongs to suite "Support triage", not "support-triage": their names give the same file name. ' +
      'If two suites share it, rename one (names are compared by letters and digits, ignoring case); if this suite was renamed, refresh the baseline with `vitest -u`.',
  )
  // The suite itself still compares.
  expect(await runBaselineGate('Support triage', result, { path, file: 'b.json', mode: 'new', ci: false, gate })).toMatchObject({ status: 'pass', pass: true })
})

test('under CI nothing is written, whatever the update mode', async () => {
  for (const mode of ['all', 'new', 'none'] as const) {
    const path = join(dir, `ci-${mode}.json`)
    const outcome = await runBaselineGate('ci', result, { path, file: 'ci.json', mode, ci: true, gate })
    expect(outcome.pass).toBe(false)
    expect(outcome.message).toContain('baselines are never written under CI')
    await expect(readFile(path)).rejects.toThrow('ENOENT')
  }
})
