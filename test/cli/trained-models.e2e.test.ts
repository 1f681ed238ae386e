// The built CLI on the project's trained example models (examples/models/weights, written to ONNX
// by make-trained-models) and the held-out triage set: real, learned decisions.
// - The order-robustness panel finds the biased reader's slot bias toward A and none in the reader:
//   the slot-bias test at the verdict's α, Cramér's V's interval, and a slot-gap threshold.
// - Stopping early reaches the biased reader's failing order-consistency verdict on fewer decisions
//   than the set, and the reader's passing one, each the verdict the full run gives.
import { spawnSync } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { VERDICT_RULE } from '../../src/report/run-verdict.ts'
import { ROOT, sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-trained-')
const HELD_OUT = join(ROOT, 'examples/data/triage-heldout.jsonl')
const MODELS = ['reader', 'biased'] as const
type Model = (typeof MODELS)[number]
/** The gate README's sample holds both models to. */
const ORDER_GATE = 'orderConsistency=0.9'
/** The report marks a slot gap above 10 points; as a threshold, `slotSensitivityGap ≤ 0.1` is the docs' example. */
const SLOT_GAP_GATE = 'slotSensitivityGap=..0.1'

interface Json {
  n: number
  letterDistribution: Record<string, number>
  accuracyByGoldSlot: Record<string, number>
  slotSensitivityGap: number
  slotBias: { p: number; cramersV: number; cramersVInterval: [number, number] }
  ckld: number
  stopEarly?: { scored: number; total: number; stopped: boolean; verdicts: Record<string, string>; bounds: Record<string, { lower: number; upper: number }> }
  manifest: { notScored?: number }
}

const evaluate = async (model: Model, name: string, args: string[]) => {
  const out = join(dir, `${model}-${name}.json`)
  const r = await sceptic(['evaluate', HELD_OUT, '--model', join(dir, model), '--workers', '1', '--no-cache', '--json-out', out, ...args], { timeoutMs: 90_000 })
  return { ...r, json: JSON.parse(await readFile(out, 'utf8')) as Json }
}
type Run = Awaited<ReturnType<typeof evaluate>>
const full = {} as Record<Model, Run>
const stop = {} as Record<Model, Run>

beforeAll(async () => {
  const made = spawnSync(process.execPath, [join(ROOT, 'scripts/make-trained-models.mjs'), join(ROOT, 'examples/models/weights'), dir], { encoding: 'utf8' })
  if (made.status !== 0) throw new Error(`make-trained-models failed:\n${made.stderr}`)
  // Side by side: each run is mostly startup.
  await Promise.all(
    MODELS.flatMap((model) => [
      evaluate(model, 'full', ['--threshold', ORDER_GATE, '--threshold', SLOT_GAP_GATE]).then((r) => (full[model] = r)),
      evaluate(model, 'stop', ['--threshold', ORDER_GATE, '--stop-early']).then((r) => (stop[model] = r)),
    ]),
  )
}, 120_000)

const top = (shares: Record<string, number>) => Object.entries(shares).sort((a, b) => b[1] - a[1])[0]![0]

describe('the order-robustness panel on the trained models', () => {
  it('finds the biased reader\'s slot bias toward A: the slot-bias test, V\'s interval and the slot-gap gate', () => {
    const { code, stdout, json } = full.biased
    expect(code).toBe(1)
    expect(stdout).toMatch(/^verdict +answers by position:/m)
    expect(json.slotBias.p).toBeLessThan(VERDICT_RULE.alpha)
    expect(json.slotBias.cramersVInterval[0]).toBeGreaterThan(0)
    // Toward A: it is right most often when gold sits at A, and A is the letter it picks most.
    expect(top(json.accuracyByGoldSlot)).toBe('A')
    expect(top(json.letterDistribution)).toBe('A')
    expect(stdout).toMatch(/✗ slotSensitivityGap ≤ 0\.1 /)
    expect(stdout).toMatch(/✗ orderConsistency ≥ 0\.9 /)
  })

  it('finds none in the reader, whose picks follow gold more closely than the biased reader\'s (CKLD)', () => {
    const { code, stdout, json } = full.reader
    expect(code, stdout).toBe(0)
    expect(stdout).toMatch(/^verdict +reads the evidence:/m)
    expect(json.slotBias.p).toBeGreaterThanOrEqual(VERDICT_RULE.alpha)
    expect(stdout).toMatch(/✓ slotSensitivityGap ≤ 0\.1 /)
    expect(json.ckld).toBeLessThan(full.biased.json.ckld)
  })
})

describe('stopping early on the trained models', () => {
  it('reaches the biased reader\'s failing verdict on fewer decisions than the set, as the full run fails', () => {
    const { code, stdout, json } = stop.biased
    expect(code).toBe(1)
    expect(json.stopEarly).toMatchObject({ total: 80, stopped: true, verdicts: { orderConsistency: 'fail' } })
    expect(json.stopEarly!.scored).toBeLessThan(80)
    expect(json.n + json.manifest.notScored!).toBe(80)
    expect(json.stopEarly!.bounds.orderConsistency!.upper).toBeLessThan(0.9)
    expect(stdout).toMatch(new RegExp(`stopped early +decided after ${json.stopEarly!.scored} of 80 decisions`))
    expect(full.biased.stdout).toMatch(/✗ orderConsistency ≥ 0\.9 /)
  })

  it('holds the reader\'s passing verdict, as the full run passes', () => {
    const { code, stdout, json } = stop.reader
    expect(code, stdout).toBe(0)
    expect(json.stopEarly!.verdicts).toEqual({ orderConsistency: 'pass' })
    expect(json.stopEarly!.bounds.orderConsistency!.lower).toBeGreaterThanOrEqual(0.9)
    expect(full.reader.stdout).toMatch(/✓ orderConsistency ≥ 0\.9 /)
  })
})
