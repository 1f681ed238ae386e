// Every numeric option has bounds in its schema: a walk over every public option schema (each
// scorer, the cache, the plugin and its shared models, the suites, the reporters, the matchers,
// the run settings the CLI's flags go through) finds each number and checks that NaN, ±Infinity,
// absurdly large values and (where a count, a time or a share is meant) negative ones are refused.
// The faces that took numbers unchecked apply the schema: onnxScorer, decisionModelScorer,
// minimumDetectableDifference, the cache's verify count, and the CLI's integer flags.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import { CacheOptionsSchema, parseCacheVerify, resolveCache } from '../../../src/cache/config.ts'
import { evaluateCommand } from '../../../src/cli/commands/evaluate.ts'
import { CompareOptionsSchema } from '../../../src/core/compare/compare.ts'
import { PartSettingsSchema } from '../../../src/core/shards/part-file.ts'
import { HtmlReportOptionsSchema } from '../../../src/report/html.ts'
import { RenderComparisonOptionsSchema } from '../../../src/report/terminal-comparison.ts'
import { RenderOptionsSchema } from '../../../src/report/terminal.ts'
import { EvaluateOptionsSchema } from '../../../src/core/evaluate/options.ts'
import { EvaluateSettingsSchema } from '../../../src/core/evaluate/settings.ts'
import { minimumDetectableDifference, MinimumDetectableDifferenceOptionsSchema } from '../../../src/core/math/power.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { RunSettingsSchema, SuiteDefaultsSchema } from '../../../src/run/settings.ts'
import { DecisionModelScorerOptionsSchema } from '../../../src/scorers/ai/options.ts'
import { GgufDecisionScorerOptionsSchema } from '../../../src/scorers/gguf/decision-options.ts'
import { GgufScorerOptionsSchema } from '../../../src/scorers/gguf/options.ts'
import { OpenAIScorerOptionsSchema } from '../../../src/scorers/http/options.ts'
import { OnnxScorerOptionsSchema } from '../../../src/scorers/onnx/options-schema.ts'
import { onnxScorer } from '../../../src/scorers/onnx/scorer.ts'
import { AboveChanceOptionsSchema, AtLeastSchema, LetterDistributionOptionsSchema } from '../../../src/suite/assertions/options-schema.ts'
import { ScepticPluginOptionsSchema, SharedModelOptionsSchema } from '../../../src/vitest/plugin/options-schema.ts'
import { ScepticJestReporterOptionsSchema, ScepticReporterOptionsSchema } from '../../../src/suite/reporter-options.ts'
import { DescribeDecisionsOptionsSchema } from '../../../src/suite/options.ts'
import { ROOT } from '../../helpers/run.ts'
import { AI_SDK, NO_AI_SDK } from '../../helpers/ai-sdk.ts'

/** Every public option schema, by its exported name. */
const SCHEMAS: Readonly<Record<string, z.ZodType>> = {
  OpenAIScorerOptionsSchema,
  OnnxScorerOptionsSchema,
  GgufScorerOptionsSchema,
  GgufDecisionScorerOptionsSchema,
  DecisionModelScorerOptionsSchema,
  CacheOptionsSchema,
  ScepticPluginOptionsSchema,
  SharedModelOptionsSchema,
  ScepticReporterOptionsSchema,
  ScepticJestReporterOptionsSchema,
  DescribeDecisionsOptionsSchema,
  SuiteDefaultsSchema,
  RunSettingsSchema,
  EvaluateSettingsSchema,
  EvaluateOptionsSchema,
  AtLeastSchema,
  AboveChanceOptionsSchema,
  LetterDistributionOptionsSchema,
  MinimumDetectableDifferenceOptionsSchema,
  CompareOptionsSchema,
  PartSettingsSchema,
  HtmlReportOptionsSchema,
  RenderOptionsSchema,
  RenderComparisonOptionsSchema,
}

/** Numbers that may be negative, and why: a correlation, and a threshold's bound (a metric may be negative: preferenceFairness). */
const MAY_BE_NEGATIVE = /(^|\.)correlation$|\.thresholds\.\*/
/** Numbers that may be large: a threshold's bound is finite, its range the thresholds parser's rule per metric (a custom metric has its own scale). */
const MAY_BE_LARGE = /\.thresholds\.\*/

type Def = { type: string } & Record<string, unknown>
const defOf = (schema: z.ZodType): Def => (schema as unknown as { _zod: { def: Def } })._zod.def

/** Every number in `schema`, by path (`*` for a record's or array's entries), through wrappers, unions, pipes and refinements. */
function numbers(schema: z.ZodType, path: string, seen = new Set<z.ZodType>()): [string, z.ZodType][] {
  const def = defOf(schema)
  const inner = (next: unknown, at = path) => numbers(next as z.ZodType, at, seen)
  switch (def.type) {
    case 'number':
      return [[path, schema]]
    case 'optional': case 'nullable': case 'default': case 'prefault': case 'readonly': case 'nonoptional': case 'catch':
      return inner(def.innerType)
    case 'pipe':
      return [...inner(def.in), ...inner(def.out)]
    case 'lazy': {
      // A recursive schema is walked once.
      if (seen.has(schema)) return []
      seen.add(schema)
      return inner((def.getter as () => unknown)())
    }
    case 'object':
      return Object.entries(def.shape as Record<string, z.ZodType>).flatMap(([key, field]) => inner(field, `${path}.${key}`))
    case 'union':
      return (def.options as z.ZodType[]).flatMap((option) => inner(option))
    case 'intersection':
      return [...inner(def.left), ...inner(def.right)]
    case 'record':
      return inner(def.valueType, `${path}.*`)
    case 'array':
      return inner(def.element, `${path}.*`)
    case 'tuple':
      return (def.items as z.ZodType[]).flatMap((item) => inner(item, `${path}.*`))
    default:
      return []
  }
}

const LEAVES = Object.entries(SCHEMAS).flatMap(([name, schema]) => numbers(schema, name))
const ABSURD = [NaN, Infinity, -Infinity, 1e300, Number.MAX_VALUE, 2 ** 53, -(2 ** 53)]

describe('every numeric option has bounds in its schema', () => {
  it('the walk knows every exported option schema in src/', () => {
    const files = readdirSync(join(ROOT, 'src'), { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    const exported = files.flatMap((entry) => [...readFileSync(join(entry.parentPath, entry.name), 'utf8').matchAll(/^export const (\w+(?:Options|Settings|Defaults)Schema)\b/gm)].map((m) => m[1]!))
    const shared = /^Shared(Onnx|Gguf)ModelOptionsSchema$/ // parts of SharedModelOptionsSchema
    expect(exported.filter((name) => !shared.test(name) && !(name in SCHEMAS)), 'an option schema the walk does not visit').toEqual([])
    expect(LEAVES.length).toBeGreaterThan(40)
  })

  it.each(LEAVES)('%s: NaN, ±Infinity, 2^53 and past are refused', (path, leaf) => {
    for (const value of MAY_BE_LARGE.test(path) ? [NaN, Infinity, -Infinity] : ABSURD) expect(leaf.safeParse(value).success, String(value)).toBe(false)
  })

  it.each(LEAVES.filter(([path]) => !MAY_BE_NEGATIVE.test(path)))('%s: a negative value is refused', (_, leaf) => {
    for (const value of [-1, -1e-9, -(2 ** 31)]) expect(leaf.safeParse(value).success, String(value)).toBe(false)
  })

  it('whatever a number schema accepts is finite, below 2^53 and, where not allowed, not negative (property)', () => {
    fc.assert(
      fc.property(fc.constantFrom(...LEAVES), fc.oneof(fc.double(), fc.integer(), fc.constantFrom(...ABSURD, -0, 0.5, 1, 2 ** 31, 1e9, 1e12, 1e16)), ([path, leaf], value) => {
        if (!leaf.safeParse(value).success) return
        expect(Number.isFinite(value) && (MAY_BE_LARGE.test(path) || Math.abs(value) < 2 ** 53), `${path} accepted ${value}`).toBe(true)
        if (!MAY_BE_NEGATIVE.test(path)) expect(value >= 0, `${path} accepted ${value}`).toBe(true)
      }),
      { numRuns: 2000, seed: 42 },
    )
  })
})

describe('the faces that took numbers unchecked apply their schema', () => {
  const model = join(ROOT, 'examples/models/tiny')
  const decide = { specificationVersion: 'v3', provider: 'p', modelId: 'm', supportedQuestionTypes: ['choice'], doDecide: async () => ({}) }

  it.each([
    ['batchSize', 1e300], ['batchSize', 2 ** 40], ['workers', 1e12], ['threadsPerWorker', 1e300], ['maxLogitsBytes', 1e300], ['contextLength', 2 ** 31], ['batchSize', NaN],
  ])('onnxScorer %s %d: a ConfigError naming it', (key, value) => {
    expect(() => onnxScorer({ model, [key]: value })).toThrow(new RegExp(`^onnxScorer: \`?${key}\`? must be`))
  })

  // The scorer module loads the AI SDK, which npm installs only on Node >= 22; its schema above is checked everywhere.
  it.skipIf(!AI_SDK).each([
    ['maxRetries', 1e300], ['maxRetries', 11], ['timeoutMs', 1e300], ['timeoutMs', 2 ** 31], ['concurrency', 1e300], ['timeoutMs', 0.5],
  ])(`decisionModelScorer %s %d: a ConfigError naming it${AI_SDK ? '' : ` — SKIPPED: ${NO_AI_SDK}`}`, async (key, value) => {
    const { decisionModelScorer } = await import('../../../src/scorers/ai/scorer.ts')
    expect(() => decisionModelScorer(decide as never, { [key]: value })).toThrow(new RegExp(`^decisionModelScorer: ${key} must be`))
  })

  it.each([
    ['accuracy', NaN], ['accuracy', 2], ['alpha', 0], ['power', 1], ['designEffect', Infinity], ['correlation', -2],
  ])('minimumDetectableDifference %s %d: a ConfigError naming it', (key, value) => {
    expect(() => minimumDetectableDifference(100, { [key]: value })).toThrow(new RegExp(`^minimumDetectableDifference: ${key} must be`))
  })

  it('the cache verify count: 1e300 and 2^53 refused from the options and the environment', () => {
    for (const value of [1e300, 2 ** 53, 1e7]) {
      expect(() => resolveCache({ verify: value }), String(value)).toThrow(ConfigError)
      expect(() => parseCacheVerify(String(value), 'SCEPTIC_CACHE_VERIFY'), String(value)).toThrow(/SCEPTIC_CACHE_VERIFY must be an integer ≥ 0 and ≤ 1000000/)
    }
    expect(resolveCache({ verify: 8 }).verify).toBe(8)
  })

  const data = join(ROOT, 'examples/data/tickets.jsonl')
  it.each([
    ['--seed', '1e300'], ['--epochs', '1e300'], ['--pride-fraction', 'Infinity', '--debias', 'pride'], ['--max-failure-rate', 'NaN', '--threshold', 'accuracy=0.5'], ['--timeout', '1e300'],
    ['--cache-verify', '1e300'], ['--batch-size', '1e300'], ['--workers', '1e300'], ['--batch-size', '9007199254740993'], ['--alpha=-Infinity', '', '--stop-early', '--threshold', 'accuracy=0.5'],
  ])('sceptic evaluate %s %s: refused before anything is loaded', async (flag, value, ...rest) => {
    const run = evaluateCommand.run([data, '--model', model, '--no-cache', flag, value, ...rest].filter(Boolean))
    const name = flag.replace(/=.*/, '')
    // A bad --alpha is reported as the setting it belongs to (--stop-early's { alpha }).
    const names = name === '--alpha' ? '--alpha|--stop-early' : name
    await expect(run).rejects.toThrow(new RegExp(`^(${names}|onnxScorer: ${name.slice(2).replace(/-(\w)/g, (_, c: string) => c.toUpperCase())}) must be`))
  })
})
