// The Vitest merge of decision shards keeps every tie: a positional scorer on gold-first data
// merges to the unsharded run (0%, every decision tied), and its deferred threshold fails.
import { join } from 'node:path'
import { expect, test } from 'vitest'
import type { RunnerTask, RunnerTestFile } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { validateDecisions } from '../../../src/core/decisions/load.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'
import { runEvaluation } from '../../../src/run/run.ts'
import { parseRunSettings } from '../../../src/run/settings.ts'
import { mergeDecisionShards } from '../../../src/vitest/shards/merge.ts'
import { summarise } from '../../../src/suite/assertions/format.ts'
import type { ScepticSuiteMeta, ScepticTestMeta } from '../../../src/suite/meta.ts'
import { useTempDir } from '../../helpers/temp.ts'

const dir = useTempDir('sceptic-decision-shard-ties-')

/** 0.8 on slot A whatever the options: under cyclic every decision's totals tie. */
const alwaysFirst: ScoreFn = (requests) => requests.map(({ criterion }) => criterion.options.map((_, slot) => (slot === 0 ? 0.8 : 0.1)))

/** One shard's copy of the suite as a blob holds it: the suite task with its part and one deferred threshold test. */
async function shardCopy(index: number, count: number): Promise<RunnerTestFile> {
  const { part } = await runEvaluation(data, { score: alwaysFirst, description: 'fixture', manifest: {} }, parseRunSettings({ debias: 'cyclic' }), { cache: false, shard: { spec: { index, count }, label: 'vitest --shard' } })
  const suiteMeta: ScepticSuiteMeta = { schema: 1, suite: 'suite', thresholds: { balancedAccuracy: 0.9 }, shard: { index, count, part, maxFailureRate: 0 } }
  const testMeta: ScepticTestMeta = { suite: 'suite', check: 'balancedAccuracy', bound: 0.9, deferred: { name: 'balancedAccuracy ≥ 0.9' } }
  const testTask = { id: 'f_0_0', type: 'test', name: 'deferred', mode: 'skip', meta: { sceptic: testMeta }, result: { state: 'skip', note: 'deferred' } }
  const suite = { id: 'f_0', type: 'suite', name: 'suite', mode: 'run', meta: { sceptic: suiteMeta }, tasks: [testTask], result: { state: 'pass' } }
  return { id: 'f', type: 'suite', name: 'x.eval.ts', filepath: join(dir, 'x.eval.ts'), projectName: '', mode: 'run', meta: {}, tasks: [suite], result: { state: 'pass' } } as unknown as RunnerTestFile
}

// Gold listed first in every decision: first-maximum-wins credited all of them.
const data = validateDecisions(
  Array.from({ length: 12 }, (_, i) => ({
    id: `q${i}`,
    state: `q${i}`,
    criterion: { key: 'k', options: ['a', 'b', 'c'].map((id) => ({ id, text: id })) },
    answer_id: 'a',
  })),
)

test('merged parts of a tied run equal the unsharded run, count every tie, and fail the deferred threshold', async () => {
  const expected = summarise(await evaluateWithScorer(data, alwaysFirst, { debias: 'cyclic', scorerDescription: 'fixture' }))
  expect(expected).toMatchObject({ balancedAccuracy: 0, manifest: { tied: { decisions: 12, picks: 0 } } })
  const files = await Promise.all([1, 2, 3].map((i) => shardCopy(i, 3)))
  const [merged] = await mergeDecisionShards(files, dir)
  expect(merged!.outcome).toMatchObject({ parts: 3 })
  const suite = files[0]!.tasks[0] as RunnerTask & { tasks: RunnerTask[]; meta: { sceptic: ScepticSuiteMeta } }
  const result = suite.meta.sceptic.result!
  expect({ ...result, manifest: { ...result.manifest, started: '', seconds: 0 } }).toEqual({ ...expected, manifest: { ...expected.manifest, started: '', seconds: 0 } })
  expect(result.manifest.tied).toEqual({ decisions: 12, picks: 0 })
  expect(suite.tasks[0]!.result!.state).toBe('fail')
})
