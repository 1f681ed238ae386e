// End-to-end on the built package: a Vitest suite over a position-biased decision model fails
// its orderConsistency threshold as a named test, and `sceptic evaluate --scorer` runs a module
// exporting a decisionModelScorer against the simulated OpenAI Decisions server.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { expect, test } from 'vitest'
import { run as spawnRun } from '../../helpers/run.ts'
import { biased, startFakeDecisions } from '../../helpers/fake-decisions.mjs'
import { useTempDir } from '../../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../../helpers/vitest.ts'

const E2E_TIMEOUT = 120_000
const DECIDE = join(FIXTURES, 'decide')
const KEY = 'sk-e2e-zyxwvutsrqponmlkjihgfedcba9876543210'
const out = useTempDir('sceptic-decide-')
const dist = useDistSnapshot()
// The snapshot's CLI: the scorer module loads the snapshot too, so both share one copy of the error classes.
const sceptic = (args: string[], options: { env: Record<string, string> }) => spawnRun(process.execPath, [join(dist(), 'cli/main.js'), ...args], options)

test('a position-biased decision model fails its orderConsistency threshold by name; a reading one passes', async () => {
  const { code, output } = await vitest(['run', '--root', DECIDE], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_CACHE_DIR: join(out, 'cache') })
  expect(code, output).toBe(1)
  expect(output).toContain('FAIL  evals/decide.eval.ts > position-biased decision model > orderConsistency ≥ 0.8')
  expect(output).not.toContain('FAIL  evals/decide.eval.ts > reading decision model')
  expect(output).toMatch(/reading decision model {2}evals[\s\S]*?order consistency\s+100\.0% {3}✓ ≥ 80\.0%/)
  expect(output).toMatch(/position-biased decision model[\s\S]*?order consistency\s+0\.0%/)
  expect(output).toMatch(/position-biased decision model[\s\S]*?letters picked\s+A:100%/)
}, E2E_TIMEOUT)

test('sceptic evaluate --scorer with a decisionModelScorer module: numeric ids, calls and tokens in the manifest, no key', async () => {
  const server = await startFakeDecisions({ decide: biased(0.7) })
  try {
    const json = join(out, 'eval.json')
    const env = { SCEPTIC_E2E_DIST: dist(), SCEPTIC_CACHE_MODE: 'off', DECIDE_BASE_URL: server.baseURL, DECIDE_API_KEY: KEY }
    const run = await sceptic(['evaluate', join(DECIDE, 'data.jsonl'), '--scorer', join(DECIDE, 'scorer.mjs'), '--json-out', json], { env })
    expect(run.code, run.stderr).toBe(0)
    const result = JSON.parse(readFileSync(json, 'utf8'))
    // Ids "1","2","3" shown in each rotation's order: a position-biased model, not 100% consistent.
    expect(result.orderConsistency).toBe(0)
    expect(result.manifest.scorer).toBe('decide openai.decision gpt-6-luna')
    expect(result.manifest.decide).toMatchObject({ calls: 9, questions: 9, outputTokens: 54, batch: 'off' })
    expect(result.manifest.decide.inputTokens).toBeGreaterThan(0)
    const batched = await sceptic(['evaluate', join(DECIDE, 'data.jsonl'), '--scorer', join(DECIDE, 'scorer.mjs'), '--json-out', json], { env: { ...env, DECIDE_BATCH: '1' } })
    expect(batched.code, batched.stderr).toBe(0)
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest.decide).toMatchObject({ calls: 3, questions: 9, batch: 'state' })
    // Ids that cannot be sent in the order requested: a one-line ConfigError (exit 2) before any call.
    const callsBefore = server.calls
    const clash = await sceptic(['evaluate', join(DECIDE, 'clash.jsonl'), '--scorer', join(DECIDE, 'scorer.mjs')], { env })
    expect(clash.code).toBe(2)
    expect(clash.stderr.trim().split('\n')).toHaveLength(1)
    expect(clash.stderr).toContain('option ids "1", "option_1" cannot be sent in the order requested')
    expect(server.calls).toBe(callsBefore)
    // A rejected key: every decision fails, the run exits non-zero, and no piece of the key is printed.
    const echo = await startFakeDecisions({ behave: () => ({ echoKey: true }) })
    try {
      const failed = await sceptic(['evaluate', join(DECIDE, 'data.jsonl'), '--scorer', join(DECIDE, 'scorer.mjs')], { env: { ...env, DECIDE_BASE_URL: echo.baseURL } })
      expect(failed.code).not.toBe(0)
      const text = failed.stdout + failed.stderr
      expect(text).toMatch(/http_error/)
      expect(text.trim().split('\n')).toHaveLength(1)
      for (let i = 0; i + 6 <= KEY.length; i++) expect(text).not.toContain(KEY.slice(i, i + 6))
    } finally {
      await echo.close()
    }
  } finally {
    await server.close()
  }
}, E2E_TIMEOUT)
