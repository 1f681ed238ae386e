/**
 * `describeDecisions` under Jest: the Vitest face's suite, declared with Jest's globals. It
 * scores once in `beforeAll` and declares the same named tests (one per threshold, the
 * baseline gate, the callback); every check and name comes from decide.ts.
 *
 * Jest repeats a `beforeAll` error for every test of the describe block, so scoring never
 * throws there: the first test that runs fails with the error (one line, without this
 * package's stack frames) and the others fail pointing to it. Every error points at the
 * user's `describeDecisions(...)` call (or the scorer's own throwing line), where Jest shows
 * its code frame.
 */
import {
  atCallSite,
  BASELINE_TEST_NAME,
  callSite,
  baselineGate,
  CALLBACK_TEST_NAME,
  checkOptions,
  DEFAULT_SCORING_TIMEOUT_MS,
  failureRate,
  forJest,
  isBuiltinThreshold,
  jestBaselineDir,
  MAX_TIMER_MS,
  META_RECORDS_LIMIT,
  scoreJestSuite,
  scorerHandle,
  summarise,
  THRESHOLD_KEYS,
  thresholdFailure,
  thresholdTestName,
  type DescribeDecisionsOptions,
  type ScepticSuiteMeta,
  type UpdateMode,
} from './decide.ts'
import type { EvalResult } from '../core/index.ts'
import type { RunSettings } from '../run/settings.ts'
import { writeSuiteEntry } from './channel.ts'
import { failureAt, scoringFailure } from './error.ts'
import { scepticMatchers, type JestSnapshotState } from './matchers.ts'

/** The options of the Jest face's describeDecisions: the Vitest face's. */
export type JestDescribeDecisionsOptions = DescribeDecisionsOptions

/** The callback, run as the suite's `assertions` test. */
export type JestDecisionsCallback = (result: EvalResult) => unknown

/** Extra time Jest's hook gets beyond the scoring timeout, so the clearer timeout error fires first. */
const HOOK_GRACE_MS = 5_000

/** The Jest globals this uses (injected in CommonJS and ESM mode alike). */
interface JestGlobals {
  describe: ((name: string, body: () => void) => void) & { skip: (name: string, body: () => void) => void }
  test: (name: string, body: () => unknown) => void
  beforeAll: (body: () => unknown, timeout?: number) => void
  afterAll: (body: () => unknown, timeout?: number) => void
  expect: { extend(matchers: object): void; getState(): { snapshotState?: JestSnapshotState; currentTestName?: string; testPath?: string } }
}

function jestGlobals(): JestGlobals {
  const g = globalThis as unknown as Partial<JestGlobals>
  if (typeof g.describe !== 'function' || typeof g.test !== 'function' || typeof g.beforeAll !== 'function' || typeof g.expect !== 'function')
    throw new Error('vitest-sceptic/jest: describeDecisions runs inside a Jest test file (Jest\'s globals are missing; is `injectGlobals` off?)')
  return g as JestGlobals
}

/** Suites declared so far in this test file (Jest loads each file in a fresh module registry). */
let declared = 0

/**
 * Declare an eval suite: scores `data` with `scorer` once, then one test per threshold
 * (`balancedAccuracy ≥ 0.8`), `order consistency vs baseline` when the suite has a
 * `baseline` folder, and `assertions` running `fn(result)` when given.
 */
export function describeDecisions(name: string, options: JestDescribeDecisionsOptions, fn?: JestDecisionsCallback): void {
  const site = callSite()
  try {
    declare(name, options, fn, site)
  } catch (error) {
    throw atCallSite(error, site)
  }
}

function declare(name: string, options: JestDescribeDecisionsOptions, fn: JestDecisionsCallback | undefined, site: string | undefined): void {
  const jest = jestGlobals()
  const settings = checkOptions(name, options)
  if (options.shard !== undefined) throw new Error(`describeDecisions("${name}"): shard: 'decisions' needs Vitest's --shard and --merge-reports; under Jest, leave it unset`)
  jest.expect.extend(scepticMatchers)
  const suite = new JestSuite(name, options, settings, declared++, jest, site)
  ;(options.skip ? jest.describe.skip : jest.describe)(name, () => {
    const timeout = settings.timeout ?? DEFAULT_SCORING_TIMEOUT_MS
    jest.beforeAll(() => suite.score(fn !== undefined), Math.min(timeout + HOOK_GRACE_MS, MAX_TIMER_MS))
    declareThresholdTests(suite)
    declareBaselineTest(suite)
    if (fn) suite.test(CALLBACK_TEST_NAME, () => suite.callback(fn))
    jest.afterAll(() => suite.finish())
  })
}

class JestSuite {
  result: EvalResult | undefined
  error: Error | undefined
  readonly meta: ScepticSuiteMeta
  private file: string | undefined
  private path: string | undefined
  private errorShown = false

  constructor(
    readonly name: string,
    readonly options: JestDescribeDecisionsOptions,
    readonly settings: RunSettings,
    readonly index: number,
    readonly jest: JestGlobals,
    /** The user's `describeDecisions` call: where the suite's errors point. */
    readonly site: string | undefined,
  ) {
    this.meta = { schema: 1, suite: name, thresholds: options.thresholds ?? {}, maxFailureRate: settings.maxFailureRate, checks: [] }
  }

  /** Declare one of the suite's tests; running, it notes the suite's title path from Jest's name for it. */
  test(testName: string, body: () => unknown): void {
    this.meta.checks!.push(testName)
    this.jest.test(testName, () => {
      // Jest names a test by its describe titles and its own, joined by spaces: the rest is the suite's path, at any depth.
      const current = this.jest.expect.getState().currentTestName
      if (current?.endsWith(` ${testName}`)) this.path ??= current.slice(0, -testName.length - 1)
      return body()
    })
  }

  /** Jest's snapshot update mode for this file. */
  mode(): UpdateMode {
    return this.jest.expect.getState().snapshotState?._updateSnapshot ?? 'new'
  }

  async score(hasCallback: boolean): Promise<void> {
    this.file = this.jest.expect.getState().testPath
    try {
      const { result } = await scoreJestSuite(this.name, this.options, this.settings, hasCallback, this.mode())
      this.result = result
      if (result) {
        this.meta.result = summarise(result)
        if (result.records.length <= META_RECORDS_LIMIT) this.meta.records = result.records
      }
    } catch (error) {
      this.error = scoringFailure(error, this.site)
      this.meta.error = this.error.message
    }
  }

  /** The result; a scoring error fails the first test with it and the others with a pointer to it. */
  measured(): EvalResult {
    if (this.result) return this.result
    if (this.error && !this.errorShown) {
      this.errorShown = true
      throw this.error
    }
    throw failureAt(`"${this.name}" was not scored; the suite's first failed test says why`, this.site)
  }

  /** Fail the calling check when too many decisions failed to score. */
  checkFailureRate(result: EvalResult): void {
    const problem = failureRate(this.name, result, this.settings)
    if (problem !== undefined) throw failureAt(problem, this.site)
  }

  async callback(fn: JestDecisionsCallback): Promise<void> {
    const result = this.measured()
    try {
      this.checkFailureRate(result)
      await fn(result)
    } catch (error) {
      // A failed callback keeps its stored snapshots under `-u` (Jest removes unchecked ones).
      const { snapshotState, currentTestName } = this.jest.expect.getState()
      if (currentTestName) snapshotState?.markSnapshotsAsCheckedForTest(currentTestName)
      throw atCallSite(error, this.site)
    }
  }

  finish(): Promise<unknown> | void {
    if (this.file) writeSuiteEntry({ file: this.file, index: this.index, meta: this.meta, ...(this.path === undefined ? {} : { path: this.path }) })
    if (this.options.closeScorer) return Promise.resolve(scorerHandle(this.options.scorer).close?.())
  }
}

function declareThresholdTests(suite: JestSuite): void {
  const thresholds = suite.options.thresholds ?? {}
  const customKeys = Object.keys(thresholds).filter((key) => !isBuiltinThreshold(key))
  for (const key of [...THRESHOLD_KEYS, ...customKeys]) {
    const threshold = thresholds[key]
    if (threshold === undefined) continue
    suite.test(thresholdTestName(key, threshold), () => {
      const failure = thresholdFailure(suite.name, suite.measured(), suite.settings, key, threshold, customKeys.includes(key))
      if (failure !== undefined) throw failureAt(failure, suite.site)
    })
  }
}

function declareBaselineTest(suite: JestSuite): void {
  const dir = jestBaselineDir(suite.options)
  if (dir === undefined) return
  suite.test(BASELINE_TEST_NAME, async () => {
    const result = suite.measured()
    if (suite.settings.debias !== 'none') suite.checkFailureRate(result)
    const outcome = await baselineGate(suite.name, result, suite.options, suite.settings, dir, suite.mode())
    suite.meta.baseline = outcome
    if (!outcome.pass) throw failureAt(forJest(outcome.message), suite.site)
  })
}
