// The bounds corpus: inputs sized or shaped to break a limit — HTTP status lines a Fetch
// Response cannot hold, timeouts past setTimeout's 2^31 − 1 ms, epoch counts and chunk sizes
// memory cannot hold, runaway chat templates, repeated flags, remote runs with many requests
// in flight. Every case asserts one verdict (a counted failure, a correct result, or one
// line with its exit code and no stack trace) and has a time bound.
import { cpSync, writeFileSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { deadline, MAX_TIMER_MS } from '../../src/core/support/abort.ts'
import { ConfigError, evaluateWithScorer, type EvalResult, type ScoreRequest } from '../../src/core/index.ts'
import { openAIScorer } from '../../src/scorers/http/index.ts'
import { chatRenderer } from '../../src/scorers/prompt/chat-template.ts'
import { describeDecisions } from '../../src/vitest/suite/describe-decisions.ts'
import { suiteDefaultsFrom } from '../../src/vitest/plugin/suite-defaults.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { ROOT, sceptic } from '../helpers/run.ts'
import { FIRST_SCORER, cleanup, decisions, distUrl, temp, writeData, writeScorer } from './helpers.ts'

afterAll(cleanup)

/** One line on stderr (beside the data's note about unlabelled decisions), no stack trace. */
function oneLine(stderr: string): string {
  const lines = stderr.trim().split('\n').filter((line) => !line.includes('unlabelled'))
  expect(lines, stderr).toHaveLength(1)
  expect(stderr).not.toMatch(/\n\s+at |unexpected error|FATAL ERROR/)
  return lines[0]!
}

/** A raw TCP server on 127.0.0.1 that answers every request with `reply` (a status line, headers and body) and closes. */
async function rawServer(reply: string): Promise<{ baseURL: string; server: Server }> {
  const sockets = new Set<Socket>()
  const server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.once('data', () => socket.end(reply))
  })
  server.on('close', () => sockets.forEach((s) => s.destroy()))
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, server }
}

const REQUEST: ScoreRequest = {
  state: 's',
  criterion: { key: 'k', options: [{ id: 'a', text: 'A' }, { id: 'b', text: 'B' }] },
  prompt: 'p',
  ordering: [0, 1],
} as unknown as ScoreRequest

describe('HTTP statuses a Fetch Response cannot hold: a counted http_error, never an uncaught exception', () => {
  it.each([
    ['205 with a body', 'HTTP/1.1 205 Reset Content\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}', /HTTP 205 .*a status without a body/],
    ['101 without an upgrade', 'HTTP/1.1 101 Switching Protocols\r\nconnection: close\r\n\r\n', /HTTP 101 .*not a final response status/],
    ['103 and then the connection closes', 'HTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\n', /HTTP 103 .*not a final response status/],
    ['099, below every status', 'HTTP/1.1 099 Low\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}', /HTTP 99 .*not a final response status/],
    ['600, above every status', 'HTTP/1.1 600 High\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}', /HTTP 600 .*not a valid response status/],
    ['999', 'HTTP/1.1 999 Higher\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}', /HTTP 999 .*not a valid response status/],
  ])('%s', async (_, reply, message) => {
    const { baseURL, server } = await rawServer(reply)
    try {
      const score = openAIScorer({ baseURL, model: 'm', retries: 0, timeoutMs: 5_000 })
      const [outcome] = (await score([REQUEST])) as unknown as [{ failure: string; message: string }]
      expect(outcome.failure).toBe('http_error')
      expect(outcome.message).toMatch(message)
      expect(score.stats().failures).toEqual({ http_error: 1 })
    } finally {
      server.close()
    }
  }, 15_000)

  it('sceptic evaluate against a server answering 600: exit 4, one line counting the http_error failures', async () => {
    const { baseURL, server } = await rawServer('HTTP/1.1 600 High\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}')
    try {
      const dir = temp()
      const data = writeData(dir, decisions(4))
      const scorer = writeScorer(dir, `import { openAIScorer } from ${distUrl('dist/http/index.js')}\nexport default openAIScorer({ baseURL: ${JSON.stringify(baseURL)}, model: 'm', retries: 0 })\n`)
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--no-cache', '--debias', 'none'], { timeoutMs: 20_000 })
      expect(code).toBe(4)
      expect(oneLine(stderr)).toMatch(/every decision failed to score \(http_error 4\); the first: HTTP 600 /)
    } finally {
      server.close()
    }
  }, 25_000)

  it('a 503 without Retry-After backs off by backoffMs (a missing header read as 0 s retried at once)', async () => {
    const { baseURL, server } = await rawServer('HTTP/1.1 503 Busy\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}')
    try {
      const score = openAIScorer({ baseURL, model: 'm', retries: 1, backoffMs: 400 })
      const started = performance.now()
      const [outcome] = (await score([REQUEST])) as unknown as [{ failure: string }]
      expect(outcome.failure).toBe('http_error')
      expect(score.stats().retries).toBe(1)
      expect(performance.now() - started).toBeGreaterThanOrEqual(390)
    } finally {
      server.close()
    }
  }, 15_000)
})

describe('remote runs with many requests in flight', () => {
  it('concurrency 32, under --timeout: no MaxListenersExceededWarning, exit 0', async () => {
    const server = await startFakeOpenAI(() => ({ kind: 'delay', ms: 30 }))
    try {
      const dir = temp()
      const data = writeData(dir, decisions(40))
      const scorer = writeScorer(dir, `import { openAIScorer } from ${distUrl('dist/http/index.js')}\nexport default openAIScorer({ baseURL: ${JSON.stringify(server.baseURL)}, model: 'm', concurrency: 32 })\n`)
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--no-cache', '--timeout', '60'], { timeoutMs: 30_000 })
      expect(stderr).not.toMatch(/MaxListenersExceededWarning|memory leak/)
      expect(code, stderr).toBe(0)
    } finally {
      await server.close()
    }
  }, 35_000)
})

describe('timeouts past setTimeout’s 2^31 − 1 ms', () => {
  it('deadline(2^31 ms) has not fired 200 ms later; a chained deadline still fires when due', async () => {
    const long = deadline(MAX_TIMER_MS + 1, () => new Error('fired'))
    const short = deadline(50, () => new Error('due'))
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect(long.signal.aborted).toBe(false)
    expect(short.signal.aborted).toBe(true)
    long.clear()
  })

  it('--timeout 2147484 (just past 2^31 − 1 ms) lets a run finish: exit 0', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(4))
    const scorer = writeScorer(dir, `export default async (requests) => { await new Promise((r) => setTimeout(r, 300)); return requests.map((r) => r.criterion.options.map((o) => (o.id === 'billing' ? 2 : 1))) }\n`)
    const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--no-cache', '--timeout', '2147484'], { timeoutMs: 20_000 })
    expect(stderr).not.toMatch(/timed out|TimeoutOverflowWarning/)
    expect(code, stderr).toBe(0)
  }, 25_000)

  it('--timeout above its maximum (1e9 s) and non-numbers are refused: exit 2 naming the bound', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, FIRST_SCORER)
    for (const value of ['1e10', '1e400', 'Infinity']) {
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--timeout', value], { timeoutMs: 20_000 })
      expect(code, value).toBe(2)
      expect(oneLine(stderr)).toMatch(/--timeout must be a positive number of seconds, got ".*" \(at most 1e9 s/)
    }
  }, 40_000)

  it('a suite timeout above 10^12 ms is refused, as a plugin default and on the suite', () => {
    expect(() => suiteDefaultsFrom({ timeout: 1e13 })).toThrow(/sceptic\(\{ timeout \}\)/)
    expect(() => describeDecisions('too long', { data: decisions(2), scorer: () => [], timeout: 1e13 })).toThrow(/timeout must be a positive number of milliseconds up to 1e12/)
  })
})

// A suite whose timeout is past 2^31 − 1 ms: its deadline and Vitest's hook timer fired at once.
const longSuite: { result?: EvalResult } = {}
describeDecisions(
  'a suite timeout of 2^31 ms',
  {
    data: decisions(4),
    scorer: async (requests: readonly ScoreRequest[]) => {
      await new Promise((resolve) => setTimeout(resolve, 100))
      return requests.map((r) => r.criterion.options.map((o) => (o.id === 'billing' ? 2 : 1)))
    },
    timeout: 2 ** 31,
    cache: false,
    baseline: false,
    statistics: false,
  },
  (result) => {
    longSuite.result = result
  },
)

describe('a suite timeout past 2^31 − 1 ms', () => {
  it('scores the suite instead of timing out at once', () => {
    expect(longSuite.result?.n).toBe(4)
  })
})

describe('sizes memory cannot hold are refused before any scoring', () => {
  const never = () => {
    throw new Error('the scorer must not be called')
  }
  const quiet = { onWarning: () => {}, statistics: false } as const

  it('epochs 1001 (above 1000) and 1000 epochs over 40,000 decisions (2^27 per-epoch values): ConfigError, scorer never called', async () => {
    await expect(evaluateWithScorer(decisions(2), never, { epochs: 1001, ...quiet })).rejects.toThrow(/epochs must be an integer ≥ 1 and ≤ 1000, got 1001/)
    const many = decisions(40_000)
    const error = await evaluateWithScorer(many, never, { epochs: 1000, ...quiet }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as Error).message).toMatch(/epochs 1000 over 40,000 decisions would hold 160,000,000 per-epoch values .* over the 134,217,728 one run may hold/)
  })

  it('chunkSize 10^6 and statistics.resamples 10^9: ConfigError naming the bound, scorer never called', async () => {
    await expect(evaluateWithScorer(decisions(2), never, { chunkSize: 1e6, ...quiet })).rejects.toThrow(/chunkSize must be an integer ≥ 1 and ≤ 100,000/)
    await expect(evaluateWithScorer(decisions(2), never, { onWarning: () => {}, statistics: { resamples: 1e9 } })).rejects.toThrow(/statistics\.resamples must be an integer ≥ 1 and ≤ 100,000, got 1000000000/)
    expect(() => suiteDefaultsFrom({ epochs: 5000 })).toThrow(/sceptic\(\{ epochs \}\)/)
    expect(() => suiteDefaultsFrom({ chunkSize: 1e6 })).toThrow(/sceptic\(\{ chunkSize \}\)/)
  })

  it('sceptic evaluate --epochs 1001 and sceptic compare --resamples 1000000: exit 2, one line with the bound', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, FIRST_SCORER)
    const epochs = await sceptic(['evaluate', data, '--scorer', scorer, '--epochs', '1001'], { timeoutMs: 20_000 })
    expect(epochs.code).toBe(2)
    expect(oneLine(epochs.stderr)).toBe('sceptic: ConfigError: --epochs must be an integer ≥ 1 and ≤ 1000, got "1001"')
    const compare = await sceptic(['compare', data, data, '--resamples', '1000000'], { timeoutMs: 20_000 })
    expect(compare.code).toBe(2)
    expect(oneLine(compare.stderr)).toBe('sceptic: UsageError: --resamples must be an integer ≥ 1 and ≤ 100000, got "1000000"')
  }, 40_000)

  it('--reducer at_least_2_ge_1.5 and pass_at_1_ge_-0.5 (T outside [0, 1]): exit 2 before scoring', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, FIRST_SCORER)
    for (const [reducer, t] of [['at_least_2_ge_1.5', '1.5'], ['pass_at_1_ge_-0.5', '-0.5']] as const) {
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, '--epochs', '2', '--reducer', reducer], { timeoutMs: 20_000 })
      expect(code, reducer).toBe(2)
      expect(oneLine(stderr)).toBe(`sceptic: ConfigError: reducer "${reducer}": T must be in [0, 1] (an epoch scores 0 or 1), got ${t}`)
    }
  }, 40_000)
})

describe('the command line: no silent last-wins, no ignored flags', () => {
  it('a value flag given twice is refused: exit 2, nothing scored', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, FIRST_SCORER)
    for (const twice of [['--epochs', '2', '--epochs', '3'], ['--json-out', join(dir, 'a.json'), '--json-out=' + join(dir, 'b.json')], ['--debias', 'none', '--debias', 'cyclic']]) {
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, ...twice], { timeoutMs: 20_000 })
      expect(code, twice.join(' ')).toBe(2)
      expect(oneLine(stderr)).toMatch(new RegExp(`^sceptic: UsageError: ${twice[0]} was given more than once; give it once`))
    }
  }, 60_000)

  it('--workers and --batch-size with --scorer are refused like --dtype: exit 2', async () => {
    const dir = temp()
    const data = writeData(dir, decisions(2))
    const scorer = writeScorer(dir, FIRST_SCORER)
    for (const flag of ['--workers', '--batch-size']) {
      const { code, stderr } = await sceptic(['evaluate', data, '--scorer', scorer, flag, '2'], { timeoutMs: 20_000 })
      expect(code, flag).toBe(2)
      expect(oneLine(stderr)).toBe(`sceptic: UsageError: ${flag} applies only to --model DIR (an ONNX model)`)
    }
  }, 40_000)
})

describe('runaway chat templates (untrusted tokenizer_config.json)', () => {
  const small = { baseMs: 1_000, perPromptMs: 0, memoryMb: 64 }
  // Loops 10^10 times, allocating little: only a deadline ends it.
  const LOOP = '{% for i in range(100000) %}{% for j in range(100000) %}{% endfor %}{% endfor %}'
  // Doubles a list 40 times: 2^40 entries, far past any heap.
  const HOG = '{% set ns = namespace(l=[1]) %}{% for i in range(40) %}{% set ns.l = ns.l + ns.l %}{% endfor %}'
  const onInvoice = (body: string) => `{% if 'invoice' in messages[0].content %}${body}{% endif %}user: {{ messages[0].content }}\nassistant:\n`

  it('a template that loops only on some prompts: the render call is bounded, a ConfigError naming the template', async () => {
    const render = (await chatRenderer({ chatTemplate: onInvoice(LOOP) }, {}, 'cfg.json', small))!
    try {
      expect(await render(['plain ticket'])).toEqual(['user: plain ticket\nassistant:'])
      const started = performance.now()
      await expect(render(['plain', 'my invoice'])).rejects.toThrow(/`chatTemplate` did not finish rendering 2 prompt\(s\) within 1 s/)
      expect(performance.now() - started).toBeLessThan(5_000)
      // The next call starts a fresh renderer.
      expect(await render(['again'])).toEqual(['user: again\nassistant:'])
    } finally {
      await render.close()
    }
  }, 20_000)

  it('a renderer slow to start (a busy machine) is not a looping template: the deadline counts from its start', async () => {
    // Regression: CI under load took over 1 s to fork the renderer, and a 1 s budget that
    // counted the fork failed a template that renders in milliseconds. Here the renderer's
    // start is held 1.5 s (a preload through NODE_OPTIONS, which the fork inherits).
    const dir = temp()
    const slow = join(dir, 'slow-start.cjs')
    writeFileSync(slow, 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500)\n')
    const render = (await chatRenderer({ chatTemplate: onInvoice('') }, {}, 'cfg.json', small))!
    const before = process.env.NODE_OPTIONS
    process.env.NODE_OPTIONS = `${before ?? ''} --require ${JSON.stringify(slow)}`
    try {
      const pending = render(['plain ticket'])
      process.env.NODE_OPTIONS = before
      if (before === undefined) delete process.env.NODE_OPTIONS
      expect(await pending).toEqual(['user: plain ticket\nassistant:'])
    } finally {
      if (before === undefined) delete process.env.NODE_OPTIONS
      else process.env.NODE_OPTIONS = before
      await render.close()
    }
  }, 20_000)

  it('the run signal stops a looping render at once', async () => {
    const render = (await chatRenderer({ chatTemplate: onInvoice(LOOP) }, {}, 'cfg.json', { ...small, baseMs: 60_000 }))!
    try {
      const stop = new AbortController()
      setTimeout(() => stop.abort(new Error('run timed out')), 300)
      const started = performance.now()
      await expect(render(['invoice'], stop.signal)).rejects.toThrow('run timed out')
      expect(performance.now() - started).toBeLessThan(3_000)
    } finally {
      await render.close()
    }
  }, 20_000)

  it('sceptic evaluate --chat-template with a template looping on some tickets, --timeout 3: exit 4 in bounded time', async () => {
    const dir = temp()
    const model = join(dir, 'model')
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    writeFileSync(join(model, 'tokenizer_config.json'), JSON.stringify({ chat_template: onInvoice(LOOP) }))
    const started = Date.now()
    const { code, stderr } = await sceptic(['evaluate', 'examples/data/tickets.jsonl', '--model', model, '--chat-template', '--workers', '1', '--no-cache', '--timeout', '3'], {
      timeoutMs: 30_000,
    })
    expect(code).toBe(4)
    expect(oneLine(stderr)).toMatch(/the run timed out after 3 s \(--timeout\)/)
    expect(Date.now() - started).toBeLessThan(20_000)
  }, 35_000)

  it('sceptic evaluate --chat-template with a template allocating gigabytes: exit 2, one-line ConfigError, no V8 abort', async () => {
    const dir = temp()
    const model = join(dir, 'model')
    cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
    writeFileSync(join(model, 'tokenizer_config.json'), JSON.stringify({ chat_template: onInvoice(HOG) }))
    const { code, stderr } = await sceptic(['evaluate', 'examples/data/tickets.jsonl', '--model', model, '--chat-template', '--workers', '1', '--no-cache'], { timeoutMs: 60_000 })
    expect(code).toBe(2)
    expect(oneLine(stderr)).toMatch(/tokenizer_config\.json: its chat_template ran out of memory while rendering \(its renderer may use 256 MB\)/)
  }, 65_000)
})
