// End-to-end: a describeDecisions suite over an openAIScorer whose cache was filled before
// the server changed its answers under the same model name. On the old code the suite
// passed on the cached (old) vectors; now its beforeAll fails with the one-line error.
import { join } from 'node:path'
import { afterAll, beforeAll, expect, test } from 'vitest'
import { withCache } from '../../src/cache/with-cache.ts'
import { evaluateWithScorer } from '../../src/core/index.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { startFakeOpenAI, type Behaviour } from '../helpers/fake-openai.ts'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../helpers/vitest.ts'

const out = useTempDir('sceptic-remote-cache-')
const dist = useDistSnapshot()
let weights: 'old' | 'new' = 'old'
const server = await startFakeOpenAI((): Behaviour => (weights === 'old' ? { kind: 'ok' } : { kind: 'only-letters', letters: ['A'] }))
afterAll(async () => {
  await server.close()
})

// The fixture's decisions (test/fixtures/remote-cache/evals/remote.eval.ts).
const decisions = Array.from({ length: 6 }, (_, i) => ({
  id: `r${i}`,
  state: `The ticket mentions Option ${i % 3}.`,
  criterion: { key: 'c', question: 'Which one?', options: [0, 1, 2].map((k) => ({ id: `o${k}`, text: `Option ${k}` })) },
  answer_id: `o${i % 3}`,
}))

test("a suite whose cached answers the server no longer gives fails in beforeAll with the stale-cache line", async () => {
  // Fill the cache from the old server, as an earlier run would have.
  const score = openAIScorer({ baseURL: server.baseURL, model: 'triage', retries: 0 })
  await evaluateWithScorer(decisions, withCache(score, { cache: { dir: join(out, 'cache'), mode: 'read-write' } }), { debias: 'cyclic', statistics: false })
  expect(server.received).toHaveLength(18)
  weights = 'new'
  const { code, output } = await vitest(['run', '--root', join(FIXTURES, 'remote-cache')], {
    SCEPTIC_E2E_DIST: dist(),
    SCEPTIC_FIXTURE_OUT: out,
    SCEPTIC_TEST_URL: server.baseURL,
  })
  expect(code, output).toBe(1)
  expect(output).toMatch(/the server's answers changed under the same model name: [1-8] of 8 re-checked cache hits differ \(max \|Δp\| 0\.\d{3}\); the cache is stale for this deployment/)
  // Only the 8 re-checks reached the server: the misses were never scored.
  expect(server.received).toHaveLength(26)
}, 180_000)
