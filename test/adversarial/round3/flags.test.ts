// A numeric flag given an empty or blank value is refused by name (exit 2): `Number("")` is 0,
// which passed every range check (`--min-agreement ""` quantized with no agreement asked).
// Swept over every numeric flag of every command.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { sceptic } from '../../helpers/run.ts'
import { cleanup, decisions, FIRST_SCORER, temp, writeData, writeScorer } from '../helpers.ts'

afterAll(cleanup)

const dir = temp('sceptic-flags-')
const data = writeData(dir, decisions(6))
const scorer = writeScorer(dir, FIRST_SCORER)
const model = join(dir, 'no-model')

/** Each command with one numeric flag set to VALUE. */
const CASES: [flag: string, args: (value: string) => string[]][] = [
  ['min-agreement', (v) => ['quantize-model', model, '--model-out', join(dir, 'q'), '--calibration', data, '--min-agreement', v]],
  ['min-pick-agreement', (v) => ['quantize-model', model, '--model-out', join(dir, 'q'), '--calibration', data, '--min-pick-agreement', v]],
  ['max-float', (v) => ['quantize-model', model, '--model-out', join(dir, 'q'), '--calibration', data, '--max-float', v]],
  ['bits', (v) => ['quantize-model', model, '--model-out', join(dir, 'q'), '--bits', v]],
  ['accuracy-level', (v) => ['quantize-model', model, '--model-out', join(dir, 'q'), '--accuracy-level', v]],
  ['seed', (v) => ['split', data, '--eval-fraction', '0.5', '--train-out', join(dir, 't.jsonl'), '--eval-out', join(dir, 'e.jsonl'), '--seed', v]],
  ['seed', (v) => ['compare', data, data, '--seed', v]],
  ['resamples', (v) => ['compare', data, data, '--resamples', v]],
  ['batch-size', (v) => ['evaluate', data, '--scorer', scorer, '--batch-size', v]],
  ['workers', (v) => ['evaluate', data, '--model', model, '--workers', v]],
  ['timeout', (v) => ['evaluate', data, '--scorer', scorer, '--timeout', v]],
]

describe('an empty or blank numeric flag is refused by name', () => {
  it.each(CASES.flatMap(([flag, args]) => ['', ' '].map((value) => [`${args(value)[0]} --${flag} ${JSON.stringify(value)}`, flag, args(value)] as const)))(
    '%s',
    async (_, flag, args) => {
      const { code, stderr } = await sceptic(args, { timeoutMs: 30_000 })
      expect(code, stderr).toBe(2)
      expect(stderr.trim().split('\n')).toHaveLength(1)
      expect(stderr).toMatch(new RegExp(`--${flag} must be`))
    },
  )
})
