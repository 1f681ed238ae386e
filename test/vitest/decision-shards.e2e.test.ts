// End-to-end: `describeDecisions({ shard: 'decisions' })` under real `vitest run --shard i/2
// --reporter=blob` runs, then `vitest --merge-reports`, on test/fixtures/decision-shards.
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, test } from 'vitest'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { shardPositions } from '../../src/core/shards/spec.ts'
import { validateDecisions } from '../../src/core/decisions/load.ts'
import { ALL_RIGHT, decisions, reader, SIMPSON } from '../fixtures/decision-shards/data.ts'
import { useTempDir } from '../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest as spawnVitest } from '../helpers/vitest.ts'

const E2E_TIMEOUT = 240_000
const PROJECT = join(FIXTURES, 'decision-shards')
const dist = useDistSnapshot()
const scratch = useTempDir('sceptic-decision-shards-')
const vitest = (args: string[]) => spawnVitest(['run', '--root', PROJECT, ...args], { SCEPTIC_E2E_DIST: dist() })
const shard = (i: number, dir: string) => vitest([`--shard=${i}/2`, '--reporter=verbose', '--reporter=blob', `--outputFile.blob=${join(dir, `blob-${i}.json`)}`])

test('the fixture: each half of "simpson" alone has balanced accuracy 5/6 (passes 0.8), the whole 0.7 (fails)', async () => {
  const all = validateDecisions(decisions('s', SIMPSON))
  for (const index of [1, 2]) {
    const half = shardPositions(all, { index, count: 2 }).map((p) => all[p]!)
    expect(half).toHaveLength(10)
    expect((await evaluateWithScorer(half, reader, { statistics: false })).balancedAccuracy).toBeCloseTo(5 / 6, 12)
  }
  expect((await evaluateWithScorer(all, reader, { statistics: false })).balancedAccuracy).toBeCloseTo(0.7, 12)
  expect(validateDecisions(decisions('r', ALL_RIGHT))).toHaveLength(20)
})

describe('vitest --shard i/2 --reporter=blob, then vitest --merge-reports', () => {
  test('every shard runs the split file and defers its thresholds; the merge decides them once on the whole and fails on the named one', async () => {
    const blobs = join(scratch, 'blobs')
    const [one, two] = [await shard(1, blobs), await shard(2, blobs)]
    for (const [i, run] of [one, two].entries()) {
      // A shard checks nothing on partial data, and says so in the test names.
      expect(run.code, run.output).toBe(0)
      expect(run.output).toContain(`simpson > balancedAccuracy ≥ 0.8 — deferred to merge (shard ${i + 1}/2)`)
      expect(run.output).toContain(`all right > orderConsistency ≥ 0.9 — deferred to merge (shard ${i + 1}/2)`)
      expect(run.output).not.toContain('SCEPTIC REPORT')
    }
    // The ordinary file is still split by Vitest: it runs in exactly one shard.
    expect([one, two].filter((run) => run.output.includes('plain file'))).toHaveLength(1)
    expect(readdirSync(blobs).sort()).toEqual(['blob-1.json', 'blob-2.json'])

    const merged = await vitest([`--merge-reports=${blobs}`, '--reporter=verbose'])
    expect(merged.code, merged.output).toBe(1)
    expect(merged.output).toContain('✓ evals/split.eval.ts > all right > balancedAccuracy ≥ 0.9 (merged from 2 shards)')
    expect(merged.output).toContain('✓ evals/split.eval.ts > all right > orderConsistency ≥ 0.9 (merged from 2 shards)')
    expect(merged.output).toContain('FAIL  evals/split.eval.ts > simpson > balancedAccuracy ≥ 0.8 (merged from 2 shards)')
    expect(merged.output).toContain('expected balancedAccuracy ≥ 0.8: 0.700 is below the bound 0.80')
    // Each file once: the copies of the split file from both shards are one module.
    expect(merged.output).toMatch(/Test Files\s+1 failed \| 1 passed \(2\)/)
    expect(merged.output).toMatch(/Tests\s+1 failed \| 3 passed \(4\)/)
    // The report is of the whole suites (20 decisions each), recomputed from the parts.
    expect(merged.output).toContain('SCEPTIC REPORT  2 suites')
    expect(merged.output).toMatch(/simpson\s+evals\/split\.eval\.ts\n[^]*?decisions\s+20\n[^]*?balanced accuracy\s+70\.0%\s+✗ < 80\.0%/)
    expect(merged.output).toMatch(/all right\s+evals\/split\.eval\.ts\n[^]*?decisions\s+20\n[^]*?balanced accuracy\s+100\.0%\s+✓ ≥ 90\.0%/)
  }, E2E_TIMEOUT)

  test('a merge with a missing shard fails every deferred check, naming the shard', async () => {
    const blobs = join(scratch, 'blobs')
    const partial = join(scratch, 'only-shard-1')
    mkdirSync(partial, { recursive: true })
    copyFileSync(join(blobs, 'blob-1.json'), join(partial, 'blob-1.json'))
    const merged = await vitest([`--merge-reports=${partial}`, '--reporter=verbose'])
    expect(merged.code, merged.output).toBe(1)
    for (const name of ['all right > balancedAccuracy ≥ 0.9', 'all right > orderConsistency ≥ 0.9', 'simpson > balancedAccuracy ≥ 0.8'])
      expect(merged.output).toContain(`FAIL  evals/split.eval.ts > ${name} (merge failed)`)
    expect(merged.output).toContain('not merged: shard 2/2 missing: merge needs every part of the run')
    expect(merged.output).toMatch(/all right\s+evals\/split\.eval\.ts\nnot scored: not merged: shard 2\/2 missing/)
  }, E2E_TIMEOUT)
})
