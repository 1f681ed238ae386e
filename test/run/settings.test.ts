// RunSettings: every option has one rule, stated once, and every face (evaluateWithScorer,
// describeDecisions, the plugin's suite defaults, the CLI) applies it with the same sentence.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { EVALUATE_DEFAULTS, EVALUATE_FIELDS, EVALUATE_RULES } from '../../src/core/evaluate/settings.ts'
import { PartSettingsSchema } from '../../src/core/shards/part-file.ts'
import { ConfigError } from '../../src/core/support/errors.ts'
import { parseRunSettings, RUN_DEFAULTS, RUN_FIELDS, RUN_RULES, RunSettingsSchema, SUITE_DEFAULT_KEYS } from '../../src/run/settings.ts'
import { suiteDefaultsFrom } from '../../src/vitest/plugin/suite-defaults.ts'
import { describeDecisions } from '../../src/vitest/suite/describe-decisions.ts'
import { sceptic } from '../helpers/run.ts'
import { alwaysFirst, decision } from '../helpers/decisions.ts'

/** Closed-form oracles, written apart from the schema: is `v` a valid value of each numeric option? */
const VALID: Record<string, (v: number) => boolean> = {
  prideFraction: (v) => v > 0 && v <= 1,
  epochs: (v) => Number.isInteger(v) && v >= 1 && v <= 1000,
  chunkSize: (v) => Number.isInteger(v) && v >= 1 && v <= 100_000,
  seed: (v) => Number.isInteger(v) && v >= 0 && v <= Number.MAX_SAFE_INTEGER,
  timeout: (v) => v > 0 && v <= 1e12,
  maxFailureRate: (v) => v >= 0 && v <= 1,
}

/** Numbers that sit on or next to every bound, and ones past any bound. */
const adversarialNumber = fc.oneof(
  fc.constantFrom(0, -0, 1, -1, 0.5, 1.5, 1000, 1001, 100_000, 100_001, 1e12, 1e12 + 1, Number.MAX_SAFE_INTEGER, 2 ** 53, Number.NaN, Infinity, -Infinity, Number.MIN_VALUE, 1 - 2 ** -53),
  fc.double({ noNaN: false }),
  fc.integer({ min: -5, max: 2_000_000 }),
)

const quiet = { onWarning: () => {} }
const data = [decision(2, 0), decision(2, 1)]

/** The message a face gives for `options`, or 'ok' when it accepts them. */
function refusal(run: () => unknown): string {
  try {
    run()
    return 'ok'
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    return (error as Error).message
  }
}

describe('RunSettings', () => {
  it('states a rule for every option and every default passes its own rule', () => {
    for (const key of Object.keys(RUN_FIELDS)) expect(RUN_RULES[key], key).toEqual(expect.any(String))
    for (const [key, value] of Object.entries(RUN_DEFAULTS)) expect(RUN_FIELDS[key as keyof typeof RUN_FIELDS].safeParse(value).success, key).toBe(true)
    expect(RunSettingsSchema.parse({})).toEqual({ ...RUN_DEFAULTS })
    expect(EVALUATE_RULES).toMatchObject(Object.fromEntries(Object.keys(EVALUATE_FIELDS).map((k) => [k, expect.any(String)])))
  })

  it('the suite defaults and the part-file settings are views of it', () => {
    for (const key of SUITE_DEFAULT_KEYS) expect(Object.keys(RUN_FIELDS)).toContain(key)
    for (const key of Object.keys(PartSettingsSchema.shape)) expect(Object.keys(EVALUATE_DEFAULTS)).toContain(key)
    // A value the run refuses is refused in a part file too: one rule.
    expect(PartSettingsSchema.safeParse({ debias: 'sideways', seed: 0, epochs: 1, reducer: 'mean', average: 'probability', storePrompts: false }).success).toBe(false)
    expect(PartSettingsSchema.safeParse({ debias: 'cyclic', seed: 0, epochs: 1001, reducer: 'mean', average: 'probability', storePrompts: false }).success).toBe(false)
  })

  it('every numeric option: valid exactly when the closed-form oracle says so, with one sentence on every face', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(VALID)), adversarialNumber, async (key, value) => {
        const valid = VALID[key]!(value)
        const settings = refusal(() => parseRunSettings({ [key]: value }))
        expect(settings === 'ok', `${key}=${value}: ${settings}`).toBe(valid)
        if (valid) return
        const sentence = `${key} must be ${RUN_RULES[key]}, got ${String(value)}`
        expect(settings).toBe(sentence)
        // The plugin names the option it was given; the suite names itself; both keep the sentence.
        if ((SUITE_DEFAULT_KEYS as readonly string[]).includes(key)) expect(refusal(() => suiteDefaultsFrom({ [key]: value }))).toBe(`vitest-sceptic: sceptic({ ${key} }): ${sentence}`)
        expect(refusal(() => describeDecisions('s', { data, scorer: alwaysFirst, [key]: value }))).toBe(`describeDecisions("s"): ${sentence}`)
        if (key in EVALUATE_FIELDS) await expect(evaluateWithScorer(data, alwaysFirst, { [key]: value, ...quiet })).rejects.toThrow(sentence)
      }),
      { numRuns: 300 },
    )
  })

  it('non-numeric options: the same rule on every face', async () => {
    const cases: [string, unknown, string][] = [
      ['debias', 'sideways', 'debias must be one of none, cyclic, permutation, calibrated, pride, got "sideways"'],
      ['average', 'median', 'average must be one of probability, log, got "median"'],
      ['statistics', { resamples: 0 }, 'statistics.resamples must be an integer ≥ 1 and ≤ 100,000, got 0'],
      ['statistics', { level: 1 }, 'statistics.level must be in (0, 1), got 1'],
      ['statistics', { bootstrap: 1 }, 'unknown option `statistics.bootstrap`'],
      ['stopEarly', { alpha: 1 }, 'stopEarly.alpha must be in (0, 1), got 1'],
      ['stopEarly', { alfa: 0.1 }, 'unknown option `stopEarly.alfa`'],
      ['reducer', 'pass_at_0', 'reducer "pass_at_0" is not known'],
    ]
    for (const [key, value, sentence] of cases) {
      expect(refusal(() => parseRunSettings({ [key]: value }))).toContain(sentence)
      // A misspelled key is refused by the options' schema, where the suite is declared (`… in describeDecisions("s") options`).
      const unknownKey = sentence.startsWith('unknown option')
      expect(refusal(() => describeDecisions('s', { data, scorer: alwaysFirst, [key]: value }))).toContain(unknownKey ? `${sentence} in describeDecisions("s") options` : `describeDecisions("s"): ${sentence}`)
      expect(refusal(() => suiteDefaultsFrom({ [key]: value }))).toContain(`vitest-sceptic: sceptic({ ${key} }): ${sentence}`)
      await expect(evaluateWithScorer(data, alwaysFirst, { thresholds: { accuracy: 0.5 }, [key]: value, ...quiet })).rejects.toThrow(sentence)
    }
  })

  it('the CLI states the same rule under its flag names', async () => {
    const base = ['evaluate', 'examples/data/tickets.jsonl', '--scorer', 'examples/scorers/keyword-reader.mjs']
    const cases: [string[], string][] = [
      [['--epochs', '0'], '--epochs must be an integer ≥ 1 and ≤ 1000, got "0"'],
      [['--debias', 'pride', '--pride-fraction', '2'], '--pride-fraction must be a number in (0, 1], got "2"'],
      [['--seed=-1'], '--seed must be an integer ≥ 0, got "-1"'],
      [['--threshold', 'accuracy=0.5', '--stop-early', '--alpha', '1'], '--alpha must be in (0, 1), got "1"'],
    ]
    for (const [flags, sentence] of cases) {
      const { code, stderr } = await sceptic([...base, ...flags])
      expect(code).toBe(2)
      expect(stderr.trim()).toBe(`sceptic: ConfigError: ${sentence}`)
    }
  })
})

describe('rules across options', () => {
  it('pass_at_K needs K epochs: refused before the scorer is called, on every face, exactly when K > epochs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 1, max: 6 }), async (k, epochs) => {
        let calls = 0
        const counted = (requests: Parameters<typeof alwaysFirst>[0]) => ((calls += 1), alwaysFirst(requests))
        const options = { reducer: `pass_at_${k}` as const, epochs }
        const sentence = `reducer pass_at_${k} needs at least ${k} epochs, got epochs ${epochs}`
        if (k <= epochs) {
          expect(refusal(() => parseRunSettings(options))).toBe('ok')
          await evaluateWithScorer(data, counted, { ...options, ...quiet })
          expect(calls).toBeGreaterThan(0)
          return
        }
        expect(refusal(() => parseRunSettings(options))).toBe(sentence)
        expect(refusal(() => describeDecisions('s', { data, scorer: alwaysFirst, ...options }))).toBe(`describeDecisions("s"): ${sentence}`)
        await expect(evaluateWithScorer(data, counted, { ...options, ...quiet })).rejects.toThrow(sentence)
        expect(calls).toBe(0)
      }),
      { numRuns: 60 },
    )
  })
})
