// The baseline gate's write rules and fail-closed cases, on real files in a temp directory.
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, expect, test } from 'vitest'
import { evaluateWithScorer, type EvalResult, type ScoreRequest } from '../../../src/core/index.ts'
import { baselinePath } from '../../../src/suite/baseline/file.ts'
import { runBaselineGate } from '../../../src/suite/baseline/run-gate.ts'
import { decision } from '../../helpers/decisions.ts'
import { useTempDir } from '../../helpers/temp.ts'

const dir = useTempDir('sceptic-gate-')
let result: EvalResult
beforeAll(async () => {
  const rows = Array.from({ length: 12 }, (_, i) => decision(2, i % 2, { id: `d${i}`, state: `s${i}` }))
  const byState = (requests: readonly ScoreRequest[]) => requests.map((r) => r.criterion.options.map((o) => (o.id === `o${Number(r.state.slice(1)) % 2}` ? 0.9 : 0.1)))
  result = await evaluateWithScorer(rows, byState, { debias: 'cyclic', onWarning: () => {} })
})

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

test('under pride, only the sampled decisions count for order consistency, and the power check says so', async () => {
  // 100 decisions, prideFraction 0.05: 5 are scored under both rotations, 95 under one.
  // Before: the 95 were stored as "consistent" and counted by the power check, so the gate
  // claimed "a drop of 10.0% would be detectable" though at most 5 decisions could ever flip.
  const rows = Array.from({ length: 100 }, (_, i) => decision(2, i % 2, { id: `p${i}`, state: `s${i}` }))
  const byState = (requests: readonly ScoreRequest[]) => requests.map((r) => r.criterion.options.map((o) => (o.id === `o${Number(r.state.slice(1)) % 2}` ? 0.9 : 0.1)))
  const pride = await evaluateWithScorer(rows, byState, { debias: 'pride', onWarning: () => {} })
  const path = join(dir, 'pride.json')
  await runBaselineGate('pride', pride, { path, file: 'pride.json', mode: 'new', ci: false, gate })
  const stored = JSON.parse(await readFile(path, 'utf8'))
  const flags = Object.values(stored.decisions).map((d) => (d as { consistent: boolean | null }).consistent)
  expect([flags.filter((f) => f === null).length, flags.filter((f) => f === true).length]).toEqual([95, 5])
  const outcome = await runBaselineGate('pride', pride, { path, file: 'pride.json', mode: 'new', ci: false, gate })
  expect(outcome).toMatchObject({ status: 'pass', paired: 100, comparable: 5, power: { detectable: false } })
  expect(outcome.message).toContain('(5 of 100 paired decisions were scored under several orderings; only they can change consistency)')
  expect(outcome.message).toContain('too small to detect a drop of 10.0% (1 decision;')
})
