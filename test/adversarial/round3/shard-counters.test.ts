// Shards of decision-model, GGUF and prepack-cache runs merge (sceptic merge, and the Vitest
// merge of decision shards, which share `reassemble`):
// - what each part counted (decision calls, questions, tokens, failures; GGUF tokens
//   evaluated; requests per endpoint) is summed, and any split of a run merges to the
//   unsharded run's JSON;
// - where a part loaded its packed ONNX weights (the folder, loaded or written) is not a run
//   setting: parts on different folders merge; a real setting that differs is still refused.
import { createOpenAI } from '@ai-sdk/openai'
import fc from 'fast-check'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { resultToJson, type Decision, type EvalResult } from '../../../src/core/index.ts'
import { withScorerManifest } from '../../../src/core/scorer/live-manifest.ts'
import { parsePartFile, reassemble } from '../../../src/core/shards/part-file.ts'
import { evaluateReassembled } from '../../../src/core/shards/replay.ts'
import { shardKey, shardOf } from '../../../src/core/shards/spec.ts'
import { runEvaluation, type RunScorer } from '../../../src/run/run.ts'
import { parseRunSettings } from '../../../src/run/settings.ts'
import { decisionModelScorer } from '../../../src/scorers/ai/index.ts'
import { reader, startFakeDecisions } from '../../helpers/fake-decisions.mjs'
import { decision } from '../../helpers/decisions.ts'
import { ROOT, sceptic } from '../../helpers/run.ts'
import { useTempDir } from '../../helpers/temp.ts'

const SETTINGS = parseRunSettings({ debias: 'cyclic', statistics: false })
/** A result's JSON without what differs between two runs of the same answers (times). */
const numbers = (result: EvalResult) => {
  const json = resultToJson(result) as { manifest: Record<string, unknown> }
  return { ...json, manifest: { ...json.manifest, started: '', seconds: 0 } }
}

/** Each shard of `count` run alone (its own scorer, as on its own machine), then merged. */
async function shardedThenMerged(decisions: readonly Decision[], count: number, scorer: (index: number) => RunScorer): Promise<EvalResult> {
  const parts = []
  for (let index = 1; index <= count; index++) {
    const { part } = await runEvaluation(decisions, scorer(index), SETTINGS, { cache: false, shard: { spec: { index, count }, label: '--shard' } })
    parts.push(parsePartFile(part!, `p${index}.records.shard.jsonl`))
  }
  return evaluateReassembled(reassemble(parts))
}

describe('decision-model shards: any split merges to the unsharded run', () => {
  let server: Awaited<ReturnType<typeof startFakeDecisions>>
  beforeAll(async () => {
    // Reads the state; refuses a state that says so (failures are counters too).
    const reads = reader()
    server = await startFakeDecisions({ decide: (question: unknown, state: string, body: unknown) => (state.includes('refuse') ? 'refusal' : reads(question as never, state)) })
  })
  afterAll(() => server.close())

  const decideScorer = (batch: boolean): RunScorer => {
    const model = createOpenAI({ baseURL: server.baseURL, apiKey: 'sk-test-shards-0123456789' }).decisionModel('gpt-6-luna')
    const score = decisionModelScorer(model, { maxRetries: 0, ...(batch ? { batch: 'state' as const } : {}) })
    return { score, description: score.description, manifest: withScorerManifest({}, score) }
  }

  it('property: shard counts 1–4 over random data (refusals, batching): merged JSON = unsharded JSON, counters summed', async () => {
    const TEXTS = ['Billing', 'Technical support', 'Shipping']
    const data = fc.array(fc.record({ gold: fc.integer({ min: 0, max: 2 }), refuse: fc.boolean(), read: fc.boolean() }), { minLength: 1, maxLength: 9 })
    await fc.assert(
      fc.asyncProperty(data, fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.nat(), async (rows, count, batch, salt) => {
        const decisions = rows.map(({ gold, refuse, read }, i) =>
          decision(3, gold, {
            id: `s${salt}-${i}`,
            state: `Ticket ${i}${read ? ` about ${TEXTS[gold]}` : ''}${refuse ? ', refuse' : ''}.`,
            criterion: { key: 'queue', question: 'Which queue?', options: TEXTS.map((text, k) => ({ id: `o${k}`, text })) },
          }),
        )
        // A part whose every decision was refused fails as a run (no part to merge): not this property.
        const owner = decisions.map((d, i) => shardOf(shardKey(d, i), count))
        fc.pre(owner.every((shard) => rows.some((row, i) => owner[i] === shard && !row.refuse)))
        const whole = await runEvaluation(decisions, decideScorer(batch), SETTINGS, { cache: false })
        const merged = await shardedThenMerged(decisions, count, () => decideScorer(batch))
        expect(numbers(merged)).toEqual(numbers(whole.result!))
        const decide = (merged.manifest as unknown as { decide: { questions: number } }).decide
        expect(decide.questions).toBe(decisions.length * 3)
      }),
      { numRuns: 25 },
    )
  }, 120_000)
})

describe('every counter a scorer records is summed; settings must still agree', () => {
  const decisions = Array.from({ length: 8 }, (_, i) => decision(2, i % 2, { id: `k${i}` }))
  const reads = (manifest: (index: number) => Record<string, unknown>) => (index: number) => ({
    score: (requests: readonly { criterion: { options: readonly unknown[] } }[]) => requests.map(() => [0.7, 0.3]),
    description: 'fixture',
    manifest: manifest(index),
  })
  const merge = (manifest: (index: number) => Record<string, unknown>) => shardedThenMerged(decisions, 2, reads(manifest) as never)

  // What each scorer records per part, as it records it: counted values differ by part.
  const COUNTERS: [string, (index: number) => Record<string, unknown>, Record<string, unknown>][] = [
    ['decisionModelScorer decide', (i) => ({ decide: { provider: 'p', model: 'm', batch: 'off', calls: 10 * i, questions: 10 * i, inputTokens: 100 * i, outputTokens: 6 * i, usageUnknown: i - 1, failures: i === 1 ? { refusal: 2 } : { refusal: 1, timeout: 3 } } }),
      { decide: { provider: 'p', model: 'm', batch: 'off', calls: 30, questions: 30, inputTokens: 300, outputTokens: 18, usageUnknown: 1, failures: { refusal: 3, timeout: 3 } } }],
    ['openAIScorer readouts', (i) => ({ endpoints: { 'http://r/v1/completions': { requests: 4 * i, failures: 0, failovers: 0 } }, readouts: { exact: 3 * i, 'top-k': i - 1 } }),
      { endpoints: { 'http://r/v1/completions': { requests: 12, failures: 0, failovers: 0 } }, readouts: { exact: 9, 'top-k': 1 } }],
    ['ggufScorer tokensEvaluated', (i) => ({ kvCacheType: 'f16', tokensEvaluated: 1000 * i }), { kvCacheType: 'f16', tokensEvaluated: 3000 }],
    ['ggufScorer minimumTokens', (i) => ({ kvCacheType: 'f16', minimumTokens: 700 + i }), { kvCacheType: 'f16', minimumTokens: 1403 }],
    ['onnxScorer prepacked (written, then loaded)', (i) => ({ readout: 'r', prepacked: i === 1 ? 'written to /c/k' : 'loaded from /c/k' }), { readout: 'r', prepacked: '1/2: written to /c/k; 2/2: loaded from /c/k' }],
    ['CLI prepackCache folder per machine', (i) => ({ model: 'm', prepackCache: `/machine-${i}/packed` }), { model: 'm', prepackCache: '1/2: /machine-1/packed; 2/2: /machine-2/packed' }],
    ['onnxScorer prepacked, the same in both parts', () => ({ prepacked: 'loaded from /c/k' }), { prepacked: 'loaded from /c/k' }],
  ]
  for (const [name, manifest, expected] of COUNTERS)
    it(`${name}: merged`, async () => {
      const merged = await merge(manifest)
      expect(merged.manifest).toMatchObject(expected)
    })

  // Settings: a part that ran otherwise is not part of this run.
  const SETTINGS_DIFFER: [string, (index: number) => Record<string, unknown>][] = [
    ['decide.model', (i) => ({ decide: { provider: 'p', model: `m${i}`, calls: 1 } })],
    ['kvCacheType', (i) => ({ kvCacheType: i === 1 ? 'f16' : 'q8_0', tokensEvaluated: 1 })],
    ['readout', (i) => ({ readout: `r${i}`, prepacked: 'x' })],
  ]
  for (const [name, manifest] of SETTINGS_DIFFER)
    it(`${name} differing: refused as not one run`, async () => {
      await expect(merge(manifest)).rejects.toThrow(/not from one run/)
    })
})

describe('sceptic merge of ONNX shards run with --prepack-cache', () => {
  const dir = useTempDir('sceptic-prepack-shards-')
  const MODEL = join(ROOT, 'examples/models/tiny')
  const TICKETS = join(ROOT, 'examples/data/tickets.jsonl')
  const evaluate = (extra: string[]) => sceptic(['evaluate', TICKETS, '--model', MODEL, '--workers', '1', '--no-cache', '--no-statistics', ...extra])

  it('parts that wrote, loaded, or used another folder merge into the unsharded result', async () => {
    const runs = [
      ['--shard', '1/3', '--prepack-cache', join(dir, 'a'), '--records-out', join(dir, 'p1.records.jsonl')],
      ['--shard', '2/3', '--prepack-cache', join(dir, 'a'), '--records-out', join(dir, 'p2.records.jsonl')],
      ['--shard', '3/3', '--prepack-cache', join(dir, 'b'), '--records-out', join(dir, 'p3.records.jsonl')],
      ['--json-out', join(dir, 'whole.json'), '--records-out', join(dir, 'whole.records.jsonl')],
    ]
    // One at a time: the second part loads what the first wrote.
    for (const args of runs) {
      const run = await evaluate(args)
      expect(run.code, run.stderr).toBe(0)
    }
    const out = join(dir, 'merged.json')
    const merged = await sceptic(['merge', ...[1, 2, 3].map((i) => join(dir, `p${i}.records.jsonl`)), '--json-out', out, '--records-out', join(dir, 'merged.records.jsonl')])
    expect(merged.code, merged.stderr).toBe(0)
    const json = JSON.parse(readFileSync(out, 'utf8'))
    const whole = JSON.parse(readFileSync(join(dir, 'whole.json'), 'utf8'))
    expect(json.manifest.prepacked).toMatch(/^1\/3: written to .*\/a\/[0-9a-f]{32}; 2\/3: loaded from .*\/a\/[0-9a-f]{32}; 3\/3: written to .*\/b\/[0-9a-f]{32}$/)
    expect(json.manifest.prepackCache).toBe(`1/3: ${join(dir, 'a')}; 2/3: ${join(dir, 'a')}; 3/3: ${join(dir, 'b')}`)
    const { started, seconds, prepacked, prepackCache, ...rest } = json.manifest
    expect(rest).toEqual({ ...whole.manifest, started: undefined, seconds: undefined })
    expect({ ...json, manifest: undefined }).toEqual({ ...whole, manifest: undefined })
    expect(readFileSync(join(dir, 'merged.records.jsonl'), 'utf8')).toBe(readFileSync(join(dir, 'whole.records.jsonl'), 'utf8'))
  }, 120_000)
})
