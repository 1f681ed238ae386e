// `quantize-model --calibration`: the greedy that keeps float what moves decisions, its
// agreement measure, and the CLI end to end on a small generated model: agreement printed,
// refusal below the target (nothing written), `--force`, and the metadata in a run's manifest.
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { DecisionRecord } from '../../../../src/core/result/record.ts'
import { agreement, searchKeepFloat, type Trial } from '../../../../src/scorers/onnx/transform/calibrate.ts'
import { sceptic } from '../../../helpers/run.ts'
import { cleanupTemp, makeModel, tempDir } from '../helpers.ts'

afterAll(() => cleanupTemp())

const record = (prediction: string, probabilities: Record<string, number>, picks: string[]): DecisionRecord =>
  ({ id: 'd', criterion: 'c', gold: 'a', prediction, probabilities, picks, letters: picks.map(() => 'A') }) as DecisionRecord

describe('agreement with fp32', () => {
  it('counts only clear decisions (margin ≥ 0.05), and their per-ordering picks', () => {
    const fp32 = [record('a', { a: 0.6, b: 0.4 }, ['a', 'a']), record('a', { a: 0.52, b: 0.48 }, ['a', 'b']), record('b', { a: 0.2, b: 0.8 }, ['b', 'b'])]
    const other = [record('a', { a: 0.55, b: 0.45 }, ['a', 'b']), record('b', { a: 0.4, b: 0.6 }, ['b', 'b']), record('a', { a: 0.7, b: 0.3 }, ['a', 'b'])]
    const a = agreement(fp32, other)
    expect(a.clear).toBe(2)
    expect(a.decisions).toBe(0.5)
    expect(a.picks).toBe(2 / 4)
    expect(a.moved).toBeCloseTo(0.05 + 0.05 + 0.5 + 0.5, 12)
  })
})

describe('the greedy search', () => {
  // A fake model: quantizing a "bad" unit loses 10 points of agreement; `moved` grows with each.
  const fake = (bad: string[]) => async (keep: ReadonlySet<string>): Promise<Trial> => {
    const hurt = bad.filter((u) => !keep.has(u)).length
    return { keptFloat: [...keep], decisions: 1 - 0.1 * hurt, picks: 1 - 0.1 * hurt, moved: hurt, seconds: 1 }
  }
  const units = ['a', 'b', 'c', 'd', 'e']
  it('keeps float the most sensitive units first, and only as many as the target needs', async () => {
    const { chosen, trials } = await searchKeepFloat(units, 0.95, fake(['d', 'b']))
    expect(new Set(chosen!.keptFloat)).toEqual(new Set(['d', 'b']))
    expect(trials).toBe(1 + units.length + 2)
    expect((await searchKeepFloat(units, 0.85, fake(['d', 'b']))).chosen!.keptFloat).toHaveLength(1)
    expect((await searchKeepFloat(units, 0.8, fake(['d', 'b']))).chosen!.keptFloat).toEqual([])
  })
  it('finds nothing when every unit hurts (one stays quantized) or the float budget is too small', async () => {
    expect((await searchKeepFloat(units, 1, fake(units))).chosen).toBeUndefined()
    const capped = await searchKeepFloat(units, 0.95, fake(['d', 'b']), 1)
    expect(capped.chosen).toBeUndefined()
    expect(capped.best.decisions).toBeCloseTo(0.9, 12)
  })
})

describe('sceptic quantize-model --calibration (small generated model)', () => {
  const dir = makeModel({ tokenizer: 'bpe' })
  const texts = ['Billing', 'Technical support', 'Account and login', 'Shipping']
  const data = join(tempDir(), 'calibration.jsonl')
  writeFileSync(
    data,
    Array.from({ length: 24 }, (_, i) =>
      JSON.stringify({ id: `d${i}`, state: `Ticket ${i}: the customer writes about ${texts[i % 4]} and ${texts[(i * 3 + 1) % 4]} again.`, criterion: { key: 'queue', question: 'Which queue?', options: texts.map((text, j) => ({ id: `o${j}`, text })) }, answer_id: `o${i % 4}` }),
    ).join('\n') + '\n',
  )
  const args = (out: string, ...more: string[]) => ['quantize-model', dir, '--model-out', out, '--bits', '4', '--calibration', data, '--debias', 'none', ...more]

  it('keeps float what moves decisions until the target holds, prints the agreement, and every run on it records it', async () => {
    const out = join(tempDir(), 'q4')
    const made = await sceptic(args(out, '--min-agreement', '1'))
    expect(made.stderr).toMatch(/calibration: 0 MatMuls float: decisions \d/)
    expect(made.code).toBe(0)
    expect(made.stdout).toMatch(/agreement with fp32 on \d+ clear of 24 calibration decisions: decisions 100\.0%, per-ordering picks 100\.0% \(target 100\.0%\); speed-up [\d.]+× fp32/)
    const info = JSON.parse(readFileSync(join(out, 'quantization.json'), 'utf8'))
    expect(info.agreement).toEqual({ decisions: 1, picks: 1 })
    expect(info.forced).toBe(false)
    // 4-bit everywhere moved a decision here (the refusal test below), so something stayed float, and it is printed.
    expect(info.keptFloat.length).toBeGreaterThan(0)
    expect(made.stdout).toContain(`kept float32: ${info.keptFloat.join(', ')}`)
    const json = join(tempDir(), 'run.json')
    const run = await sceptic(['evaluate', data, '--model', out, '--debias', 'none', '--json-out', json])
    expect(run.code).toBe(0)
    expect(JSON.parse(readFileSync(json, 'utf8')).manifest.quantization).toEqual(info)
    // optimize-model output of it carries the record (the letter head gives the same probabilities).
    const letters = join(tempDir(), 'q4-letters')
    expect((await sceptic(['optimize-model', out, '--model-out', letters])).code).toBe(0)
    expect(JSON.parse(readFileSync(join(letters, 'quantization.json'), 'utf8'))).toEqual(info)
  }, 30_000)

  it('refuses to write a model below the target (one line, exit 2, nothing written); --force writes it, marked', async () => {
    const out = join(tempDir(), 'refused')
    const refused = await sceptic(args(out, '--min-agreement', '1', '--max-float', '0'))
    expect(refused.code).toBe(2)
    expect(refused.stderr.trim().split('\n').at(-1)).toMatch(/^sceptic: ConfigError: quantize-model: no candidate keeps 100\.0% of the \d+ clear calibration decisions \(best [\d.]+% with 0 of \d+ MatMuls float\); nothing written/)
    expect(existsSync(out)).toBe(false)
    const forced = await sceptic(args(out, '--min-agreement', '1', '--max-float', '0', '--force'))
    expect(forced.code).toBe(0)
    expect(forced.stdout).toMatch(/NOT MET: written with --force/)
    expect(JSON.parse(readFileSync(join(out, 'quantization.json'), 'utf8')).forced).toBe(true)
  }, 30_000)

  it('a refusal leaves an existing --model-out folder as it was: candidates live in a folder of its own', async () => {
    const out = join(tempDir(), 'users-folder')
    mkdirSync(out)
    writeFileSync(join(out, 'notes.txt'), 'mine')
    const refused = await sceptic(args(out, '--min-agreement', '1', '--max-float', '0'))
    expect(refused.code).toBe(2)
    expect(readdirSync(out)).toEqual(['notes.txt'])
    expect(readFileSync(join(out, 'notes.txt'), 'utf8')).toBe('mine')
  }, 30_000)

  it('refuses calibration options without --calibration', async () => {
    const bad = await sceptic(['quantize-model', dir, '--model-out', join(tempDir(), 'x'), '--force'])
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/apply only with --calibration/)
  })
})
