// Every numeric option of openAIScorer has bounds: a value that is not finite, negative where a
// count or a time is meant, a fraction where a whole number is meant, or past setTimeout's limit
// is a ConfigError naming the option when the scorer is made, never a request that fails "after
// NaN ms" or a retry loop that never ends. The back-off between retries stops doubling at a cap.
import fc from 'fast-check'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { z } from 'zod'
import { MAX_TIMER_MS } from '../../../src/core/support/abort.ts'
import { ConfigError } from '../../../src/core/support/errors.ts'
import { buildPrompt } from '../../../src/core/requests/prompt.ts'
import { openAIScorer } from '../../../src/scorers/http/index.ts'
import { OpenAIScorerOptionsSchema } from '../../../src/scorers/http/options.ts'

/** What a sane value of each numeric option is, stated here (not read from the schema). */
const SANE: Record<string, (v: number) => boolean> = {
  concurrency: (v) => Number.isInteger(v) && v >= 1,
  timeoutMs: (v) => Number.isInteger(v) && v >= 1 && v <= MAX_TIMER_MS,
  retries: (v) => Number.isInteger(v) && v >= 0 && v <= 1000,
  connectRetries: (v) => Number.isInteger(v) && v >= 0 && v <= 1000,
  backoffMs: (v) => Number.isInteger(v) && v >= 0 && v <= MAX_TIMER_MS,
  topLogprobs: (v) => Number.isInteger(v) && v >= 1,
  temperature: (v) => Number.isFinite(v) && v >= 0,
  maxTokens: (v) => Number.isInteger(v) && v >= 1,
  maxResponseBytes: (v) => Number.isInteger(v) && v >= 1,
  endpointBackoffMs: (v) => Number.isInteger(v) && v >= 0 && v <= MAX_TIMER_MS,
}

const ADVERSARIAL = [NaN, Infinity, -Infinity, -1, 0, -0, 0.5, 1.5, -1e-9, 1e300, 2 ** 31, 2 ** 53, Number.MAX_VALUE, Number.MIN_VALUE, -(2 ** 31)]

const make = (key: string, value: number) => () => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', [key]: value } as never)

/** The option keys whose schema is a number (under `.optional()`). */
function numericKeys(): string[] {
  const type = (s: z.ZodType): string => {
    const def = (s as unknown as { _zod: { def: { type: string; innerType?: z.ZodType } } })._zod.def
    return def.type === 'optional' && def.innerType ? type(def.innerType) : def.type
  }
  return Object.entries(OpenAIScorerOptionsSchema.shape).filter(([, s]) => type(s as z.ZodType) === 'number').map(([key]) => key).sort()
}

describe('openAIScorer: every numeric option is bounded when the scorer is made', () => {
  it('every numeric option of the schema has a stated sane range here', () => {
    expect(numericKeys()).toEqual(Object.keys(SANE).sort())
  })

  it.each(Object.keys(SANE))('%s: NaN, ±Infinity and −1 are a ConfigError naming it', (key) => {
    for (const value of [NaN, Infinity, -Infinity, -1]) {
      expect(make(key, value), `${key}: ${value}`).toThrow(ConfigError)
      expect(make(key, value)).toThrow(new RegExp(`^openAIScorer: ${key} must be .*, got `))
    }
  })

  it('a value is accepted only when sane; else a ConfigError naming the option (property)', () => {
    const value = fc.oneof(fc.constantFrom(...ADVERSARIAL), fc.double(), fc.integer({ min: -10, max: 100 }), fc.integer())
    fc.assert(
      fc.property(fc.constantFrom(...Object.keys(SANE)), value, (key, v) => {
        let error: unknown
        try {
          make(key, v)()
        } catch (e) {
          error = e
        }
        if (error === undefined) expect(SANE[key]!(v), `${key}: ${v} accepted`).toBe(true)
        else expect(error instanceof ConfigError && error.message.startsWith(`openAIScorer: ${key} must be`), String(error)).toBe(true)
      }),
      { numRuns: 500, seed: 42 },
    )
  })

  it('timeoutMs 0 and retries 1.5 are refused; the defaults and a typical setting are not', () => {
    expect(make('timeoutMs', 0)).toThrow(/timeoutMs must be an integer ≥ 1/)
    expect(make('retries', 1.5)).toThrow(/retries must be an integer ≥ 0/)
    expect(() => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm' })).not.toThrow()
    expect(() => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', timeoutMs: 500, retries: 2, backoffMs: 1, temperature: 0.7, concurrency: 8 })).not.toThrow()
  })
})

describe('openAIScorer: the back-off between retries is capped', () => {
  afterEach(() => vi.useRealTimers())

  it('the most retries against a 503 wait at most 60 s each, and the request ends', async () => {
    vi.useFakeTimers()
    const delays: number[] = []
    const fakeSetTimeout = globalThis.setTimeout
    vi.spyOn(globalThis, 'setTimeout').mockImplementation(((fn: () => void, ms?: number) => (delays.push(ms ?? 0), fakeSetTimeout(fn, ms))) as typeof setTimeout)
    const fetch503 = (async () => new Response('busy', { status: 503 })) as typeof fetch
    const score = openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', retries: 40, backoffMs: 1000, timeoutMs: 1000, fetch: fetch503 })
    const criterion = { key: 'q', question: 'Which?', options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] }
    const done = Promise.resolve(score([{ state: 's', criterion, prompt: buildPrompt('s', criterion) }]))
    let outcome: unknown
    void done.then((o) => (outcome = o))
    for (let i = 0; i < 200 && outcome === undefined; i++) await vi.advanceTimersByTimeAsync(60_000)
    expect(outcome).toMatchObject([{ failure: 'http_error' }])
    expect(score.stats()).toMatchObject({ attempts: 41 })
    // The timers the retries set: none past the cap (no doubling to 2^39 s, which setTimeout reads as 1 ms).
    expect(Math.max(...delays)).toBeLessThanOrEqual(60_000)
    expect(delays.filter((ms) => ms === 60_000).length).toBeGreaterThanOrEqual(30)
  })
})
