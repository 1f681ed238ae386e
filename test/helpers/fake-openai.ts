import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach } from 'vitest'

/** What the fake server should do with one call (decided per call by the test). */
export type Behaviour =
  | { kind: 'ok' }
  | { kind: 'delay'; ms: number }
  | { kind: 'status'; status: number; body?: string; retryAfter?: number }
  | { kind: 'malformed' }
  | { kind: 'no-logprobs' }
  | { kind: 'only-letters'; letters: string[] }
  | { kind: 'text'; text: string }
  | { kind: 'echo-auth'; status: number }

/** One call the server received. */
export interface Received {
  path: string
  headers: IncomingMessage['headers']
  body: any
}

/**
 * A real HTTP server on 127.0.0.1 that speaks the OpenAI completions and chat
 * protocols, with log-probs shaped like vLLM's (completions: `top_logprobs: [{token:
 * logprob}]`) and OpenAI's (chat: `content[0].top_logprobs: [{token, logprob, bytes}]`).
 * Its "model" reads the prompt: the option whose text appears in the state gets the
 * most mass, split between the " X" and "X" tokens, with filler tokens around.
 */
export async function startFakeOpenAI(behave: (body: any, call: number) => Behaviour = () => ({ kind: 'ok' })) {
  const received: Received[] = []
  let inFlight = 0
  let maxInFlight = 0
  let calls = 0
  let connections = 0
  /** Arrivals and answers in the order they happened, by prompt (for scheduling tests). */
  const events: { type: 'arrive' | 'answer'; prompt: string }[] = []
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      let raw = ''
      for await (const chunk of req) raw += chunk
      const body = JSON.parse(raw)
      received.push({ path: req.url ?? '', headers: req.headers, body })
      const behaviour = behave(body, calls++)
      const chat = req.url?.endsWith('/chat/completions')
      const prompt: string = chat ? body.messages[0].content : body.prompt
      events.push({ type: 'arrive', prompt })
      res.on('finish', () => events.push({ type: 'answer', prompt }))
      if (behaviour.kind === 'delay') await new Promise((r) => setTimeout(r, behaviour.ms))
      if (behaviour.kind === 'status') {
        res.writeHead(behaviour.status, behaviour.retryAfter !== undefined ? { 'retry-after': String(behaviour.retryAfter) } : {})
        return res.end(behaviour.body ?? JSON.stringify({ error: { message: 'upstream says no' } }))
      }
      if (behaviour.kind === 'echo-auth') {
        res.writeHead(behaviour.status)
        return res.end(`invalid key: ${req.headers.authorization}`)
      }
      if (behaviour.kind === 'malformed') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end('{"choices": [ {"text": ')
      }
      const top = letterLogprobs(prompt, behaviour.kind === 'only-letters' ? behaviour.letters : undefined)
      const logprobs = behaviour.kind === 'no-logprobs' || body.logprobs === undefined || body.logprobs === false ? null : top
      const text = behaviour.kind === 'text' ? behaviour.text : ' A'
      const choice = chat
        ? {
            index: 0,
            message: { role: 'assistant', content: text },
            logprobs: logprobs && {
              content: [{ token: text, logprob: -0.1, top_logprobs: Object.entries(logprobs).slice(0, body.top_logprobs).map(([token, logprob]) => ({ token, logprob, bytes: [...Buffer.from(token)] })) }],
            },
            finish_reason: 'length',
          }
        : {
            index: 0,
            text,
            logprobs: logprobs && { tokens: [text], token_logprobs: [-0.1], top_logprobs: [Object.fromEntries(Object.entries(logprobs).slice(0, body.logprobs))], text_offset: [0] },
            finish_reason: 'length',
          }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ id: 'cmpl-1', object: chat ? 'chat.completion' : 'text_completion', model: body.model, choices: [choice] }))
    } finally {
      inFlight--
    }
  })
  server.on('connection', () => connections++)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    events,
    /** TCP connections accepted so far (keep-alive reuses them). */
    get connections() {
      return connections
    },
    get maxInFlight() {
      return maxInFlight
    },
    // closeAllConnections: keep-alive sockets from fetch would otherwise hold close() for seconds.
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  }
}

/** `start` a fake server for the current test; every server started is closed after it (closing twice is harmless). */
export function fakeOpenAIPerTest(): (...args: Parameters<typeof startFakeOpenAI>) => ReturnType<typeof startFakeOpenAI> {
  let servers: Awaited<ReturnType<typeof startFakeOpenAI>>[] = []
  afterEach(async () => {
    await Promise.all(servers.map((s) => s.close()))
    servers = []
  })
  return async (...args) => {
    const server = await startFakeOpenAI(...args)
    servers.push(server)
    return server
  }
}

/**
 * The fake model's top log-probs for a prompt: a score per option line (3 if its text
 * appears in the state, else 0), softmaxed, each letter's mass split 3:1 between " X"
 * and "X", and filler tokens so that 20 entries come back, sorted by log-prob.
 */
export function letterLogprobs(prompt: string, only?: string[]): Record<string, number> {
  const [state = '', rest = ''] = prompt.split('\n\n')
  const options = [...rest.matchAll(/^([A-T])\. (.*)$/gm)].map(([, letter, text]) => ({ letter: letter!, text: text! }))
  const scores: number[] = options.map((o) => (state.toLowerCase().includes(o.text.toLowerCase()) ? 3 : 0))
  const z = scores.reduce((sum, s) => sum + Math.exp(s), 0)
  const mass = 0.9 // the rest goes to filler tokens
  const entries: [string, number][] = []
  options.forEach((o, i) => {
    if (only && !only.includes(o.letter)) return
    const p = (mass * Math.exp(scores[i]!)) / z
    entries.push([' ' + o.letter, Math.log(0.75 * p)], [o.letter, Math.log(0.25 * p)])
  })
  for (let i = 0; entries.length < 20; i++) entries.push([` filler${i}`, Math.log(0.001 / (i + 1))])
  return Object.fromEntries(entries.sort((a, b) => b[1] - a[1]))
}
