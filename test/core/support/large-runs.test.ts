// Runs past V8's argument limit: a spread of one element per decision or request into a
// call (Math.max(...a), push(...a)) throws "Maximum call stack size exceeded" at about
// 125,000 elements, after all scoring. These runs go well past it, end to end in process.
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer, recordsToJsonl, resultToJson, type Decision, type ScoreFn } from '../../../src/core/index.ts'
import { render } from '../../../src/report/index.ts'
import { parsePartFile, partFileText, reassemble, recordingScorer } from '../../../src/core/shards/part-file.ts'
import { evaluateReassembled } from '../../../src/core/shards/replay.ts'
import { selectShard } from '../../../src/core/shards/select.ts'
import { appendAll, largest, smallest } from '../../../src/core/support/spreadless.ts'

const N = 131_072
const OPTIONS = [
  { id: 'yes', text: 'Yes' },
  { id: 'no', text: 'No' },
]
const data: Decision[] = Array.from({ length: N }, (_, i) => ({ id: `d${i}`, state: `s${i}`, criterion: { key: 'c', options: OPTIONS }, answer_id: i % 3 === 0 ? 'no' : 'yes' }))
/** Content only: prefers `yes` wherever it is shown. */
const scorer: ScoreFn = (requests) => requests.map((r) => r.criterion.options.map((o) => (o.id === 'yes' ? 3 : 1)))

describe(`a run of ${N.toLocaleString('en')} decisions completes`, () => {
  it('evaluates under cyclic, renders and serialises', async () => {
    const result = await evaluateWithScorer(data, scorer, { debias: 'cyclic', statistics: false, onWarning: () => {} })
    expect(result.n).toBe(N)
    expect(result.accuracy).toBeCloseTo(1 - Math.ceil(N / 3) / N, 12)
    expect(result.orderConsistency).toBe(1)
    expect(render(result, { color: false })).toMatch(new RegExp(`\\b${N}\\b`))
    expect(recordsToJsonl(result.records).split('\n').filter(Boolean)).toHaveLength(N)
    expect(resultToJson(result).n).toBe(N)
  }, 60_000)

  it('merges its shard part file back (sceptic merge, debias none)', async () => {
    const shard = { index: 1, count: 1 }
    const selection = selectShard(data, shard, 'none')
    const recording = recordingScorer(scorer)
    const result = await evaluateWithScorer(selection.evaluate, recording.score, { debias: 'none', statistics: false, onWarning: () => {} })
    const text = partFileText({
      shard,
      fingerprint: selection.fingerprint,
      rows: data.length,
      settings: { debias: 'none', seed: 0, epochs: 1, reducer: 'mean', average: 'probability', storePrompts: false, statistics: false },
      scorer: 'content scorer',
      scorerId: 'content-scorer-id',
      manifest: {},
      cache: undefined,
      records: result.records.length,
      decisions: selection.rows,
      answers: recording.answers,
    })
    const merged = await evaluateReassembled(reassemble([parsePartFile(text, 'p1.shard.jsonl')]))
    expect(merged.n).toBe(N)
    expect(merged.accuracy).toBe(result.accuracy)
    expect(render(merged, { color: false })).toMatch(new RegExp(`\\b${N}\\b`))
  }, 60_000)
})

describe('the spread-free helpers, at 200,000 elements', () => {
  const big = Array.from({ length: 200_000 }, (_, i) => (i * 7919) % 200_003)

  it('largest and smallest agree with a sort, and with Math.max/min on small input', () => {
    const sorted = [...big].sort((a, b) => a - b)
    expect(largest(big)).toBe(sorted.at(-1))
    expect(smallest(big)).toBe(sorted[0])
    expect(largest([])).toBe(-Infinity)
    expect(smallest([])).toBe(Infinity)
    expect(largest([1, Number.NaN, 3])).toBeNaN()
    for (const small of [[3], [-1, -5], [0, -0], [2, 9, 4]]) {
      expect(largest(small)).toBe(Math.max(...small))
      expect(smallest(small)).toBe(Math.min(...small))
    }
  })

  it('appendAll appends every element in order', () => {
    const target = [-1]
    expect(appendAll(target, big)).toBe(target)
    expect(target).toHaveLength(200_001)
    expect(target[200_000]).toBe(big[199_999])
  })
})
