// Model tools chained, round 3: `quantize-model` on an `optimize-model` output writes a model
// that scores (its letter-column sidecar goes along), with the probabilities of the same
// quantization of the original model, for every format; with --calibration too.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../../helpers/run.ts'
import { cleanup, temp } from '../helpers.ts'

afterAll(cleanup)

const TINY = join(ROOT, 'examples/models/tiny')
const TICKETS = join(ROOT, 'examples/data/tickets.jsonl')

/** The records' probabilities of `sceptic evaluate --model dir`, with the run's exit code and stderr. */
async function probabilities(model: string): Promise<{ code: number | null; stderr: string; rows: Record<string, number>[] }> {
  const records = join(temp(), 'records.jsonl')
  const { code, stderr } = await sceptic(['evaluate', TICKETS, '--model', model, '--workers', '1', '--no-cache', '--no-statistics', '--records-out', records])
  const rows = code === 0 ? readFileSync(records, 'utf8').trim().split('\n').map((line) => JSON.parse(line).probabilities as Record<string, number>) : []
  return { code, stderr, rows }
}

const maxDifference = (a: Record<string, number>[], b: Record<string, number>[]) => Math.max(...a.flatMap((row, i) => Object.keys(row).map((id) => Math.abs(row[id]! - b[i]![id]!))))

describe('quantize-model on an optimize-model output', () => {
  const optimized = join(temp(), 'optimized')
  const ready = sceptic(['optimize-model', TINY, '--model-out', optimized]).then(({ code, stderr }) => expect(code, stderr).toBe(0))

  const FORMATS: [string, string[]][] = [
    ['nbits 4-bit', []],
    ['nbits 8-bit', ['--bits', '8']],
    ['int8 MatMulInteger', ['--format', 'int8']],
  ]
  for (const [name, flags] of FORMATS)
    it(`${name}: the quantized model scores, as the same quantization of the original does`, async () => {
      await ready
      const [fromOptimized, fromOriginal] = [join(temp(), 'q-opt'), join(temp(), 'q-orig')]
      for (const [input, out] of [[optimized, fromOptimized], [TINY, fromOriginal]] as const) {
        const { code, stderr } = await sceptic(['quantize-model', input, '--model-out', out, ...flags])
        expect(code, stderr).toBe(0)
      }
      expect(existsSync(join(fromOptimized, 'sceptic-readout.json'))).toBe(true)
      const [a, b] = [await probabilities(fromOptimized), await probabilities(fromOriginal)]
      expect(a.code, a.stderr).toBe(0)
      expect(b.code, b.stderr).toBe(0)
      expect(a.rows).toHaveLength(56)
      expect(maxDifference(a.rows, b.rows)).toBeLessThan(1e-4)
    }, 90_000)

  it('with --calibration: written with its record beside the sidecar, and it scores', async () => {
    await ready
    const out = join(temp(), 'q-cal')
    const { code, stderr } = await sceptic(['quantize-model', optimized, '--model-out', out, '--calibration', TICKETS, '--force'])
    expect(code, stderr).toBe(0)
    expect(existsSync(join(out, 'sceptic-readout.json'))).toBe(true)
    const scored = await probabilities(out)
    expect(scored.code, scored.stderr).toBe(0)
    expect(scored.rows).toHaveLength(56)
  }, 180_000)
})
