// A baseline scored on another CPU kind: fp32 rounding may swap a near-tie, so flips at near-ties
// are named and not counted; any other flip (an 8-bit kernel's, the model's) is counted as always.
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, test } from 'vitest'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { NEAR_TIE_MARGIN } from '../../../src/core/evaluate/argmax.ts'
import type { EvalResult } from '../../../src/core/index.ts'
import type { ScoreFn } from '../../../src/core/scorer/contract.ts'
import { cpuKind } from '../../../src/core/support/cpu-kind.ts'
import { baselineFromResult, compareWithBaseline, readBaseline, writeBaseline, type BaselineFile } from '../../../src/suite/baseline/file.ts'
import { baselineLooks } from '../../../src/suite/baseline/looks.ts'
import { nearTieAllowance } from '../../../src/suite/baseline/cpu-kind.ts'
import { compareSequentially } from '../../../src/suite/baseline/sequential.ts'
import { fakeResult } from '../../helpers/fake-result.ts'

const gate = { alpha: 0.05, detectableDrop: 0.1 }
const quiet = { onWarning: () => {} }
const VNNI = 'x86-64 AVX-512 VNNI'
const AVX2 = 'x86-64 AVX2'

/** A baseline of 40 decisions, all consistent; `nearTies` of them marked near-ties; scored on `cpu`. */
function baseline(cpu: string | undefined, consistent: boolean[], nearTies: ReadonlySet<number> = new Set()): BaselineFile {
  const result = fakeResult(consistent)
  const records = result.records.map((record, i) => (nearTies.has(i) ? { ...record, nearTie: true as const } : record))
  const manifest = cpu === undefined ? result.manifest : { ...result.manifest, cpu: { kind: cpu, model: 'test CPU' } }
  return baselineFromResult('suite', { ...result, records, manifest } as EvalResult)
}

// 500 decisions: the gate names up to 5 near-tie flips (1%) without counting them.
const allConsistent = Array<boolean>(500).fill(true)
const fiveFlipped = [...Array<boolean>(5).fill(false), ...Array<boolean>(495).fill(true)]
const firstFive = new Set([0, 1, 2, 3, 4])
const firstFiveIds = ['d-0', 'd-1', 'd-2', 'd-3', 'd-4']

describe('a baseline from another CPU kind', () => {
  test('flips at near-ties are named and not counted; on the same CPU kind they regress', () => {
    const before = baseline(VNNI, allConsistent)
    // Five decisions flipped, each a near-tie in this run: on another CPU kind, rounding can do that.
    const elsewhere = compareWithBaseline(before, baseline(AVX2, fiveFlipped, firstFive), gate)
    expect(elsewhere).toMatchObject({ status: 'pass', worse: 0, better: 0, cpus: { baseline: VNNI, now: AVX2 } })
    expect(elsewhere.nearTieFlips).toEqual(firstFiveIds)
    expect(elsewhere.message).toContain(`the baseline was scored on ${VNNI}, this run on ${AVX2}: 5 decisions flipped at a near-tie`)
    expect(elsewhere.message).toContain('were named and not counted: "d-0", "d-1", "d-2", "d-3", "d-4"')
    // The same flips on the same CPU kind are the model's: counted, and they regress.
    const here = compareWithBaseline(baseline(VNNI, allConsistent), baseline(VNNI, fiveFlipped, firstFive), gate)
    expect(here).toMatchObject({ status: 'regressed', worse: 5 })
    expect(here.nearTieFlips).toBeUndefined()
    expect(here.message).not.toContain('near-tie')
  })

  test('a near-tie at baseline counts as well as one now; a flip that is no near-tie is counted (8-bit kernels are re-checked)', () => {
    const atBaseline = compareWithBaseline(baseline(VNNI, allConsistent, firstFive), baseline(AVX2, fiveFlipped), gate)
    expect(atBaseline).toMatchObject({ status: 'pass', worse: 0, nearTieFlips: firstFiveIds })
    // Clear flips across CPU kinds (as an 8-bit kernel's can be): counted, and the report says which CPUs.
    const clear = compareWithBaseline(baseline(VNNI, allConsistent), baseline(AVX2, fiveFlipped), gate)
    expect(clear).toMatchObject({ status: 'regressed', worse: 5, nearTieFlips: [] })
    expect(clear.message).toContain(`the baseline was scored on ${VNNI}, this run on ${AVX2}: no decision flipped at a near-tie`)
  })

  test('more near-tie flips than rounding explains fail the gate: a baseline whose every decision is marked a near-tie exempts nothing', () => {
    expect([nearTieAllowance(0), nearTieAllowance(40), nearTieAllowance(299), nearTieAllowance(500)]).toEqual([2, 2, 2, 5])
    // One past the allowance, with no counted flip: fails, and says why.
    const sixFlipped = [...Array<boolean>(6).fill(false), ...Array<boolean>(494).fill(true)]
    const six = compareWithBaseline(baseline(VNNI, allConsistent), baseline(AVX2, sixFlipped, new Set([0, 1, 2, 3, 4, 5])), gate)
    expect(six).toMatchObject({ status: 'regressed', pass: false, worse: 0 })
    expect(six.message).toContain('6 decisions flipped at a near-tie')
    expect(six.message).toContain('more than rounding explains (at most 5 of 500 paired decisions), so the baseline gate fails')
    // The attack: a hand-edited baseline that claims another CPU kind and marks every decision a near-tie.
    const edited = baseline(VNNI, allConsistent, new Set(allConsistent.keys()))
    const drop = allConsistent.map((_, i) => i >= 40)
    const outcome = compareWithBaseline(edited, baseline(AVX2, drop), gate)
    expect(outcome.nearTieFlips).toHaveLength(40)
    expect(outcome).toMatchObject({ status: 'regressed', pass: false })
  })

  test('a run that stopped early names near-tie flips and fails past the allowance too', () => {
    const stop = { alpha: 0.05, scored: 500, total: 1000, stopped: true, verdicts: {}, bounds: {} }
    const within = compareSequentially(baseline(VNNI, allConsistent), baseline(AVX2, fiveFlipped, firstFive), gate, stop)
    expect(within).toMatchObject({ pass: true, nearTieFlips: firstFiveIds })
    expect(within.message).toContain('were named and not counted')
    const edited = compareSequentially(baseline(VNNI, allConsistent, new Set(allConsistent.keys())), baseline(AVX2, allConsistent.map((_, i) => i >= 40)), gate, stop)
    expect(edited).toMatchObject({ status: 'regressed', pass: false })
    expect(edited.message).toContain('so the baseline gate fails')
  })

  test('a baseline that does not say its CPU kind (written before it was recorded) counts every flip', () => {
    const outcome = compareWithBaseline(baseline(undefined, allConsistent, firstFive), baseline(AVX2, fiveFlipped, firstFive), gate)
    expect(outcome).toMatchObject({ status: 'regressed', worse: 5 })
  })

  test('property: across CPU kinds, counted + named flips = flips, and a named flip is always a near-tie', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ before: fc.boolean(), now: fc.boolean(), tieBefore: fc.boolean(), tieNow: fc.boolean() }), { minLength: 1, maxLength: 60 }),
        fc.boolean(),
        (rows, sameCpu) => {
          const tiesBefore = new Set(rows.flatMap((row, i) => (row.tieBefore ? [i] : [])))
          const tiesNow = new Set(rows.flatMap((row, i) => (row.tieNow ? [i] : [])))
          const before = baseline(VNNI, rows.map((row) => row.before), tiesBefore)
          const now = baseline(sameCpu ? VNNI : AVX2, rows.map((row) => row.now), tiesNow)
          const outcome = compareWithBaseline(before, now, gate)
          const flips = rows.filter((row) => row.before !== row.now).length
          const named = outcome.nearTieFlips ?? []
          expect(outcome.worse! + outcome.better! + named.length).toBe(flips)
          if (sameCpu) expect(named).toEqual([])
          // Past the allowance the gate fails whatever the counted flips say.
          if (named.length > nearTieAllowance(outcome.paired!)) expect(outcome.pass).toBe(false)
          for (const id of named) {
            const i = Number(id.slice(2))
            expect(rows[i]!.before).not.toBe(rows[i]!.now)
            expect(rows[i]!.tieBefore || rows[i]!.tieNow).toBe(true)
          }
        },
      ),
    )
  })

  test('the file stores the CPU kind and the near-ties, and reads back; a file without them still reads', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sceptic-cpu-baseline-'))
    try {
      const file = join(dir, 'suite.json')
      const written = baseline(AVX2, allConsistent, new Set([3]))
      await writeBaseline(file, written)
      const read = await readBaseline(file)
      expect(read).toEqual(written)
      expect(read!.cpu).toBe(AVX2)
      expect(read!.decisions['d-3']).toMatchObject({ nearTie: true })
      expect(read!.decisions['d-4']).not.toHaveProperty('nearTie')
      const old = baseline(undefined, allConsistent)
      await writeBaseline(file, old)
      expect(await readBaseline(file)).toEqual(old)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  test("a run that may stop early leaves a near-tie unpaired when the baseline is another CPU kind's", async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sceptic-cpu-looks-'))
    try {
      const file = join(dir, 'suite.json')
      const other = cpuKind().kind === VNNI ? AVX2 : VNNI
      const record = fakeResult([true]).records[0]!
      for (const [cpu, paired] of [[other, false], [cpuKind().kind, true]] as const) {
        await writeBaseline(file, baseline(cpu, [true]))
        const looks = await baselineLooks('suite', file, gate)
        expect(looks!.pair({ ...record, nearTie: true }) !== undefined).toBe(paired)
        expect(looks!.pair(record)).toBeDefined()
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('records name near-ties', () => {
  const decision = (id: string): Decision => ({
    id,
    state: id,
    criterion: { key: 'k', options: [{ id: 'x', text: 'x' }, { id: 'y', text: 'y' }, { id: 'z', text: 'z' }] },
    answer_id: 'x',
  })
  /** Option x leads option y by `gap` (in probability) under every ordering, except where `gap` is 0: a tie. */
  const byGap = (gaps: Record<string, number>): ScoreFn => (requests) =>
    requests.map(({ state, criterion }) => {
      const gap = gaps[state]!
      const p: Record<string, number> = { x: 0.45 + gap / 2, y: 0.45 - gap / 2, z: 0.1 }
      return criterion.options.map((option) => p[option.id]!)
    })

  test('a top-two gap under the margin is a near-tie; an exact tie and a clear gap are not', async () => {
    const gaps = { near: NEAR_TIE_MARGIN / 4, edge: NEAR_TIE_MARGIN * 0.99, clear: NEAR_TIE_MARGIN * 10, tie: 0 }
    const result = await evaluateWithScorer(Object.keys(gaps).map(decision), byGap(gaps), { debias: 'cyclic', ...quiet })
    const flags = Object.fromEntries(result.records.map((record) => [record.id, record.nearTie ?? false]))
    expect(flags).toEqual({ near: true, edge: true, clear: false, tie: false })
    // The tie is no answer, as ever; the near-tie is an answer, named.
    expect(result.records.find((record) => record.id === 'tie')!.prediction).toBeNull()
    expect(result.records.find((record) => record.id === 'near')!.prediction).toBe('x')
    // The baseline carries the flag per decision.
    const stored = baselineFromResult('suite', result)
    expect(Object.entries(stored.decisions).filter(([, d]) => d.nearTie).map(([id]) => id)).toEqual(['near', 'edge'])
    expect(stored.cpu).toBe(cpuKind().kind)
  })
})
