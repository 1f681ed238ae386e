/**
 * Decision-level sharding, merge side (docs/scaling-out.md#vitest-shards-that-split-decisions):
 * under `vitest --merge-reports`, before the merged tree is reported, every suite that
 * split its decisions is reassembled from the parts its shards left in suite meta (the
 * `sceptic merge` checks: one run, every shard once, no overlap), recomputed through the
 * evaluator, and each deferred check is decided once on the whole. A missing shard, a part
 * that did not finish or parts from different runs fail every deferred check: never green.
 */
import { relative } from 'node:path'
import type { RunnerTask, RunnerTestFile } from 'vitest'
import type { Reporter, TestModule, Vitest } from 'vitest/node'
import type { EvalResult, EvaluateOptions } from '../../core/index.ts'
import { parsePartFile, reassemble } from '../../core/shards/part-file.ts'
import { evaluateReassembled } from '../../core/shards/replay.ts'
import { thresholdTestName, type Threshold } from '../../core/thresholds/verdict.ts'
import { baselineFromResult, readBaseline } from '../../suite/baseline/file.ts'
import { decideBaseline } from '../../suite/baseline/decision.ts'
import { mergedTestName } from './part.ts'
import { decideRun, gateCheck } from '../../run/gate.ts'
import { summarise } from '../../suite/assertions/format.ts'
import { META_KEY, META_RECORDS_LIMIT, readSuiteMeta, type ScepticSuiteMeta, type ScepticTestMeta } from '../../suite/meta.ts'
import { appendAll } from '../../core/support/spreadless.ts'

/** One copy of a decision-split suite, as one shard's blob holds it. */
interface SuiteCopy {
  readonly file: RunnerTestFile
  readonly suite: RunnerTask
  readonly meta: ScepticSuiteMeta
}

/** What the merge decided for one suite, for the log. */
export interface MergedSuite {
  /** `file > suite`. */
  readonly label: string
  /** Shard parts merged, or the reason the suite could not be merged. */
  readonly outcome: { parts: number; failed: string[] } | { error: string }
}

/**
 * Reassemble, recompute and decide every decision-split suite in `files` (all shards'
 * copies, as `vitest.state.blobs.files` holds them), in place: deferred tests become
 * passed or failed tests named `… (merged from n shards)`, suite meta gets the merged result.
 */
export async function mergeDecisionShards(files: RunnerTestFile[], root: string): Promise<MergedSuite[]> {
  const groups = new Map<string, SuiteCopy[]>()
  for (const file of files)
    walk(file, (task) => {
      const meta = task.type === 'suite' ? readSuiteMeta(task.meta) : undefined
      if (!meta?.shard) return
      const key = `${file.projectName ?? ''}\0${task.id}`
      groups.set(key, [...(groups.get(key) ?? []), { file, suite: task, meta }])
    })
  const out: MergedSuite[] = []
  for (const copies of groups.values()) out.push(await mergeSuite(copies, root))
  if (groups.size > 0) {
    const kept = oneCopyPerFile(files, new Set([...groups.values()].flatMap((copies) => copies.map((c) => c.file))))
    files.length = 0
    appendAll(files, kept)
  }
  return out
}

/**
 * A file that ran in every shard is in every blob: keep one copy (the first) so the merged
 * run counts its tests once, with any task that failed in another copy failed in it too.
 */
function oneCopyPerFile(files: readonly RunnerTestFile[], everywhere: ReadonlySet<RunnerTestFile>): RunnerTestFile[] {
  const kept = new Map<string, RunnerTestFile>()
  const out: RunnerTestFile[] = []
  for (const file of files) {
    const key = `${file.projectName ?? ''}\0${file.filepath}`
    const first = kept.get(key)
    if (!everywhere.has(file) || !first) {
      if (everywhere.has(file)) kept.set(key, file)
      out.push(file)
      continue
    }
    const byId = new Map<string, RunnerTask>()
    walk(first, (task) => byId.set(task.id, task))
    walk(file, (task) => {
      const mine = byId.get(task.id)
      if (mine && task.result?.state === 'fail' && mine.result?.state !== 'fail') {
        mine.result = task.result
        mine.mode = 'run'
      }
    })
  }
  return out
}

async function mergeSuite(copies: readonly SuiteCopy[], root: string): Promise<MergedSuite> {
  const first = copies[0]!
  const label = `${relative(root, first.file.filepath) || first.file.filepath} > ${first.meta.suite}`
  const count = first.meta.shard!.count
  let result: EvalResult
  try {
    result = await recompute(copies, label)
  } catch (error) {
    const reason = `not merged: ${(error as Error).message.split('\n')[0]}`
    for (const copy of copies) {
      copy.meta.result = undefined
      copy.meta.records = undefined
      copy.meta.error = reason
      forEachDeferred(copy, (test, meta) => decide(copy, test, `${meta.deferred!.name} (merge failed)`, `${meta.deferred!.name}: ${reason}`))
    }
    return { label, outcome: { error: reason } }
  }
  const summary = summarise(result)
  const failed: string[] = []
  // Every copy must carry one definition of the suite; the checks are decided from it, never from a test's own stored bound.
  const definition = suiteDefinitionProblem(copies)
  const verdicts = new Map<string, string | undefined>()
  const shard = first.meta.shard!
  for (const copy of copies) {
    copy.meta.result = summary
    copy.meta.records = result.records.length <= META_RECORDS_LIMIT ? result.records : undefined
    copy.meta.error = undefined
    copy.meta.mergedFrom = count
    for (const [test, meta] of deferredTests(copy)) {
      const name = meta.deferred!.name
      if (!verdicts.has(name))
        verdicts.set(name, definition ?? (await verdictOf(meta, result, copy.meta, shard.maxFailureRate).catch((error: Error) => `${name}: ${error.message}`)))
      const problem = verdicts.get(name)
      if (problem !== undefined && !failed.includes(name)) failed.push(name)
      meta.result = summary
      decide(copy, test, mergedTestName(name, count), problem)
    }
  }
  return { label, outcome: { parts: count, failed } }
}

/** The suite's parts, checked and replayed through the evaluator: the run an unsharded suite would have made. */
async function recompute(copies: readonly SuiteCopy[], label: string): Promise<EvalResult> {
  const parts = copies.map(({ meta }) => {
    const shard = meta.shard!
    const where = `${label} (shard ${shard.index}/${shard.count})`
    if (shard.part === undefined) throw new Error(`shard ${shard.index}/${shard.count} did not finish scoring (${meta.error ?? 'no part recorded'})`)
    return parsePartFile(shard.part, where)
  })
  const run = reassemble(parts)
  const statistics = copies[0]!.meta.shard!.statistics as EvaluateOptions['statistics']
  return evaluateReassembled(run, statistics !== undefined ? { statistics } : {})
}

/** Why a deferred check fails on the merged result (the one gate's reason), or `undefined` when it passes. */
async function verdictOf(meta: ScepticTestMeta, result: EvalResult, suite: ScepticSuiteMeta, maxFailureRate: number): Promise<string | undefined> {
  const name = meta.deferred!.name
  const baseline = meta.deferred!.baseline
  const declared = { name: suite.suite, maxFailureRate }
  if (baseline) {
    const stored = await readBaseline(baseline.path)
    // The local gate's comparison, the other-suite guard included; a merge never writes a baseline.
    const { outcome } = decideBaseline(suite.suite, stored, baselineFromResult(suite.suite, result), {
      file: baseline.file,
      mode: 'none',
      ci: false,
      gate: baseline,
      neverWrites: 'the merge never writes one: record it with an unsharded run (vitest run, or vitest -u), review it and commit it',
    })
    const check = gateCheck(decideRun({ ...declared, baseline: true }, { result: summarise(result), baseline: outcome }), 'baseline')!
    suite.baseline = { ...outcome, pass: check.verdict === 'pass' }
    return check.verdict === 'pass' ? undefined : check.reason
  }
  const gate = decideRun({ ...declared, thresholds: { [meta.check]: suite.thresholds[meta.check] as Threshold } }, { result: summarise(result) })
  const rate = gateCheck(gate, 'failureRate')!
  const check = gateCheck(gate, meta.check)!
  if (rate.verdict !== 'pass') return rate.reason
  return check.verdict === 'pass' ? undefined : `expected ${name}: ${check.reason}`
}

/**
 * Why the shards' copies of a suite do not describe one definition, or `undefined`: every
 * copy declares the same thresholds, and each deferred threshold test is the one its suite
 * declares (its name and bound from the suite's thresholds). A blob edited by hand, or
 * shards run from different versions of the eval file, fail every deferred check.
 */
export function suiteDefinitionProblem(copies: readonly SuiteCopy[]): string | undefined {
  const first = JSON.stringify(copies[0]!.meta.thresholds ?? {})
  for (const copy of copies) {
    const thresholds = copy.meta.thresholds ?? {}
    if (JSON.stringify(thresholds) !== first)
      return `the shards ran different definitions of the suite (thresholds ${JSON.stringify(thresholds)} in shard ${copy.meta.shard?.index}, ${first} in another): merge blobs of one run`
    for (const [, meta] of deferredTests(copy)) {
      if (meta.check === 'baseline') continue
      const declared = Object.hasOwn(thresholds, meta.check) ? thresholds[meta.check] : undefined
      const name = declared === undefined ? undefined : thresholdTestName(meta.check, declared)
      if (name === undefined || name !== meta.deferred!.name || JSON.stringify(meta.bound) !== JSON.stringify(declared))
        return `the deferred test "${meta.deferred!.name}" is not one the suite declares (its thresholds are ${JSON.stringify(thresholds)}): the blob does not match its suite`
    }
  }
  return undefined
}

/** Turn a deferred (skipped) test into a decided one; a failure marks its suites and file failed. */
function decide(copy: SuiteCopy, test: RunnerTask, name: string, problem: string | undefined): void {
  test.name = name
  const path = test.fullName?.split(' > ') ?? []
  if (path.length > 0) test.fullName = [...path.slice(0, -1), name].join(' > ')
  if (test.fullTestName !== undefined) test.fullTestName = [...test.fullTestName.split(' > ').slice(0, -1), name].join(' > ')
  test.mode = 'run'
  test.result = {
    ...test.result,
    state: problem === undefined ? 'pass' : 'fail',
    ...(problem === undefined ? { errors: [] } : { errors: [{ name: 'AssertionError', message: problem, stack: `AssertionError: ${problem}` }] }),
  }
  // The skip's note and (Vitest 5) its recorded attempt, whose empty error list would hide this verdict's.
  delete (test.result as { note?: string }).note
  delete (test.result as { attempts?: unknown }).attempts
  if (problem === undefined) return
  for (const task of [copy.suite, copy.file] as RunnerTask[]) {
    task.result = { ...task.result, state: 'fail' }
    task.mode = 'run'
  }
}

function forEachDeferred(copy: SuiteCopy, fn: (test: RunnerTask, meta: ScepticTestMeta) => void): void {
  for (const [test, meta] of deferredTests(copy)) fn(test, meta)
}

/** The suite's tests that a shard deferred. */
function deferredTests(copy: SuiteCopy): [RunnerTask, ScepticTestMeta][] {
  const out: [RunnerTask, ScepticTestMeta][] = []
  walk(copy.suite, (task) => {
    const meta = (task.meta as Record<string, unknown>)[META_KEY] as ScepticTestMeta | undefined
    if (task.type === 'test' && meta?.deferred) out.push([task, meta])
  })
  return out
}

function walk(task: RunnerTask, visit: (task: RunnerTask) => void): void {
  visit(task)
  if ('tasks' in task) for (const child of task.tasks) walk(child, visit)
}

/**
 * The plugin's merge step, as a reporter: `onInit` runs after Vitest read the blobs and
 * before it reports them, which is when the tree can still be decided. After the run, any
 * deferred check left undecided (a blob whose suite meta went missing) fails the run.
 */
export class DecisionShardMerge implements Reporter {
  private vitest: Vitest | undefined

  async onInit(vitest: Vitest): Promise<void> {
    this.vitest = vitest
    const files = vitest.state.blobs?.files
    if (!vitest.config.mergeReports || !files) return
    for (const merged of await mergeDecisionShards(files, vitest.config.root)) {
      const o = merged.outcome
      const line =
        'error' in o
          ? `vitest-sceptic: ${merged.label}: ${o.error}`
          : `vitest-sceptic: ${merged.label}: merged ${o.parts} decision shard${o.parts === 1 ? '' : 's'}` +
            (o.failed.length > 0 ? `; failed: ${o.failed.join(', ')}` : '; every deferred check passed')
      if ('error' in o || o.failed.length > 0) vitest.logger.error(line)
      else vitest.logger.log(line)
    }
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!this.vitest?.config.mergeReports) return
    const undecided: string[] = []
    for (const module of testModules)
      for (const test of module.children.allTests()) {
        const meta = (test.meta() as Record<string, unknown>)[META_KEY] as ScepticTestMeta | undefined
        if (meta?.deferred && test.result().state === 'skipped') undecided.push(test.fullName)
      }
    if (undecided.length === 0) return
    process.exitCode = 1
    this.vitest.logger.error(`vitest-sceptic: ${undecided.length} check${undecided.length === 1 ? '' : 's'} deferred by decision shards not decided by the merge (e.g. ${undecided[0]}): the run fails`)
  }
}
