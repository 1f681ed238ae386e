import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, type Decision, type DebiasMode, type FallibleScoreFn } from '../../../src/core/index.ts'
import { parseShard, shardKey, shardOf, shardPositions } from '../../../src/core/shards/spec.ts'
import { parsePartFile, partFileText, reassemble, recordingScorer, replayKey, type ShardPart } from '../../../src/core/shards/part-file.ts'
import { resultToJson, recordsToJsonl } from '../../../src/core/result/result.ts'
import { selectShard } from '../../../src/core/shards/select.ts'
import { EMPTY_PART_HEADER } from '../../helpers/part-file.ts'
import { scoreFailure } from '../../../src/core/scorer/contract.ts'

/** A deterministic scorer that reads option ids and slots (so debiasing matters), fails some requests, flags others. */
const scorer: FallibleScoreFn = (requests) =>
  requests.map((request) => {
    const h = parseInt(replayKey(request).slice(0, 6), 16)
    if (request.state.includes('fail') && h % 3 === 0) return scoreFailure('http_error', 'HTTP 503')
    const vector = request.criterion.options.map((o, slot) => ((h >> slot) % 7) + 1 + (slot === 0 ? 2 : 0) + o.id.length)
    return h % 11 === 0 ? { probabilities: vector, flags: ['missing_logprobs'] } : vector
  })

/** What a shard part leaves behind, built in memory exactly as `sceptic evaluate --shard` does. */
async function runPart(data: Decision[], index: number, count: number, debias: DebiasMode, epochs: number): Promise<ShardPart> {
  const selection = selectShard(data, { index, count }, debias)
  const recording = recordingScorer(scorer)
  const labelled = selection.evaluate.filter((d) => d.answer_id !== undefined)
  const result = labelled.length > 0 ? await evaluateWithScorer(selection.evaluate, recording.score, { debias, epochs, onWarning: () => {} }) : undefined
  const text = partFileText({
    shard: { index, count },
    fingerprint: selection.fingerprint,
    rows: data.length,
    settings: { debias, seed: 0, epochs, reducer: 'mean', average: 'probability', storePrompts: false },
    scorer: 'test scorer',
    scorerId: 'test-scorer-id',
    manifest: { endpoints: { 'http://a/': { requests: index } } },
    cache: undefined,
    records: result?.records.length ?? 0,
    decisions: selection.rows,
    answers: recording.answers,
  })
  return parsePartFile(text, `p${index}.shard.jsonl`)
}

const decisionArb = fc.record({
  group: fc.option(fc.integer({ min: 0, max: 6 }), { nil: undefined }),
  hasId: fc.boolean(),
  k: fc.integer({ min: 2, max: 4 }),
  answer: fc.option(fc.nat(3), { nil: undefined, freq: 8 }),
  fail: fc.boolean(),
  word: fc.constantFrom('a', 'b', 'c', '__proto__'),
})

type DecisionSpec = typeof decisionArb extends fc.Arbitrary<infer T> ? T : never

function toDecisions(specs: DecisionSpec[]): Decision[] {
  return specs.map((s, i) => ({
    ...(s.hasId ? { id: `d${i}` } : {}),
    state: `${s.word} ${s.fail ? 'fail' : 'ok'} ${i % 5}`,
    criterion: { key: `c${s.k}`, options: Array.from({ length: s.k }, (_, j) => ({ id: `o${j}`, text: `T${j}` })) },
    ...(s.answer !== undefined ? { answer_id: `o${s.answer % s.k}` } : {}),
    ...(s.group !== undefined ? { group_id: `g${s.group}` } : {}),
  }))
}

const stable = (json: object) => JSON.stringify({ ...json, manifest: { ...(json as any).manifest, started: 0, seconds: 0 } })

describe('shard selection', () => {
  it('parses i/n and refuses anything else, naming the flag', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 })
    for (const bad of ['0/4', '5/4', '1/0', '1', 'a/b', '1/2/3', '-1/2'])
      expect(() => parseShard(bad)).toThrow(/--shard must be i\/n with 1 ≤ i ≤ n/)
  })

  it('puts every decision in exactly one part and never splits a group', () => {
    fc.assert(
      fc.property(fc.array(decisionArb, { maxLength: 40 }), fc.integer({ min: 1, max: 6 }), (specs, n) => {
        const data = toDecisions(specs)
        const parts = Array.from({ length: n }, (_, i) => shardPositions(data, { index: i + 1, count: n }))
        expect(parts.flat().sort((a, b) => a - b)).toEqual(data.map((_, i) => i))
        const partOfGroup = new Map<string, number>()
        parts.forEach((positions, p) =>
          positions.forEach((pos) => {
            const g = data[pos]!.group_id
            if (g == null) return
            expect(partOfGroup.get(g) ?? p).toBe(p)
            partOfGroup.set(g, p)
          }),
        )
      }),
    )
  })

  it('hashes stably: the same key lands in the same part on every machine', () => {
    expect(shardOf('g:customer-1', 1)).toBe(1)
    expect(shardOf('g:customer-1', 4)).toBe(shardOf('g:customer-1', 4))
    expect(shardKey({ state: 's', criterion: { key: 'k', options: [] } } as unknown as Decision, 7)).toBe('n:7')
    const counts = [0, 0, 0, 0]
    for (let i = 0; i < 4000; i++) counts[shardOf(`d:${i}`, 4) - 1]!++
    for (const c of counts) expect(c).toBeGreaterThan(850) // roughly a quarter each
  })

  it('refuses pride, whose prior is drawn from the whole set', () => {
    expect(() => selectShard([], { index: 1, count: 2 }, 'pride')).toThrow(/--shard cannot be used with --debias pride/)
  })
})

describe('merge = the unsharded run', () => {
  it('every metric, interval, panel figure, record and manifest entry, for any data, debias, epochs and shard count', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(decisionArb, { minLength: 1, maxLength: 30 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom<DebiasMode>('none', 'cyclic', 'calibrated', 'permutation'),
        fc.integer({ min: 1, max: 2 }),
        async (specs, n, debias, epochs) => {
          const data = toDecisions(specs)
          fc.pre(data.some((d) => d.answer_id !== undefined))
          const parts = []
          try {
            for (let i = 1; i <= n; i++) parts.push(await runPart(data, i, n, debias, epochs))
          } catch (error) {
            // A part where every decision failed ends its run (as an unsharded run would): nothing to merge.
            fc.pre(!/every decision failed/.test(String(error)))
            throw error
          }
          const whole = await evaluateWithScorer(data, scorer, { debias, epochs, scorerDescription: 'test scorer', manifest: {}, onWarning: () => {} })
          const run = reassemble([...parts].reverse())
          const merged = await evaluateWithScorer(run.decisions, run.score, {
            ...run.settings,
            reducer: 'mean',
            scorerDescription: run.scorer,
            manifest: {},
            onWarning: () => {},
          })
          expect(stable(resultToJson(merged))).toBe(stable(resultToJson(whole)))
          expect(recordsToJsonl(merged.records)).toBe(recordsToJsonl(whole.records))
          // Endpoint counts add up over parts.
          expect(run.manifest.endpoints).toEqual({ 'http://a/': { requests: (n * (n + 1)) / 2 } })
        },
      ),
      { numRuns: 40 },
    )
  })
})

describe('merge refuses parts that are not one run', () => {
  const data = toDecisions(Array.from({ length: 24 }, (_, i) => ({ group: i % 8, hasId: true, k: 3, answer: i % 3, fail: false, word: 'a' })))
  const parts = () => Promise.all([1, 2, 3].map((i) => runPart(data, i, 3, 'cyclic', 1)))

  it('a missing shard', async () => {
    const [a, b] = await parts()
    expect(() => reassemble([a!, b!])).toThrow(/shard 3\/3 missing: merge needs every part/)
  })

  it('the same shard twice', async () => {
    const [a, b, c] = await parts()
    expect(() => reassemble([a!, b!, c!, b!])).toThrow(/p2\.shard\.jsonl: is shard 2\/3 again/)
  })

  it('a part of other data (fingerprint) or other settings', async () => {
    const [a, b, c] = await parts()
    const other = { ...c!, header: { ...c!.header, fingerprint: '0000000000000000' } }
    expect(() => reassemble([a!, b!, other])).toThrow(/p3\.shard\.jsonl: its data fingerprint "0000000000000000" differs from p1\.shard\.jsonl's/)
    const seeded = { ...c!, header: { ...c!.header, settings: { ...c!.header.settings, seed: 9 } } }
    expect(() => reassemble([a!, b!, seeded])).toThrow(/its settings .* differs/)
  })

  it('overlapping ids (a row in two parts)', async () => {
    const [a, b, c] = await parts()
    const overlapping = { ...c!, rows: [...c!.rows, a!.rows[0]!] }
    expect(() => reassemble([a!, b!, overlapping])).toThrow(/row \d+ of the data file is in more than one part/)
    const dupId = { ...c!, rows: [...c!.rows, { position: 999, decision: a!.rows[0]!.decision }], header: { ...c!.header, rows: 1000 } }
    expect(() => reassemble([{ ...a!, header: { ...a!.header, rows: 1000 } }, { ...b!, header: { ...b!.header, rows: 1000 } }, dupId])).toThrow(
      /decision id "d\d+" is also in p1\.shard\.jsonl: parts overlap/,
    )
  })

  it('a file that is not a part file, naming file, line and field', () => {
    expect(() => parsePartFile('{"id":"x"}\n', 'r.shard.jsonl')).toThrow(/r\.shard\.jsonl:1.*not a shard part file/)
    expect(() => parsePartFile(partFileHead() + '\n{"position": -1, "decision": {}}\n', 'r.shard.jsonl')).toThrow(/r\.shard\.jsonl:2.*position/)
  })
})

const partFileHead = (): string => EMPTY_PART_HEADER.trim()
