// Adversarial corpus: options cannot be misspelled. Each case passes a misspelled key to a
// real entry point (describeDecisions, sceptic(), evaluateWithScorer, the scorers, the
// reporter, the matchers, the cache) and expects a ConfigError naming the key and the nearest
// valid one, before anything runs. The last block checks that keys which are the user's data
// (model names, threshold and metric names, headers, provider options) are never refused.
import { afterAll, describe, expect, test } from 'vitest'
import { ConfigError } from '../../src/core/support/errors.ts'
import { evaluateWithScorer } from '../../src/core/evaluate/index.ts'
import { describeDecisions } from '../../src/vitest/suite/describe-decisions.ts'
import { sceptic } from '../../src/vitest/plugin/plugin.ts'
import { openAIScorer } from '../../src/scorers/http/openai.ts'
import { onnxScorer } from '../../src/scorers/onnx/scorer.ts'
import ScepticReporter from '../../src/vitest/reporter/reporter.ts'
import { scepticMatchers } from '../../src/vitest/assertions/matchers.ts'
import { resolveCache } from '../../src/cache/config.ts'
import { parseThresholdFlags } from '../../src/cli/thresholds.ts'
import { compareResults } from '../../src/core/compare/compare.ts'
import { minimumDetectableDifference } from '../../src/core/math/power.ts'
import { renderHtmlReport } from '../../src/report/html.ts'
import { AI_SDK } from '../helpers/ai-sdk.ts'
import { cleanup, decisions, temp } from './helpers.ts'

afterAll(cleanup)
expect.extend(scepticMatchers)

const scorer = (requests: readonly { criterion: { options: readonly unknown[] } }[]) => requests.map((r) => r.criterion.options.map(() => 1))
const suite = { data: decisions(4), scorer }
// A decision model as `ai` describes one; never called: the options are refused first.
const model = { specificationVersion: 'v4', provider: 'fake', modelId: 'fake-1', doDecide: async () => ({}) } as never

/** `body` throws a ConfigError naming `key` (and `near`, when given) as an unknown option. */
function refused(body: () => unknown, key: string, near?: string): void {
  let error: unknown
  try {
    body()
  } catch (caught) {
    error = caught
  }
  expect(error, 'expected a ConfigError').toBeInstanceOf(ConfigError)
  const message = (error as Error).message
  expect(message).toContain(`unknown option \`${key}\``)
  if (near !== undefined) expect(message).toContain(`did you mean \`${near}\`?`)
  else expect(message).not.toContain('did you mean')
}

/** Like {@link refused}, for an entry point that rejects. */
async function rejected(body: () => Promise<unknown>, key: string, near: string): Promise<void> {
  const error = await body().then(
    () => undefined,
    (caught: unknown) => caught,
  )
  refused(() => {
    if (error) throw error
  }, key, near)
}

describe('describeDecisions', () => {
  test('`threshold` is refused: did you mean `thresholds`?', () => {
    refused(() => describeDecisions('s', { ...suite, threshold: { balancedAccuracy: 0.9 } } as never), 'threshold', 'thresholds')
  })
  test('a key differing by case: `Thresholds`', () => {
    refused(() => describeDecisions('s', { ...suite, Thresholds: { accuracy: 0.9 } } as never), 'Thresholds', 'thresholds')
  })
  test('a nested cache key: `cache.dirr`', () => {
    refused(() => describeDecisions('s', { ...suite, cache: { dirr: 'x' } } as never), 'cache.dirr', 'cache.dir')
  })
  test('a nested stopEarly key: `stopEarly.alhpa`', () => {
    refused(() => describeDecisions('s', { ...suite, stopEarly: { alhpa: 0.01 } } as never), 'stopEarly.alhpa', 'stopEarly.alpha')
  })
  test("a threshold's range key: `thresholds.accuracy.mx`", () => {
    refused(() => describeDecisions('s', { ...suite, thresholds: { accuracy: { min: 0.5, mx: 0.9 } } } as never), 'thresholds.accuracy.mx', 'thresholds.accuracy.max')
  })
  test('an own `__proto__` key (JSON-parsed options)', () => {
    refused(() => describeDecisions('s', { ...suite, ...JSON.parse('{"__proto__": {"thresholds": {}}}') }), '__proto__')
  })
  test('`constructor` is no option', () => {
    refused(() => describeDecisions('s', { ...suite, constructor: 1 } as never), 'constructor')
  })
  test('a misspelled threshold name: did you mean "balancedAccuracy"?', () => {
    expect(() => describeDecisions('s', { ...suite, thresholds: { balancedAcuracy: 0.9 } })).toThrow(/unknown threshold "balancedAcuracy"; did you mean "balancedAccuracy"\?/)
  })
  test('a misspelled custom metric name: did you mean the declared one?', () => {
    const metrics = { confidentAndRight: () => 1 }
    expect(() => describeDecisions('s', { ...suite, metrics, thresholds: { confidentAndRigth: 0.5 } })).toThrow(/unknown threshold "confidentAndRigth"; did you mean "confidentAndRight"\?/)
  })
})

describe('sceptic() plugin options', () => {
  test('`baselines`: did you mean `baseline`?', () => {
    refused(() => sceptic({ baselines: 'evals/__baselines__' } as never), 'baselines', 'baseline')
  })
  // A `.gguf` entry is checked at once; a path the plugin must place (an ONNX directory, a GGUF file named
  // otherwise) once the root is known, still at config load: test/vitest/plugin/model-entries.test.ts.
  test('a shared model entry: `models.tiny.thread`', () => {
    refused(() => sceptic({ models: { tiny: { model: 'models/tiny.gguf', thread: 2 } } } as never), 'models.tiny.thread', 'models.tiny.threads')
  })
  test('the cache: `cache.mdoe`', () => {
    refused(() => sceptic({ cache: { mdoe: 'off' } } as never), 'cache.mdoe', 'cache.mode')
  })
  test('the reporter: `reporter.htm`', () => {
    refused(() => sceptic({ reporter: { htm: 'report.html' } } as never), 'reporter.htm', 'reporter.html')
  })
  test('a case slip: `detectabledrop`', () => {
    refused(() => sceptic({ detectabledrop: 0.05 } as never), 'detectabledrop', 'detectableDrop')
  })
})

describe('evaluateWithScorer', () => {
  test('`debais`: did you mean `debias`?', async () => {
    await rejected(() => evaluateWithScorer(decisions(4), scorer, { debais: 'none' } as never), 'debais', 'debias')
  })
  test('a nested statistics key: `statistics.resample`', async () => {
    await rejected(() => evaluateWithScorer(decisions(4), scorer, { statistics: { resample: 10 } } as never), 'statistics.resample', 'statistics.resamples')
  })
  test('`treshold` beside stopEarly', async () => {
    await rejected(() => evaluateWithScorer(decisions(4), scorer, { stopEarly: true, treshold: { accuracy: 0.9 } } as never), 'treshold', 'thresholds')
  })
})

describe('scorers', () => {
  test('openAIScorer `baseUrl`: did you mean `baseURL`?', () => {
    refused(() => openAIScorer({ baseUrl: 'http://127.0.0.1:1/v1', model: 'm' } as never), 'baseUrl', 'baseURL')
  })
  test('openAIScorer `header`', () => {
    refused(() => openAIScorer({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', header: { 'x-team': 'a' } } as never), 'header', 'headers')
  })
  test('openAIScorer: an unrelated key gets no suggestion, the known keys instead', () => {
    refused(() => openAIScorer({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', zqxw: 1 } as never), 'zqxw')
    expect(() => openAIScorer({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', zqxw: 1 } as never)).toThrow(/\(known: `baseURL`, `model`, /)
  })
  test('onnxScorer `batchsize`, before the model is looked for', () => {
    refused(() => onnxScorer({ model: temp(), batchsize: 4 } as never), 'batchsize', 'batchSize')
  })
  test('onnxScorer `chatTemplateKwarg`', () => {
    refused(() => onnxScorer({ model: temp(), chatTemplate: true, chatTemplateKwarg: { enable_thinking: false } } as never), 'chatTemplateKwarg', 'chatTemplateKwargs')
  })
  test.skipIf(!AI_SDK)('decisionModelScorer `maxRetry`', async () => {
    const { decisionModelScorer } = await import('../../src/scorers/ai/scorer.ts')
    refused(() => decisionModelScorer(model, { maxRetry: 1 } as never), 'maxRetry', 'maxRetries')
  })
})

describe('reporter, matchers, cache, CLI thresholds', () => {
  test('ScepticReporter `githubSumary`', () => {
    refused(() => new ScepticReporter({ githubSumary: false } as never), 'githubSumary', 'githubSummary')
  })
  test('toHaveBalancedAccuracy `{ atleast }`', () => {
    refused(() => expect({}).toHaveBalancedAccuracy({ atleast: 0.9 } as never), 'atleast', 'atLeast')
  })
  test('toHaveAccuracyAboveChance `{ aplha }` (was ignored: the test ran without its significance check)', () => {
    refused(() => expect({}).toHaveAccuracyAboveChance({ aplha: 0.05 } as never), 'aplha', 'alpha')
  })
  test('toMatchLetterDistribution `{ tolerence }`', () => {
    refused(() => expect({ A: 0.5, B: 0.5 }).toMatchLetterDistribution({ tolerence: 0.2 } as never), 'tolerence', 'tolerance')
  })
  test('resolveCache `{ dirr }`', () => {
    refused(() => resolveCache({ dirr: temp() } as never), 'dirr', 'dir')
  })
  test('sceptic evaluate --threshold with a misspelled metric is refused before anything is scored', () => {
    expect(() => parseThresholdFlags(['balancedAcuracy=0.9'])).toThrow(/unknown threshold "balancedAcuracy"; did you mean "balancedAccuracy"\?/)
  })
})

describe('library options (compare, power, report)', () => {
  test('compareResults `{ resampels }` (was ignored: the default resamples ran)', () => {
    refused(() => compareResults({ records: [] } as never, { records: [] } as never, { resampels: 10_000 } as never), 'resampels', 'resamples')
  })
  test('minimumDetectableDifference `{ designeffect }` (was ignored: no design effect)', () => {
    refused(() => minimumDetectableDifference(100, { designeffect: 2 } as never), 'designeffect', 'designEffect')
  })
  test('renderHtmlReport `{ titel }`', () => {
    refused(() => renderHtmlReport([] as never, { titel: 'x' } as never), 'titel', 'title')
  })
})

describe("the user's own keys are data, never refused", () => {
  test.skipIf(!AI_SDK)('decisionModelScorer: provider options and headers', async () => {
    const { decisionModelScorer } = await import('../../src/scorers/ai/scorer.ts')
    expect(() => decisionModelScorer(model, { providerOptions: { openai: { reasoningEffort: 'low' } }, headers: { thresholds: 'x' } })).not.toThrow(/unknown option/)
  })
  test('model names, headers, provider options, ORT provider options, template variables, manifest and metric names', () => {
    expect(() => sceptic({ models: { 'my-model.v2': 'models/none', Tiny: { model: 'models/none', chatTemplateKwargs: { enable_thinking: false } } }, reporter: false })).not.toThrow(/unknown option/)
    expect(() => openAIScorer({ baseURL: 'http://127.0.0.1:1/v1', model: 'm', headers: { 'X-Team': 'a', constructor: 'b' } })).not.toThrow()
    expect(() => onnxScorer({ model: temp(), executionProviders: [{ name: 'cuda', deviceId: 1 }] })).not.toThrow(/unknown option/)
    const metrics = { threshold: () => 1 }
    expect(() => describeDecisions('data keys', { ...suite, skip: true, manifest: { cahce: 1 }, metrics, thresholds: { threshold: 0.5 } })).not.toThrow(/unknown/)
  })
})
