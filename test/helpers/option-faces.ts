// The registry of every user-facing options object: its face, its schema and how to hand it
// options through the real entry point. The property test (test/adversarial/options.property
// .test.ts) walks every entry; a structure test there fails when src/ checks options with a
// schema that is not registered here. A new face is one line: { face, schema, call }.
import type { z } from 'zod'
import { resolveCache, CacheOptionsSchema } from '../../src/cache/config.ts'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { EvaluateOptionsSchema } from '../../src/core/evaluate/options.ts'
import { DecisionModelScorerOptionsSchema } from '../../src/scorers/ai/options.ts'
import { AI_SDK, NO_AI_SDK } from './ai-sdk.ts'
import { openAIScorer } from '../../src/scorers/http/openai.ts'
import { OpenAIScorerOptionsSchema } from '../../src/scorers/http/options.ts'
import { onnxScorer } from '../../src/scorers/onnx/scorer.ts'
import { OnnxScorerOptionsSchema } from '../../src/scorers/onnx/options-schema.ts'
import { AboveChanceOptionsSchema, AtLeastSchema, LetterDistributionOptionsSchema } from '../../src/suite/assertions/options-schema.ts'
import { scepticMatchers } from '../../src/vitest/assertions/matchers.ts'
import { ScepticPluginOptionsSchema } from '../../src/vitest/plugin/options-schema.ts'
import { sceptic } from '../../src/vitest/plugin/plugin.ts'
import { ScepticReporterOptionsSchema } from '../../src/suite/reporter-options.ts'
import ScepticReporter from '../../src/vitest/reporter/reporter.ts'
import { describeDecisions } from '../../src/vitest/suite/describe-decisions.ts'
import { DescribeDecisionsOptionsSchema } from '../../src/suite/options.ts'
import { compareResults, CompareOptionsSchema } from '../../src/core/compare/compare.ts'
import { minimumDetectableDifference, MinimumDetectableDifferenceOptionsSchema } from '../../src/core/math/power.ts'
import { render, RenderOptionsSchema } from '../../src/report/terminal.ts'
import { renderComparison, RenderComparisonOptionsSchema } from '../../src/report/terminal-comparison.ts'
import { renderHtmlReport, HtmlReportOptionsSchema } from '../../src/report/html.ts'
import { ggufScorer } from '../../src/scorers/gguf/scorer.ts'
import { GgufScorerOptionsSchema } from '../../src/scorers/gguf/options.ts'
import { ggufDecisionScorer } from '../../src/scorers/gguf/decision-scorer.ts'
import { GgufDecisionScorerOptionsSchema } from '../../src/scorers/gguf/decision-options.ts'
import { checkOptions as checkJestSuiteOptions } from '../../src/jest/decide.ts'

/** One options object a user writes. */
export interface OptionFace {
  /** The face as the error names it (`… in <face> options`). */
  readonly face: string
  /** Its schema, the one src/ checks it with (by this name in the source). */
  readonly schema: z.ZodType
  /** The schema's name in src/, for the structure test. */
  readonly name: string
  /** Give `options` to the real entry point (may throw or reject). */
  readonly call: (options: Record<string, unknown>) => unknown
  /** Top-level keys refused for another reason first (renamed options). */
  readonly renamed?: readonly string[]
  /** Why this face cannot be called here (its runtime is not installed). */
  readonly skip?: string
}

const scorer = () => [[1, 1]]
const decisions = [{ state: 's', criterion: { key: 'k', options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] }, answer_id: 'a' }]
const model = { specificationVersion: 'v4', provider: 'fake', modelId: 'fake-1', doDecide: async () => ({}) } as never
const matchers = scepticMatchers as unknown as Record<string, (this: unknown, received: unknown, options: unknown) => unknown>
const matcher = (name: string) => (options: Record<string, unknown>) => matchers[name]!.call({}, {}, options)

export const OPTION_FACES: readonly OptionFace[] = [
  { face: 'describeDecisions("s")', schema: DescribeDecisionsOptionsSchema, name: 'DescribeDecisionsOptionsSchema', call: (o) => describeDecisions('s', o as never), renamed: ['scorerName'] },
  { face: 'sceptic()', schema: ScepticPluginOptionsSchema, name: 'ScepticPluginOptionsSchema', call: (o) => sceptic(o as never) },
  { face: 'evaluateWithScorer', schema: EvaluateOptionsSchema, name: 'EvaluateOptionsSchema', call: (o) => evaluateWithScorer(decisions as never, scorer, o as never), renamed: ['scorer'] },
  { face: 'onnxScorer', schema: OnnxScorerOptionsSchema, name: 'OnnxScorerOptionsSchema', call: (o) => onnxScorer(o as never) },
  { face: 'openAIScorer', schema: OpenAIScorerOptionsSchema, name: 'OpenAIScorerOptionsSchema', call: (o) => openAIScorer(o as never) },
  { face: 'decisionModelScorer', schema: DecisionModelScorerOptionsSchema, name: 'DecisionModelScorerOptionsSchema', call: async (o) => (await import('../../src/scorers/ai/scorer.ts')).decisionModelScorer(model, o as never), ...(AI_SDK ? {} : { skip: NO_AI_SDK }) },
  { face: 'cache', schema: CacheOptionsSchema, name: 'CacheOptionsSchema', call: (o) => resolveCache(o as never) },
  { face: 'ScepticReporter', schema: ScepticReporterOptionsSchema, name: 'ScepticReporterOptionsSchema', call: (o) => new ScepticReporter(o as never) },
  { face: 'toHaveBalancedAccuracy()', schema: AtLeastSchema, name: 'AtLeastSchema', call: matcher('toHaveBalancedAccuracy') },
  { face: 'toHaveOrderConsistency()', schema: AtLeastSchema, name: 'AtLeastSchema', call: matcher('toHaveOrderConsistency') },
  { face: 'toHavePerCriterionBalancedAccuracy()', schema: AtLeastSchema, name: 'AtLeastSchema', call: matcher('toHavePerCriterionBalancedAccuracy') },
  { face: 'toHaveAccuracyAboveChance()', schema: AboveChanceOptionsSchema, name: 'AboveChanceOptionsSchema', call: matcher('toHaveAccuracyAboveChance') },
  { face: 'compareResults', schema: CompareOptionsSchema, name: 'CompareOptionsSchema', call: (o) => compareResults({ records: [] } as never, { records: [] } as never, o as never) },
  { face: 'minimumDetectableDifference', schema: MinimumDetectableDifferenceOptionsSchema, name: 'MinimumDetectableDifferenceOptionsSchema', call: (o) => minimumDetectableDifference(100, o as never) },
  { face: 'render', schema: RenderOptionsSchema, name: 'RenderOptionsSchema', call: (o) => render({} as never, o as never) },
  { face: 'renderComparison', schema: RenderComparisonOptionsSchema, name: 'RenderComparisonOptionsSchema', call: (o) => renderComparison({} as never, o as never) },
  { face: 'renderHtmlReport', schema: HtmlReportOptionsSchema, name: 'HtmlReportOptionsSchema', call: (o) => renderHtmlReport([] as never, o as never) },
  { face: 'toMatchLetterDistribution()', schema: LetterDistributionOptionsSchema, name: 'LetterDistributionOptionsSchema', call: matcher('toMatchLetterDistribution') },
  { face: 'ggufScorer', schema: GgufScorerOptionsSchema, name: 'GgufScorerOptionsSchema', call: (o) => ggufScorer(o as never) },
  { face: 'ggufDecisionScorer', schema: GgufDecisionScorerOptionsSchema, name: 'GgufDecisionScorerOptionsSchema', call: (o) => ggufDecisionScorer(o as never) },
  // The Jest face's describeDecisions checks its options with the Vitest face's schema, in the same function.
  { face: 'describeDecisions("s")', schema: DescribeDecisionsOptionsSchema, name: 'DescribeDecisionsOptionsSchema', call: (o) => checkJestSuiteOptions('s', o as never), renamed: ['scorerName'] },
]
