// Decision-level sharding without spawning Vitest: the file rule, the sequencer wrapper,
// and the merge of suite parts (equal to an unsharded run; a missing or unfinished part fails).
import { existsSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import { BaseSequencer, type TestSpecification, type Vitest } from 'vitest/node'
import type { RunnerTask, RunnerTestFile } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { validateDecisions } from '../../../src/core/decisions/load.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import type { ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { checkDeclared } from '../../../src/vitest/shards/part.ts'
import { runEvaluation } from '../../../src/run/run.ts'
import { parseRunSettings } from '../../../src/run/settings.ts'
import { declaresDecisionShards, withDecisionShards } from '../../../src/vitest/shards/sequencer.ts'
import { DecisionShardMerge, mergeDecisionShards } from '../../../src/vitest/shards/merge.ts'
import { summarise } from '../../../src/suite/assertions/format.ts'
import { meetsLowerBound } from '../../../src/core/thresholds/verdict.ts'
import { describeDecisions } from '../../../src/vitest/suite/describe-decisions.ts'
import { baselineFromResult, writeBaseline } from '../../../src/suite/baseline/file.ts'
import type { ScepticSuiteMeta, ScepticTestMeta } from '../../../src/suite/meta.ts'
import { useTempDir } from '../../helpers/temp.ts'

const dir = useTempDir('sceptic-decision-shard-units-')

describe('which files run in every shard', () => {
  test('the literal option, any quotes and spacing; nothing else', () => {
    for (const yes of [`shard: 'decisions'`, `shard:"decisions"`, 'shard :  `decisions`', `{ data, shard: 'decisions', scorer }`])
      expect(declaresDecisionShards(yes), yes).toBe(true)
    for (const no of [`shard: 'files'`, `shards: 'decisions'`, `myshard: 'decisions'`, `shard: mode`, `shard: 'decisions"`, `'decisions'`])
      expect(declaresDecisionShards(no), no).toBe(false)
  })

  test('a suite whose file does not spell it out fails before scoring, naming the file', () => {
    const computed = join(dir, 'computed.eval.ts')
    writeFileSync(computed, `const mode = 'decisions'\ndescribeDecisions('x', { shard: mode })\n`)
    expect(() => checkDeclared('x', computed)).toThrow(`shard: 'decisions' must be written literally in ${computed}`)
    const literal = join(dir, 'literal.eval.ts')
    writeFileSync(literal, `describeDecisions('x', { shard: 'decisions' })\n`)
    expect(() => checkDeclared('x', literal)).not.toThrow()
  })

  test('decision files go to every shard; the other files are split exactly as Vitest splits them', async () => {
    const specs = Array.from({ length: 9 }, (_, i) => {
      const moduleId = join(dir, `f${i}.eval.ts`)
      writeFileSync(moduleId, i % 4 === 0 ? `describeDecisions('s${i}', { shard: 'decisions' })` : `test('t${i}', () => {})`)
      return { moduleId } as unknown as TestSpecification
    })
    const decisionFiles = specs.filter((_, i) => i % 4 === 0)
    const plain = specs.filter((_, i) => i % 4 !== 0)
    const Wrapped = withDecisionShards(BaseSequencer)
    expect(withDecisionShards(Wrapped)).toBe(Wrapped)
    const count = 3
    const seen: TestSpecification[] = []
    for (let index = 1; index <= count; index++) {
      const ctx = { config: { root: dir, shard: { index, count } } } as unknown as Vitest
      const mine = await new Wrapped(ctx).shard(specs)
      for (const file of decisionFiles) expect(mine).toContain(file)
      const plainMine = mine.filter((spec) => plain.includes(spec))
      expect(plainMine).toEqual(await new BaseSequencer(ctx).shard(plain))
      seen.push(...plainMine)
    }
    expect(new Set(seen).size).toBe(seen.length)
    expect(seen).toHaveLength(plain.length)
  })
})

// A scorer that depends on the request only (as replay requires): a deterministic
// function of the state and the presented order, so each ordering gets its own vector.
function score(requests: readonly ScoreRequest[]): number[][] {
  return requests.map(({ state, criterion }) =>
    criterion.options.map(({ id }, slot) => 1 + ((state.length * 7 + id.charCodeAt(0) * 3 + slot * 5) % 11)),
  )
}

const options = (n: number) => ['a', 'b', 'c', 'd'].slice(0, n).map((id) => ({ id, text: id.toUpperCase() }))

/** One shard's copy of a suite, as a blob holds it: a suite task with its part, and one deferred test. */
async function shardCopy(all: readonly Decision[], index: number, count: number, bound: number, deferred?: ScepticTestMeta['deferred']): Promise<RunnerTestFile> {
  const { part } = await runEvaluation(all, { score: score, description: 'fixture', manifest: {} }, parseRunSettings({ debias: 'cyclic' }), { cache: false, shard: { spec: { index, count }, label: 'vitest --shard' } })
  return fileWith({ schema: 1, suite: 'suite', thresholds: { balancedAccuracy: bound }, shard: { index, count, part, maxFailureRate: 0 } }, bound, deferred)
}

function fileWith(suiteMeta: ScepticSuiteMeta, bound: number, deferred?: ScepticTestMeta['deferred']): RunnerTestFile {
  const testMeta: ScepticTestMeta = deferred
    ? { suite: 'suite', check: 'baseline', deferred }
    : { suite: 'suite', check: 'balancedAccuracy', bound, deferred: { name: `balancedAccuracy ≥ ${bound}` } }
  const testTask = { id: 'f_0_0', type: 'test', name: 'deferred', mode: 'skip', meta: { sceptic: testMeta }, result: { state: 'skip', note: 'deferred' } }
  const suite = { id: 'f_0', type: 'suite', name: 'suite', mode: 'run', meta: { sceptic: suiteMeta }, tasks: [testTask], result: { state: 'pass' } }
  return { id: 'f', type: 'suite', name: 'x.eval.ts', filepath: join(dir, 'x.eval.ts'), projectName: '', mode: 'run', meta: {}, tasks: [suite], result: { state: 'pass' } } as unknown as RunnerTestFile
}

const suiteOf = (file: RunnerTestFile) => file.tasks[0] as RunnerTask & { tasks: RunnerTask[] }
const metaOf = (file: RunnerTestFile) => (suiteOf(file).meta as { sceptic: ScepticSuiteMeta }).sceptic
const unsharded = async (all: readonly Decision[]) => summarise(await evaluateWithScorer(all, score, { debias: 'cyclic', scorerDescription: 'fixture' }))
const timeless = (json: ReturnType<typeof summarise>) => ({ ...json, manifest: { ...json.manifest, started: '', seconds: 0 } })

describe('the merge of suite parts (vitest --merge-reports)', () => {
  test('any data, any shard count: the merged suite equals the unsharded run; one copy per file stays; the deferred test is decided', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ n: fc.integer({ min: 2, max: 4 }), gold: fc.nat(3), group: fc.option(fc.nat(4), { nil: undefined }) }), { minLength: 1, maxLength: 14 }),
        fc.integer({ min: 1, max: 4 }),
        async (rows, count) => {
          const all = validateDecisions(
            rows.map((row, i) => ({
              id: `d${i}`,
              state: `row ${i} ${'x'.repeat(i % 5)}`,
              criterion: { key: `k${row.n}`, options: options(row.n) },
              answer_id: options(row.n)[row.gold % row.n]!.id,
              ...(row.group !== undefined ? { group_id: `g${row.group}` } : {}),
            })),
          )
          const expected = await unsharded(all)
          const files = await Promise.all(Array.from({ length: count }, (_, i) => shardCopy(all, i + 1, count, 0.5)))
          const [merged] = await mergeDecisionShards(files, dir)
          expect(merged!.outcome).toMatchObject({ parts: count })
          expect(files).toHaveLength(1)
          expect(timeless(metaOf(files[0]!).result!)).toEqual(timeless(expected))
          const test = suiteOf(files[0]!).tasks[0]!
          expect(test.name).toBe(`balancedAccuracy ≥ 0.5 (merged from ${count} shard${count === 1 ? '' : 's'})`)
          // The verdict rule, not a bare >=: a balanced accuracy of 0.49999999999999994
          // (5/10 by another route) meets 0.5 within the bound's floating-point slack.
          const verdict = meetsLowerBound(expected.balancedAccuracy, 0.5) ? 'pass' : 'fail'
          expect(test.result!.state).toBe(verdict)
          expect(files[0]!.result!.state).toBe(verdict)
        },
      ),
      {
        numRuns: 25,
        // A set whose balanced accuracy sums to 0.49999999999999994: the oracle once used >=.
        examples: [[[[2, 1], [3, 2], [2, 0], [2, 1], [2, 0], [2, 3], [4, 2], [2, 0], [2, 1], [4, 2]].map(([n, gold]) => ({ n: n!, gold: gold!, group: undefined })), 1]],
      },
    )
  })

  const data = validateDecisions(
    Array.from({ length: 12 }, (_, i) => ({ id: `q${i}`, state: `q${i}`, criterion: { key: 'k', options: options(3) }, answer_id: options(3)[i % 3]!.id })),
  )

  test('a shard whose scoring did not finish (no part) fails the deferred check and the file, naming the shard', async () => {
    const files = [await shardCopy(data, 1, 2, 0), fileWith({ schema: 1, suite: 'suite', thresholds: {}, error: 'ScorerError: boom', shard: { index: 2, count: 2, maxFailureRate: 0 } }, 0)]
    const [merged] = await mergeDecisionShards(files, dir)
    expect(merged!.outcome).toEqual({ error: 'not merged: shard 2/2 did not finish scoring (ScorerError: boom)' })
    const test = suiteOf(files[0]!).tasks[0]!
    expect(test.result!.state).toBe('fail')
    expect(test.result!.errors![0]!.message).toBe('balancedAccuracy ≥ 0: not merged: shard 2/2 did not finish scoring (ScorerError: boom)')
    expect(files[0]!.result!.state).toBe('fail')
    expect(metaOf(files[0]!).result).toBeUndefined()
  })

  test('parts of two different runs (other data) are refused', async () => {
    const other = validateDecisions(data.map((d) => ({ ...d, state: `${d.state}!` })))
    const files = [await shardCopy(data, 1, 2, 0), await shardCopy(other, 2, 2, 0)]
    const [merged] = await mergeDecisionShards(files, dir)
    expect((merged!.outcome as { error: string }).error).toMatch(/data fingerprint .* differs .*: these parts are not from one run/)
    expect(suiteOf(files[0]!).tasks[0]!.result!.state).toBe('fail')
  })

  test('a deferred baseline gate compares the merged suite with the stored baseline, and fails when there is none (the merge never writes one)', async () => {
    const path = join(dir, 'baselines', 'suite.json')
    const gate = { name: 'order consistency vs baseline', baseline: { path, file: 'baselines/suite.json', alpha: 0.05, detectableDrop: 0.1 } }
    const missing = [await shardCopy(data, 1, 2, 0, gate), await shardCopy(data, 2, 2, 0, gate)]
    await mergeDecisionShards(missing, dir)
    const failed = suiteOf(missing[0]!).tasks[0]!
    expect(failed.result!.state).toBe('fail')
    expect(failed.result!.errors![0]!.message).toContain('no baseline at baselines/suite.json; the merge never writes one')
    expect(metaOf(missing[0]!).baseline).toMatchObject({ status: 'missing', pass: false })
    expect(existsSync(path)).toBe(false)

    await writeBaseline(path, baselineFromResult('suite', await evaluateWithScorer(data, score, { debias: 'cyclic', scorerDescription: 'fixture' })))
    const files = [await shardCopy(data, 1, 2, 0, gate), await shardCopy(data, 2, 2, 0, gate)]
    const [merged] = await mergeDecisionShards(files, dir)
    expect(merged!.outcome).toEqual({ parts: 2, failed: [] })
    const passed = suiteOf(files[0]!).tasks[0]!
    expect(passed.name).toBe('order consistency vs baseline (merged from 2 shards)')
    expect(passed.result!.state).toBe('pass')
    expect(metaOf(files[0]!).baseline).toMatchObject({ pass: true, paired: 12, worse: 0 })
  })

  test('after a merge, a deferred check still skipped (its suite meta lost) fails the run', () => {
    const reporter = new DecisionShardMerge()
    const errors: string[] = []
    const vitest = { config: { mergeReports: '.vitest-reports', root: dir }, logger: { error: (line: string) => errors.push(line), log: () => {} } }
    ;(reporter as unknown as { vitest: unknown }).vitest = vitest
    const testCase = { fullName: 'x > suite > balancedAccuracy ≥ 0.5 — deferred to merge (shard 1/2)', meta: () => ({ sceptic: { suite: 'suite', check: 'balancedAccuracy', deferred: { name: 'balancedAccuracy ≥ 0.5' } } }), result: () => ({ state: 'skipped' }) }
    const module = { children: { allTests: () => [testCase] } }
    const before = process.exitCode
    try {
      reporter.onTestRunEnd([module] as never)
      expect(process.exitCode).toBe(1)
      expect(errors.join('\n')).toContain('1 check deferred by decision shards not decided by the merge')
    } finally {
      process.exitCode = before
    }
  })
})

describe('describeDecisions refuses what the merge could not reproduce, before scoring', () => {
  const base = { data: [], scorer: score }
  test.each([
    [{ shard: 'files' }, `shard must be 'decisions' or unset, got "files"`],
    [{ shard: 'decisions', metrics: { m: () => 1 } }, `shard: 'decisions' cannot be combined with custom \`metrics\``],
    [{ shard: 'decisions', debias: 'pride' }, `shard: 'decisions' cannot be used with debias "pride"`],
  ])('%o', (extra, message) => {
    expect(() => describeDecisions('s', { ...base, ...extra } as never)).toThrow(message)
  })
})
