// A run that stops early never passes a failure rate the full run fails: the failure rate is
// decided at the looks by an anytime-valid bound, like every threshold. Before the fix a
// stopped run read the rate of the decisions it happened to score: with 13% of 1000 failing
// and `maxFailureRate: 0.1`, the full run failed and 4 of 10 seeds stopped after 20 and passed (here 5 of 20 seeds).
import { describe, expect, it } from 'vitest'
import { resultToJson, type Decision } from '../../../src/core/index.ts'
import type { FallibleScoreFn } from '../../../src/core/scorer/contract.ts'
import { decideRun, gateCheck } from '../../../src/run/gate.ts'
import { runEvaluation } from '../../../src/run/run.ts'
import { parseRunSettings } from '../../../src/run/settings.ts'

const OPTIONS = [
  { id: 'billing', text: 'Billing' },
  { id: 'tech', text: 'Technical support' },
]

/** `n` decisions, every one read right; `failing(i)` ones fail to score. */
function setUp(n: number, failing: (i: number) => boolean): { data: Decision[]; score: FallibleScoreFn } {
  const data = Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `Ticket ${i} about ${OPTIONS[i % 2]!.text}${failing(i) ? ' (garbled)' : ''}`,
    criterion: { key: 'queue', options: OPTIONS },
    answer_id: OPTIONS[i % 2]!.id,
  }))
  const score: FallibleScoreFn = (requests) =>
    requests.map((r) => (r.state.includes('garbled') ? { failure: 'error' as const, message: 'garbled' } : r.criterion.options.map((o) => (r.state.includes(o.text) ? 0.9 : 0.1))))
  return { data, score }
}

/** The gate of one run: its failure-rate check and whether the run passed, and how many decisions it scored. */
async function gate(data: Decision[], score: FallibleScoreFn, seed: number, stopEarly: boolean, maxFailureRate: number, thresholds: Record<string, number> = { accuracy: 0.8 }) {
  const settings = parseRunSettings({ debias: 'cyclic', statistics: false, seed, stopEarly, maxFailureRate })
  const { result } = await runEvaluation(data, { score, description: 'sweep', manifest: {} }, settings, { cache: false, thresholds })
  const json = resultToJson(result!)
  const decided = decideRun({ name: 'sweep', thresholds, maxFailureRate }, { result: json })
  return { passed: decided.passed, failureRate: gateCheck(decided, 'failureRate')!, scored: json.stopEarly?.scored ?? json.n + (json.failed ?? 0), stopped: json.stopEarly?.stopped ?? false }
}

// 13% of 1000 fail, spread evenly (i % 100 < 13).
const thirteen = setUp(1000, (i) => i % 100 < 13)

describe('--stop-early --max-failure-rate 0.1, 13% of 1000 failing', () => {
  it('the full run fails the failure rate', async () => {
    const full = await gate(thirteen.data, thirteen.score, 0, false, 0.1)
    expect(full.failureRate.verdict).toBe('fail')
    expect(full.passed).toBe(false)
  })

  it.each(Array.from({ length: 20 }, (_, seed) => seed))('seed %i: a stopped run never passes it', async (seed) => {
    const run = await gate(thirteen.data, thirteen.score, seed, true, 0.1)
    expect(run.passed, `seed ${seed}: stopped ${run.stopped} after ${run.scored}: ${run.failureRate.reason}`).toBe(false)
    expect(run.failureRate.verdict).toBe('fail')
  })
})

describe('the same in a stratified order (balanced accuracy a threshold)', () => {
  it.each(Array.from({ length: 10 }, (_, seed) => seed))('seed %i: a stopped run never passes it', async (seed) => {
    const run = await gate(thirteen.data, thirteen.score, seed, true, 0.1, { balancedAccuracy: 0.8 })
    expect(run.passed, `seed ${seed}: stopped ${run.stopped} after ${run.scored}: ${run.failureRate.reason}`).toBe(false)
    expect(run.failureRate.verdict).toBe('fail')
  })
})

describe('stopping early still pays where the failure rate is clearly within bounds', () => {
  // 1% of 1000 fail: the bound decides the rate well inside 0.1, and the run stops early and passes.
  const one = setUp(1000, (i) => i % 100 === 0)
  it.each([0, 1, 2].flatMap((seed) => [[seed, 'accuracy'], [seed, 'balancedAccuracy']] as const))('seed %i, %s ≥ 0.8: stops before the end and passes', async (seed, key) => {
    const run = await gate(one.data, one.score, seed, true, 0.1, { [key]: 0.8 })
    expect(run.stopped).toBe(true)
    expect(run.scored).toBeLessThan(1000)
    expect(run.passed, run.failureRate.reason).toBe(true)
  })
})
