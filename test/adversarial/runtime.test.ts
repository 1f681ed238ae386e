// The runtime adversarial corpus: scorers that hang or break, HTTP faults on a real
// server on 127.0.0.1, ONNX worker crashes, CLI output paths. Every case asserts one
// verdict (a clear one-line error, a counted failure, or a correct result), and every
// case has a time bound. A run that did not complete must never exit 0.
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import fc from 'fast-check'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { evaluateWithScorer, recordsToJsonl, resultToJson } from '../../src/core/index.ts'
import { render } from '../../src/report/index.ts'
import type { ScoreContext, ScoreRequest } from '../../src/core/scorer/contract.ts'
import { planOutputs, writeOutputs } from '../../src/core/support/outputs.ts'
import { cliProgress } from '../../src/cli/progress.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { MIN_FRAGMENT, secretScrubber } from '../../src/scorers/http/scrub.ts'
import { loadTokenizer } from '../../src/scorers/onnx/prompt/tokenizer.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { CLI, run, sceptic } from '../helpers/run.ts'
import { makeModel } from '../scorers/onnx/helpers.ts'
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

  it('a scorer module whose top-level await never settles: bounded by --timeout, exit 4', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, 'setInterval(() => {}, 1000)\nawait new Promise(() => {})\nexport default () => []\n')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--timeout', '1'], { timeoutMs: 20_000 })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/timed out after 1 s \(--timeout\) with 0 of 2 decisions scored/)
  })

  it('a scorer that ends the process with exit code 0 mid-run: exit 4, not 0', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, 'export default () => process.exit(0)\n')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer])
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/the run ended before it completed/)
  })

  it('a scorer that throws a non-Error value: exit 4 with one line naming the request', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, 'export default () => Promise.reject(42)\n')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer])
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/^sceptic: ScorerError: the scorer threw on .*decision "d0".*: 42$/)
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
    const controller = new AbortController()
    let arrived = 0
    const server = createServer((req, res) => {
      const started = Date.now()
      res.on('close', () => closed.push(Date.now() - started))
      setTimeout(() => res.end('{}'), 30_000).unref()
      // Abort once all four are in flight, not after a fixed delay: on a loaded machine a
      // timer could fire before the fourth request is sent, and the test would fail by chance.
      if (++arrived === 4) controller.abort()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const baseURL = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
      const score = openAIScorer({ baseURL, model: 'm', concurrency: 4, timeoutMs: 60_000, retries: 0 })
      const run = evaluateWithScorer(decisions(4), score, { signal: controller.signal })
      await expect(run).rejects.toThrow(/aborted/i)
      // The closes reach the server as socket events after the rejection: wait for them (bounded), not a fixed 300 ms.
      await vi.waitFor(() => expect(closed).toHaveLength(4), { timeout: 5_000, interval: 20 })
      expect(arrived).toBe(4)
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
      // The limit also covers loading the scorer module; its requests reach the server about 50 ms
      // after the clock starts here, so 2 s leaves a wide margin on a loaded machine.
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--timeout', '2'], { timeoutMs: 20_000 })
      expect(code).toBe(4)
      expect(oneLine(stderr)).toMatch(/timed out after 2 s \(--timeout\) with 0 of 3 decisions scored/)
      // The closes reach this process as socket events, possibly after the child's exit: wait for them (bounded).
      await vi.waitFor(() => expect(closed).toHaveLength(3), { timeout: 5_000, interval: 20 })
      expect(Math.max(...closed)).toBeLessThan(10_000)
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })
})

describe('HTTP: no part of a key leaks, whatever the cut', () => {
  // 164 characters, none of them in the rest of any message, so any leaked run shows up.
  const KEY = 'sk-' + Array.from({ length: 161 }, (_, i) => 'QWXZJKVq'[i % 8]).join('')
  const ENV = 'SCEPTIC_ADV_KEY'

  /** Every 6-character piece of the key (the scrubber's MIN_FRAGMENT) that an artifact holds. */
  function leaks(text: string): string[] {
    const found: string[] = []
    for (let start = 0; start + 6 <= KEY.length; start++) if (text.includes(KEY.slice(start, start + 6))) found.push(KEY.slice(start, start + 6))
    return found
  }

  it('an error body echoing the Authorization header, cut at every offset of the key: nothing leaks', async () => {
    expect(KEY).toHaveLength(164)
    process.env[ENV] = KEY
    // Decision i's padding puts the message's 200-character cut at offset i of the key.
    const server = await startFakeOpenAI(() => ({ kind: 'ok' }))
    const echo = createServer(async (req, res) => {
      let raw = ''
      for await (const chunk of req) raw += chunk
      const cut = Number(/cut (\d+)/.exec(JSON.parse(raw).prompt)![1])
      // "invalid key: " is 13 characters and "Bearer " 7: pad so the key starts at 200 - cut.
      res.writeHead(401)
      res.end('x'.repeat(200 - cut - 20) + `invalid key: ${req.headers.authorization}; plain ${KEY.slice(0, 80)}`)
    })
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    try {
      const baseURL = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`
      const score = openAIScorer({ baseURL, model: 'm', apiKeyEnv: ENV, retries: 0, concurrency: 8 })
      const rows = [...decisions(KEY.length + 1, (i) => `cut ${i}`), ...decisions(1).map((row) => ({ ...row, id: 'healthy' }))]
      const result = await evaluateWithScorer(rows, async (requests, context) => {
        // The last decision goes to a healthy server, so the run completes with 165 counted failures.
        const healthy = openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0 })
        const bad = requests.filter((r) => r.state.startsWith('cut '))
        const good = requests.filter((r) => !r.state.startsWith('cut '))
        const [a, b] = (await Promise.all([score(bad, context), healthy(good, context)])).map((outcomes) => [...outcomes])
        return requests.map((r) => (r.state.startsWith('cut ') ? a!.shift()! : b!.shift()!))
      })
      expect(result.failed).toBe(KEY.length + 1)
      expect(result.failures.every((f) => f.reason === 'http_error')).toBe(true)
      expect(result.failures.filter((f) => f.message.includes('Bearer [redacted]'))).toHaveLength(KEY.length - 9) // where the cut leaves room for the mark
      const artifacts = [JSON.stringify(resultToJson(result)), recordsToJsonl(result.records), render(result, { color: false }), JSON.stringify(result.failures)]
      for (const text of artifacts) expect(leaks(text)).toEqual([])
    } finally {
      delete process.env[ENV]
      echo.closeAllConnections()
      await new Promise((resolve) => echo.close(resolve))
      await server.close()
    }
  })

  it('property: whatever surrounds the key, whole or shortened, and wherever the cut falls, no piece of it survives', () => {
    const { clip, scrub } = secretScrubber([KEY])
    const piece = fc.tuple(fc.nat(KEY.length), fc.nat(KEY.length)).map(([a, b]) => KEY.slice(Math.min(a, b), Math.max(a, b)))
    fc.assert(
      fc.property(fc.string(), fc.oneof(fc.constant(KEY), piece), fc.string(), fc.nat(400), fc.boolean(), (before, secret, after, max, bearer) => {
        const text = before + (bearer ? 'Bearer ' : '') + secret + after
        for (const out of [clip(text, max), scrub(text)])
          for (let start = 0; start + MIN_FRAGMENT <= KEY.length; start++) expect(out.includes(KEY.slice(start, start + MIN_FRAGMENT))).toBe(false)
      }),
      { numRuns: 100 },
    )
  })

  it('the CLI: stderr and --json-out hold no part of the key; any Bearer token is redacted', async () => {
    const echo = createServer((req, res) => {
      res.writeHead(500)
      res.end(`upstream saw authorization=${req.headers.authorization} and forwarded Bearer abc.def-OTHER-TOKEN`)
    })
    await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve))
    try {
      const dir = temp()
      const data = writeData(dir, decisions(2))
      const baseURL = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/v1`
      const scorer = writeScorer(
        dir,
        `import { openAIScorer } from ${distUrl('dist/http/index.js')}
        export default openAIScorer({ baseURL: ${JSON.stringify(baseURL)}, model: 'm', apiKeyEnv: ${JSON.stringify(ENV)}, retries: 0 })\n`,
      )
      const json = join(dir, 'out.json')
      const { code, stdout, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', json], { env: { [ENV]: KEY }, timeoutMs: 20_000 })
      expect(code).toBe(4) // every decision failed
      expect(stderr).toMatch(/Bearer \[redacted\]/)
      expect(stderr).not.toContain('OTHER-TOKEN')
      for (const text of [stdout, stderr]) expect(leaks(text)).toEqual([])
      expect(existsSync(json)).toBe(false)
    } finally {
      echo.closeAllConnections()
      await new Promise((resolve) => echo.close(resolve))
    }
  })
})

describe('HTTP: connections that break or stall', () => {
  /** A server that sends half a 200 body, then `then`s: 'reset' destroys the socket, 'stall' never finishes. */
  async function halfBodyServer(then: 'reset' | 'stall') {
    const server = createServer((req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.write('{"choices": [')
      if (then === 'reset') setTimeout(() => res.socket?.destroy(), 20)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return {
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      close: async () => {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
      },
    }
  }

  // The reset comes 20 ms after the request arrives, but the client's limit runs from the send:
  // with a 300 ms limit a 280 ms stall before the server saw the request would turn the reset
  // into a timeout. A reset is not about the limit, so it gets one no stall reaches.
  it.each([
    ['reset mid-body', 'reset', 30_000, 'error', /body could not be read/],
    ['stalled mid-body', 'stall', 300, 'timeout', /body took longer than 300 ms/],
  ] as const)('a connection %s (%s) is a counted failure after its retries, never a hang', async (_, then, timeoutMs, reason, message) => {
    const server = await halfBodyServer(then)
    try {
      const score = openAIScorer({ baseURL: server.baseURL, model: 'm', timeoutMs, retries: 1, backoffMs: 10 })
      const result = await evaluateWithScorer(decisions(2), score, { debias: 'none', onWarning: () => {} }).catch((error: Error) => error)
      // Every decision failed: the run is an error naming the bucket, not a result.
      expect(result).toBeInstanceOf(Error)
      expect((result as Error).message).toMatch(new RegExp(`every decision failed to score \\(${reason} 2\\)`))
      expect((result as Error).message).toMatch(message)
      expect(score.stats()).toMatchObject({ attempts: 4, retries: 2, failures: { [reason]: 2 } })
    } finally {
      await server.close()
    }
  })
})

describe('HTTP: response bodies are capped', () => {
  /** A server whose body for the first call is `bytes` long (streamed in 64 KiB chunks unless `declare`), valid otherwise. */
  async function bigBodyServer(bytes: number, declare = false) {
    const ok = await startFakeOpenAI()
    let sent = 0
    const server = createServer(async (req, res) => {
      let raw = ''
      for await (const chunk of req) raw += chunk
      const prompt: string = JSON.parse(raw).prompt
      if (!prompt.startsWith('huge')) {
        // Relay to the fake model for an ordinary answer.
        const answer = await fetch(`${ok.baseURL}/completions`, { method: 'POST', body: raw, headers: { 'content-type': 'application/json' } })
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(await answer.text())
      }
      res.writeHead(200, { 'content-type': 'application/json', ...(declare ? { 'content-length': String(bytes) } : {}) })
      const chunk = Buffer.alloc(64 * 1024, 0x20)
      const pump = () => {
        while (sent < bytes && !res.destroyed) {
          sent += chunk.length
          if (!res.write(chunk)) return void res.once('drain', pump)
        }
        res.end()
      }
      res.on('close', () => res.destroy())
      pump()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    return {
      baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
      sent: () => sent,
      close: async () => {
        server.closeAllConnections()
        await new Promise((resolve) => server.close(resolve))
        await ok.close()
      },
    }
  }
  const rows = () => [...decisions(1, () => 'huge body please'), ...decisions(2, (i) => `Ticket ${i} about Billing`).map((d, i) => ({ ...d, id: `ok${i}` }))]

  it('a 256 MiB streamed body is a counted failure; reading stops near the 8 MiB cap', async () => {
    const server = await bigBodyServer(256 * 1024 * 1024)
    try {
      const score = openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0 })
      const result = await evaluateWithScorer(rows(), score)
      expect(result.n).toBe(2)
      expect(result.failures).toHaveLength(1)
      expect(result.failures[0]).toMatchObject({ id: 'd0', reason: 'error', message: expect.stringMatching(/grew past the 8388608-byte cap \(maxResponseBytes\)/) })
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(server.sent()).toBeLessThan(64 * 1024 * 1024) // the server was cut off, not read to the end
    } finally {
      await server.close()
    }
  }, 30_000)

  it('a declared content-length over the cap is refused before reading', async () => {
    const server = await bigBodyServer(9 * 1024 * 1024, true)
    try {
      const result = await evaluateWithScorer(rows(), openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0 }))
      expect(result.failures[0]).toMatchObject({ id: 'd0', reason: 'error', message: expect.stringMatching(/9437184 bytes is over the 8388608-byte cap/) })
    } finally {
      await server.close()
    }
  })

  it('maxResponseBytes raises the cap: the same 9 MiB body is read (and fails only as not JSON)', async () => {
    const server = await bigBodyServer(9 * 1024 * 1024)
    try {
      const result = await evaluateWithScorer(rows(), openAIScorer({ baseURL: server.baseURL, model: 'm', retries: 0, maxResponseBytes: 16 * 1024 * 1024 }))
      expect(result.failures[0]).toMatchObject({ id: 'd0', reason: 'parse_failure' })
    } finally {
      await server.close()
    }
  })

  it('maxResponseBytes must be an integer ≥ 1', () => {
    expect(() => openAIScorer({ baseURL: 'http://127.0.0.1:9/v1', model: 'm', maxResponseBytes: 0 })).toThrow(/maxResponseBytes must be an integer ≥ 1, got 0/)
  })
})

describe('output paths: checked before scoring, written all or nothing', () => {
  /** A data file, a scorer that records each call in `calls.txt`, and the folder. */
  function setup() {
    const dir = temp()
    const data = writeData(dir, decisions(4))
    const calls = join(dir, 'calls.txt')
    const scorer = writeScorer(
      dir,
      `import { appendFileSync } from 'node:fs'
      export default (requests) => (appendFileSync(${JSON.stringify(calls)}, 'call\\n'), requests.map(() => [0.7, 0.3]))\n`,
    )
    return { dir, data, scorer, scored: () => existsSync(calls) }
  }

  it.each([
    ['--json-out is the data file', (d: string, data: string) => ['--json-out', data], /--json-out .*: refusing to overwrite the input file/],
    ['--records-out is a symlink to the data file', (d: string, data: string) => (symlinkSync(data, join(d, 'link.jsonl')), ['--records-out', join(d, 'link.jsonl')]), /--records-out .*link\.jsonl: refusing to overwrite the input file/],
    ['--json-out is the scorer module', (d: string) => ['--json-out', join(d, 'scorer.mjs')], /refusing to overwrite the input file .*scorer\.mjs/],
    ['both outputs are one file', (d: string) => ['--json-out', join(d, 'r.json'), '--records-out', join(d, '.', 'sub', '..', 'r.json')], /--records-out .* and --json-out .* are the same file/],
    ['an output whose folder is a file', (d: string, data: string) => ['--json-out', join(data, 'r.json')], /--json-out .*: cannot create its folder \(ENOTDIR\)$/],
    ['an output that is a folder', (d: string) => ['--json-out', d], /--json-out .*: is a folder, not a file/],
  ])('%s: exit 2 with one line, before any scoring, input untouched', async (_, args, message) => {
    const { dir, data, scorer, scored } = setup()
    mkdirSync(join(dir, 'sub'))
    const before = readFileSync(data, 'utf8')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, ...args(dir, data)])
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(message)
    expect(scored()).toBe(false)
    expect(readFileSync(data, 'utf8')).toBe(before)
  })

  it.runIf(process.platform === 'linux')('an output under /proc, where Node\'s recursive mkdir never settles: exit 2 with one line, no hang', async () => {
    const { data, scorer, scored } = setup()
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', '/proc/sceptic-no-such/r.json'], { timeoutMs: 20_000 })
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/--json-out \/proc\/sceptic-no-such\/r\.json: cannot create its folder \(ENOENT\)/)
    expect(scored()).toBe(false)
  })

  it('missing parent folders are created; no temporary file is left behind', async () => {
    const { dir, data, scorer } = setup()
    const json = join(dir, 'a', 'b', 'r.json')
    const records = join(dir, 'c', 'r.jsonl')
    const { code } = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', json, '--records-out', records])
    expect(code).toBe(0)
    expect(JSON.parse(readFileSync(json, 'utf8')).n).toBe(4)
    expect(readFileSync(records, 'utf8').trim().split('\n')).toHaveLength(4)
    expect([...readdirSync(join(dir, 'a', 'b')), ...readdirSync(join(dir, 'c'))].sort()).toEqual(['r.json', 'r.jsonl'])
  })

  it('a write that fails half way leaves no output at all (and no temporary file): a DataError, one line', async () => {
    const dir = temp()
    const planned = await planOutputs(
      [
        { flag: '--json-out', path: join(dir, 'one', 'r.json') },
        { flag: '--records-out', path: join(dir, 'two', 'r.jsonl') },
      ],
      [],
    )
    // The second folder disappears between planning and writing.
    await import('node:fs/promises').then(({ rm }) => rm(join(dir, 'two'), { recursive: true }))
    const write = writeOutputs(planned.map((output) => ({ output, content: 'x' })))
    await expect(write).rejects.toMatchObject({ name: 'DataError', exitCode: 3, message: expect.stringMatching(/r\.jsonl: cannot write --records-out \(ENOENT\); no output was written$/) })
    expect(readdirSync(join(dir, 'one'))).toEqual([])
  })

  it.each([
    ['split --train-out onto the data (through a symlink)', (d: string, data: string) => (symlinkSync(data, join(d, 'l.jsonl')), ['split', data, '--eval-fraction', '0.5', '--train-out', join(d, 'l.jsonl'), '--eval-out', join(d, 'e.jsonl')]), /--train-out .*l\.jsonl: refusing to overwrite the input file/],
    ['split with both outputs one file', (d: string, data: string) => ['split', data, '--eval-fraction', '0.5', '--train-out', join(d, 't.jsonl'), '--eval-out', join(d, 'sub', '..', 't.jsonl')], /are the same file/],
    ['compare --json-out onto input B', (d: string, data: string) => ['compare', data, join(d, 'b.jsonl'), '--json-out', join(d, 'b.jsonl')], /--json-out .*b\.jsonl: refusing to overwrite the input file/],
    ['report -o (--html-out) onto the run JSON', (d: string) => ['report', join(d, 'run.json'), '-o', join(d, 'run.json')], /--html-out .*run\.json: refusing to overwrite the input file/],
    ['report -o (--html-out) into a folder that is a file', (d: string, data: string) => ['report', join(d, 'run.json'), '-o', join(data, 'r.html')], /--html-out .*: cannot create its folder \(ENOTDIR\)$/],
    ['report --html-out onto the run JSON', (d: string) => ['report', join(d, 'run.json'), '--html-out', join(d, 'run.json')], /--html-out .*run\.json: refusing to overwrite the input file/],
    ['optimize-model --model-out onto the input folder (through a symlink)', (d: string) => (symlinkSync(d, join(d, 'in-link')), ['optimize-model', d, '--model-out', join(d, 'in-link')]), /--model-out .*in-link: refusing to write into the input folder/],
    ['quantize-model --model-out into the input\'s onnx/ folder', (d: string) => ['quantize-model', d, '--model-out', join(d, 'sub', '..', 'onnx')], /--model-out .*onnx: refusing to write into the input folder .*onnx/],
    ['quantize-model --model-out onto a file', (d: string) => ['quantize-model', d, '--model-out', join(d, 'run.json')], /--model-out .*run\.json: is a file, not a folder/],
    ['optimize-model with the output folder as a second positional (the old form)', (d: string) => ['optimize-model', d, join(d, 'out')], /optimize-model writes to --model-out DIR: give the output folder as --model-out .*out\./],
  ])('%s: exit 2 with one line, nothing written', async (_, args, message) => {
    const { dir, data } = setup()
    mkdirSync(join(dir, 'sub'))
    writeFileSync(join(dir, 'b.jsonl'), readFileSync(data))
    writeFileSync(join(dir, 'run.json'), '{}')
    const argv = args(dir, data)
    const before = readdirSync(dir).sort()
    const { code, stderr } = await sceptic(argv)
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(message)
    expect(readdirSync(dir).sort()).toEqual(before)
  })

  it('split creates missing folders for both sides', async () => {
    const { dir, data } = setup()
    const { code } = await sceptic(['split', data, '--eval-fraction', '0.5', '--train-out', join(dir, 'x', 't.jsonl'), '--eval-out', join(dir, 'y', 'e.jsonl')])
    expect(code).toBe(0)
    const lines = (file: string) => readFileSync(file, 'utf8').trim().split('\n').length
    expect(lines(join(dir, 'x', 't.jsonl')) + lines(join(dir, 'y', 'e.jsonl'))).toBe(4)
  })
})

describe('CLI progress on stderr', () => {
  /** A stream stand-in and a clock the test moves. */
  function fake(isTTY: boolean) {
    const written: string[] = []
    let t = 0
    return { stream: { isTTY, write: (text: string) => written.push(text) }, written, now: () => t, advance: (ms: number) => (t += ms) }
  }
  const at = (scored: number) => ({ scored, total: 100, requestsScored: scored * 4, requestsTotal: 400 })

  it('on a terminal: one line rewritten in place (scored, rate, ETA in the Vitest format), cleared at the end', () => {
    const { stream, written, now, advance } = fake(true)
    const progress = cliProgress('data.jsonl', stream, {}, now)
    advance(500)
    progress.update(at(10)) // too soon after the start: nothing
    advance(1500)
    progress.update(at(20))
    advance(2000)
    progress.update(at(40))
    progress.update(at(100)) // the last one is never shown: the report follows
    progress.done()
    expect(written).toEqual([
      '\r\x1b[2Kdata.jsonl: 20/100 decisions scored · 10.0/s · ETA 8s',
      '\r\x1b[2Kdata.jsonl: 40/100 decisions scored · 10.0/s · ETA 6s',
      '\r\x1b[2K',
    ])
  })

  it.runIf(process.platform === 'linux' && existsSync('/usr/bin/script'))('sceptic evaluate on a real terminal (a pty): progress on stderr, cleared before the report', async () => {
    const dir = temp()
    // 600 two-option decisions under cyclic: 1200 requests, two scorer calls of at most 1024.
    const data = writeData(dir, decisions(600))
    const scorer = writeScorer(dir, 'export default async (requests) => (await new Promise((r) => setTimeout(r, 2100)), requests.map(() => [0.7, 0.3]))\n')
    const command = [process.execPath, CLI, 'evaluate', data, '--scorer', scorer, '--debias', 'cyclic'].map((arg) => `'${arg}'`).join(' ')
    const { code, stdout } = await run('/usr/bin/script', ['-qec', command, '/dev/null'], { timeoutMs: 30_000, env: { SCEPTIC_PROGRESS: undefined, CI: undefined, GITHUB_ACTIONS: undefined, TERM: 'xterm' } })
    expect(code).toBe(0)
    // Through the pty, stderr and stdout arrive together: the progress line, then its clearing, then the report.
    expect(stdout).toMatch(/\r\x1b\[2K.*data\.jsonl: 512\/600 decisions scored · \d+\.\d\/s · ETA \d+s\r\x1b\[2K/)
    expect(stdout).toMatch(/order consistency/)
  })

  it('not a terminal: silent; SCEPTIC_PROGRESS=1 forces plain lines, SCEPTIC_PROGRESS=0 silences a terminal', () => {
    for (const [isTTY, env, lines] of [
      [false, {}, 0],
      [false, { SCEPTIC_PROGRESS: '1' }, 1],
      [true, { SCEPTIC_PROGRESS: '0' }, 0],
      [true, { TERM: 'dumb' }, 0],
    ] as const) {
      const { stream, written, now, advance } = fake(isTTY)
      const progress = cliProgress('d', stream, env, now)
      advance(5000)
      progress.update(at(50))
      progress.done()
      expect(written, JSON.stringify(env)).toHaveLength(lines)
      if (lines) expect(written[0]).toBe('d: 50/100 decisions scored · 10.0/s · ETA 5s\n')
    }
  })
})

describe('ONNX: prompts longer than the model context', () => {
  const LONG = 'The customer wrote a very long message about Billing and many other things. '.repeat(12)
  const rows = () => [...decisions(3), ...decisions(1, () => LONG).map((d) => ({ ...d, id: 'long' }))]

  it('config.json max_position_embeddings: the long prompt is a counted too_long failure, checked before inference', async () => {
    const dir = makeModel({ tokenizer: 'bpe', decoder: { maxPositions: 64 } })
    writeFileSync(join(dir, 'config.json'), JSON.stringify({ model_type: 'fixture', max_position_embeddings: 64 }))
    const { onnxScorer } = await import('../../dist/onnx/index.js')
    const score = onnxScorer({ model: dir, workers: 1 })
    try {
      expect(score.settings.contextLength).toBe(64)
      const result = await evaluateWithScorer(rows(), score, { debias: 'cyclic' })
      expect(result.n).toBe(3)
      expect(result.failures).toHaveLength(1)
      expect(result.failures[0]).toMatchObject({ id: 'long', reason: 'too_long', message: expect.stringMatching(/^the prompt is \d+ tokens; the model's context is 64 \(contextLength\)$/) })
      expect(score.stats.requests).toBe(6) // 3 decisions × 2 rotations: the long one never reached a worker
    } finally {
      await score.close()
    }
  })

  it('the contextLength option, through the CLI: the failure counted in the JSON and gated (default rate 0: exit 1; 0.5: exit 0), no ORT log lines', async () => {
    const dir = temp()
    const model = makeModel({ tokenizer: 'bpe', decoder: { maxPositions: 64 } })
    const data = writeData(dir, rows())
    const scorer = writeScorer(
      dir,
      `import { onnxScorer } from ${distUrl('dist/onnx/index.js')}
      const s = onnxScorer({ model: ${JSON.stringify(model)}, workers: 1, contextLength: 64 })
      export default s
      export const close = () => s.close()\n`,
    )
    const json = join(dir, 'r.json')
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', json], { timeoutMs: 60_000 })
    expect(stderr).toBe('')
    expect(code).toBe(1)
    expect(JSON.parse(readFileSync(json, 'utf8'))).toMatchObject({ n: 3, failed: 1 })
    const allowed = await sceptic(['evaluate', data, '--scorer', scorer, '--json-out', json, '--max-failure-rate', '0.5'], { timeoutMs: 60_000 })
    expect(allowed.stderr).toBe('')
    expect(allowed.code).toBe(0)
  })

  it('without a known context, ORT fails the batch: exit 4 with one line, and ORT writes no log line of its own', async () => {
    const dir = temp()
    const model = makeModel({ tokenizer: 'bpe', decoder: { maxPositions: 64 } })
    const data = writeData(dir, rows())
    const { code, stderr } = await sceptic(['evaluate', data, '--model', model, '--workers', '1', '--debias', 'none'], { timeoutMs: 60_000, env: { NO_COLOR: '' } })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/^sceptic: ScorerError: onnxruntime failed on 4 requests: .*indices element out of data bounds/)
    expect(stderr).not.toMatch(/\x1b\[|onnxruntime:/)
  })
})
