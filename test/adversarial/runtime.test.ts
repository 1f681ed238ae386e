// The runtime adversarial corpus: scorers that hang or break, HTTP faults on a real
// server on 127.0.0.1, ONNX worker crashes, CLI output paths. Every case asserts one
// verdict (a clear one-line error, a counted failure, or a correct result), and every
// case has a time bound. A run that did not complete must never exit 0.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { evaluateWithScorer, recordsToJsonl, render, resultToJson } from '../../src/core/index.ts'
import type { ScoreContext, ScoreRequest } from '../../src/core/score.ts'
import { planOutputs, writeOutputs } from '../../src/cli/outputs.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { loadTokenizer } from '../../src/scorers/onnx/tokenizer.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { sceptic } from '../helpers/run.ts'
import { makeModel } from '../onnx/helpers.ts'
import { FIRST_SCORER, cleanup, decisions, distUrl, temp, writeData, writeScorer } from './helpers.ts'

afterAll(cleanup)

/** One line on stderr, no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n')
  expect(lines, stderr).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at |unexpected error/)
  return lines[0]!
}

describe('scorers that never finish or fail to close: never exit 0', () => {
  it('a scorer whose promise never settles exits 4 and says the run did not complete', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(4))
    const scorer = writeScorer(dir, 'export default () => new Promise(() => {})\n')
    const json = join(dir, 'out.json')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', json], { timeoutMs: 20_000 })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/the run ended before it completed .*--timeout SECONDS/)
    expect(existsSync(json)).toBe(false)
  })

  it('--timeout bounds a scorer that never answers (and holds the process open): exit 4 naming decisions scored', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(6))
    // Never answers, and a live timer keeps the process open: without a bound this hangs forever.
    const scorer = writeScorer(dir, 'setInterval(() => {}, 1000)\nexport default () => new Promise(() => {})\n')
    const started = Date.now()
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--timeout', '1.5'], { timeoutMs: 20_000 })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/^sceptic: ScorerError: the run timed out after 1\.5 s \(--timeout\) with 0 of 6 decisions scored; nothing was written$/)
    expect(Date.now() - started).toBeLessThan(15_000)
  })

  it.each([
    ['throws', 'export function close() { throw new Error("disk gone") }', /close\(\) failed: disk gone/],
    ['rejects', 'export async function close() { throw new Error("socket reset") }', /close\(\) failed: socket reset/],
    ['never settles', 'export function close() { return new Promise(() => {}) }', /close\(\) did not settle within 1 s/],
  ])('a close() that %s after a complete run exits 4 and writes nothing', async (_, close, message) => {
    const dir = temp()
    const data = writeData(dir, decisions(4))
    const scorer = writeScorer(dir, FIRST_SCORER + close + '\n')
    const json = join(dir, 'out.json')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', json], {
      timeoutMs: 20_000,
      env: { SCEPTIC_CLOSE_TIMEOUT_SECONDS: '1' },
    })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(message)
    expect(existsSync(json)).toBe(false)
  })

  it.each([
    ['throws', 'export function close() { throw new Error("close broke too") }'],
    ['never settles', 'export function close() { return new Promise(() => {}) }'],
  ])('a scorer that throws, then a close() that %s: the scorer error is the one reported', async (_, close) => {
    const dir = temp()
    const data = writeData(dir, decisions(4))
    const scorer = writeScorer(dir, `export default () => { throw new Error("model exploded") }\n${close}\n`)
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer], { timeoutMs: 20_000, env: { SCEPTIC_CLOSE_TIMEOUT_SECONDS: '1' } })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/^sceptic: ScorerError: the scorer threw on .*: model exploded$/)
  })

  it('--timeout must be a positive number of seconds', async () => {
    const { code, stderr } = await sceptic(['evaluate', 'examples/data/tickets.jsonl', '--scorer', 'examples/scorers/always-first.mjs', '--timeout', '0'])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/--timeout must be a positive number of seconds, got "0"/)
  })
})

describe('ONNX: a worker that crashes twice on one batch', () => {
  const POISON = '<|endoftext|>'
  it('exits 4 with the ScorerError, every time (8 runs, 4 at once: contention opens the race; 20 of 20 measured)', async () => {
    const dir = temp()
    const model = makeModel({ tokenizer: 'bpe' })
    const tokenId = (await loadTokenizer(model)).encode(POISON).at(-1)!
    const data = writeData(dir, decisions(6, (i) => (i === 3 ? `Please help ${POISON} now` : `Ticket ${i} about Billing`)))
    const scorer = writeScorer(
      dir,
      `import { onnxScorer } from ${distUrl('dist/onnx/index.js')}
      const s = onnxScorer({ model: ${JSON.stringify(model)}, batchSize: 1, workers: 2, faults: { tokenId: ${tokenId}, times: 2 } })
      export default s
      export const close = () => s.close()\n`,
    )
    // Before the fix, about 1 run in 4 exited 0 in silence: a replacement worker that loaded
    // while close() waited was unref'd and the process ended mid-close.
    for (let round = 0; round < 2; round++) {
      const runs = await Promise.all(
        Array.from({ length: 4 }, () => sceptic(['evaluate', data, '--scorer', scorer, '--debias', 'cyclic'], { timeoutMs: 90_000 })),
      )
      for (const { code, stderr } of runs) {
        expect(code).toBe(4)
        expect(oneLine(stderr)).toMatch(/^sceptic: ScorerError: the ONNX worker crashed twice \(exit code 70\) on .*state "Please help <\|endoftext\|> now"/)
      }
    }
  }, 300_000)
})

describe('cancellation reaches the scorer', () => {
  it('every scorer call receives the signal; aborting it rejects at once with its reason, even mid-call', async () => {
    const seen: AbortSignal[] = []
    const controller = new AbortController()
    const score = (requests: readonly ScoreRequest[], context?: ScoreContext) => {
      seen.push(context!.signal)
      if (seen.length === 1) return requests.map(() => [0.6, 0.4])
      setTimeout(() => controller.abort(new Error('stop now')), 20)
      return new Promise<number[][]>(() => {}) // never answers: only the signal can end the call
    }
    const run = evaluateWithScorer(decisions(8), score, { chunkSize: 2, signal: controller.signal })
    await expect(run).rejects.toThrow('stop now')
    expect(seen).toHaveLength(2)
    expect(seen.every((signal) => signal === controller.signal)).toBe(true)
    expect(seen[1]!.aborted).toBe(true)
  })

  it('without a signal, scorers still get one that never aborts', async () => {
    let signal: AbortSignal | undefined
    await evaluateWithScorer(decisions(2), (requests, context) => ((signal = context?.signal), requests.map(() => [0.6, 0.4])))
    expect(signal).toBeInstanceOf(AbortSignal)
    expect(signal!.aborted).toBe(false)
  })

  it('an abort cancels in-flight HTTP requests of openAIScorer (the server sees each one closed)', async () => {
    const closed: number[] = []
    const server = createServer((req, res) => {
      const started = Date.now()
      res.on('close', () => closed.push(Date.now() - started))
      setTimeout(() => res.end('{}'), 30_000).unref()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
      const score = openAIScorer({ baseURL, model: 'm', concurrency: 4, timeoutMs: 60_000, retries: 0 })
      const run = evaluateWithScorer(decisions(4), score, { signal: AbortSignal.timeout(300) })
      await expect(run).rejects.toThrow(/aborted|timeout/i)
      await new Promise((resolve) => setTimeout(resolve, 300))
      expect(closed).toHaveLength(4)
      expect(Math.max(...closed)).toBeLessThan(5_000)
      expect(score.stats().failures).toEqual({}) // a cancellation is not a counted failure
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('--timeout cancels in-flight HTTP requests: the server sees them closed long before they would answer', async () => {
    const closed: number[] = []
    const server = createServer((req, res) => {
      const started = Date.now()
      res.on('close', () => closed.push(Date.now() - started))
      setTimeout(() => res.end('{}'), 30_000).unref()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const dir = temp()
      const data = writeData(dir, decisions(3))
      const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
      const scorer = writeScorer(
        dir,
        `import { openAIScorer } from ${distUrl('dist/http/index.js')}
        export default openAIScorer({ baseURL: ${JSON.stringify(baseURL)}, model: 'm', concurrency: 3, timeoutMs: 60000 })\n`,
      )
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--timeout', '1'], { timeoutMs: 20_000 })
      expect(code).toBe(4)
      expect(oneLine(stderr)).toMatch(/timed out after 1 s \(--timeout\) with 0 of 3 decisions scored/)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(closed).toHaveLength(3)
      expect(Math.max(...closed)).toBeLessThan(10_000)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
