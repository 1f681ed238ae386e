/**
 * One model, loaded once per run: a pool started in one process (Vitest's main
 * process, from a globalSetup) and reached by any number of client processes over
 * HTTP on 127.0.0.1. The client is itself a ScoreFn, so an eval file uses it like
 * any scorer. Without this, every Vitest worker that imports an eval file would load
 * its own copy of the weights (a 0.5B model is 2.5 GB per session).
 */
import { randomBytes } from 'node:crypto'
import { Agent, createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ConfigError, DataError, EvaluationError, ScorerError } from '../../../core/support/errors.ts'
import type { ScoreContext, ScoreRequest } from '../../../core/scorer/contract.ts'
import { onnxScorer } from '../scorer.ts'
import type { OnnxOutcome, OnnxScorer, OnnxScorerOptions } from '../options.ts'

/** Options of {@link startScorerServer}: the {@link onnxScorer} options plus where to listen. */
export interface ScorerServerOptions extends OnnxScorerOptions {
  /** Interface to bind. Default `127.0.0.1` (never reachable from other machines). */
  host?: string
  /** TCP port. Default 0: any free port (read it from `url`). */
  port?: number
}

/** A running shared scorer. */
export interface ScorerServer {
  /** Base URL to hand to {@link connectScorer}, e.g. `http://127.0.0.1:41234/3f9c…`. Holds a random path token. */
  readonly url: string
  /** The underlying scorer's description (`onnx DIR (2 workers × 1 thread, batch ≤ 4)`). */
  readonly description: string
  /** The pool itself, for in-process use. */
  readonly scorer: OnnxScorer
  /** Stop listening, drop idle connections, let running batches finish, stop the workers. Idempotent. */
  close(): Promise<void>
}

/** Options of {@link connectScorer}. */
export interface ConnectOptions {
  /** The scorer's description, for the report and `manifest.scorer`. Default `shared onnx scorer at http://127.0.0.1:PORT`. */
  description?: string
}

/** A client of a {@link ScorerServer}: a scorer with the same call, `close` and `description` as the local one. */
export interface RemoteScorer {
  /** Score on the server: one vector (or `too_long` failure) per request; aborting `context.signal` drops the HTTP call. */
  (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<OnnxOutcome[]>
  /** Release the client's idle connections. The server keeps running. */
  close(): Promise<void>
  /** The scorer's description, for the report and `manifest.scorer`. */
  readonly description: string
  /** This client's share of the served scorer's counters (a GGUF scorer's tokens), summed over its calls. */
  counters(): Record<string, number>
}

/** Largest request body the server accepts, bytes: far above a 1024-request evaluator chunk. */
const MAX_BODY = 256 * 1024 * 1024

/**
 * Start a pool on `options.model` and serve it. Resolves once the model is loaded,
 * so a bad model directory fails the globalSetup, not every test file.
 */
export async function startScorerServer(options: ScorerServerOptions, create: (options: OnnxScorerOptions) => OnnxScorer = onnxScorer): Promise<ScorerServer> {
  const { host = '127.0.0.1', port = 0, ...scorerOptions } = options
  // `create`: another local scorer with the same lifecycle (the plugin serves GGUF models this way).
  const scorer = create(scorerOptions)
  await scorer.ready().catch(async (error: unknown) => {
    await scorer.close()
    throw error
  })
  const token = randomBytes(12).toString('hex')
  // Numbers among the scorer's manifest entries are counters (a GGUF scorer's tokens). Each
  // call's share goes back with its vectors, so every client counts its own calls; such a
  // scorer's calls run here one at a time, which makes the share exact (a GGUF scorer runs
  // them one at a time anyway). Other scorers' calls run side by side, as before.
  const counted = Object.keys(countersOf(scorer)).length > 0
  let queue: Promise<unknown> = Promise.resolve()
  const scoreCounted = async (requests: ScoreRequest[]): Promise<{ vectors: OnnxOutcome[]; counters?: Record<string, number> }> => {
    if (!counted) return { vectors: await scorer(requests) }
    const call = queue.then(async () => {
      const before = countersOf(scorer)
      const vectors = await scorer(requests)
      const after = countersOf(scorer)
      return { vectors, counters: Object.fromEntries(Object.entries(after).map(([key, value]) => [key, value - (before[key] ?? 0)])) }
    })
    queue = call.catch(() => undefined)
    return call
  }
  const server = createServer((req, res) => void handle(req, res))
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const send = (status: number, body: unknown): void => {
      const text = JSON.stringify(body)
      res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) })
      res.end(text)
    }
    try {
      if (req.url === `/${token}/info` && req.method === 'GET') return send(200, { description: scorer.description, settings: scorer.settings })
      if (req.url !== `/${token}/score` || req.method !== 'POST') return send(404, { error: { name: 'ScorerError', message: `no such endpoint: ${req.method} ${req.url}` } })
      const body = JSON.parse(await readBody(req)) as { requests?: unknown }
      const requests = body.requests
      if (!Array.isArray(requests) || !requests.every(isRequest))
        return send(400, { error: { name: 'ScorerError', message: 'the body must be { requests: [{ state, criterion: { key, options }, prompt }] }' } })
      send(200, await scoreCounted(requests))
    } catch (error) {
      const name = error instanceof EvaluationError ? error.name : 'ScorerError'
      send(error instanceof EvaluationError ? 422 : 500, { error: { name, message: (error as Error)?.message ?? String(error) } })
    }
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => resolve())
  })
  // The server must not be what keeps a process alive: whoever started it decides when to exit.
  server.unref()
  const address = server.address() as AddressInfo
  const hostPart = address.family === 'IPv6' ? `[${address.address}]` : address.address
  let closing: Promise<void> | undefined
  return {
    url: `http://${hostPart}:${address.port}/${token}`,
    description: scorer.description,
    scorer,
    close: () =>
      (closing ??= (async () => {
        const stopped = new Promise<void>((resolve) => server.close(() => resolve()))
        server.closeIdleConnections()
        // Running requests finish (the pool drains them) before their connections close.
        await scorer.close()
        server.closeAllConnections()
        await stopped
      })()),
  }
}

/** A ScoreFn that sends requests to a {@link ScorerServer} at `url`. Errors keep their type (ConfigError, ScorerError…). */
export function connectScorer(url: string, options: ConnectOptions = {}): RemoteScorer {
  const base = new URL(url.endsWith('/') ? url : url + '/')
  if (base.protocol !== 'http:') throw new ConfigError(`connectScorer: ${url} is not an http:// URL from startScorerServer`)
  // Keep-alive, with idle sockets unref'd by Node's agent: no reconnect per call, no hang on exit.
  const agent = new Agent({ keepAlive: true })
  let closed = false
  const counters: Record<string, number> = {}
  const score = (requests: readonly ScoreRequest[], context?: ScoreContext): Promise<OnnxOutcome[]> => {
    if (closed) return Promise.reject(new ScorerError('this shared-scorer client is closed'))
    const body = JSON.stringify({ requests: requests.map(({ state, criterion, prompt }) => ({ state, criterion, prompt })) })
    return new Promise<OnnxOutcome[]>((resolve, reject) => {
      const req = httpRequest(
        new URL('score', base),
        { method: 'POST', agent, ...(context?.signal ? { signal: context.signal } : {}), headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } },
        (res) => {
          readBody(res).then((text) => {
            let parsed: { vectors?: OnnxOutcome[]; counters?: Record<string, number>; error?: { name: string; message: string } }
            try {
              parsed = JSON.parse(text)
            } catch {
              return reject(new ScorerError(`the shared scorer at ${base.origin} answered ${res.statusCode} with a body that is not JSON`))
            }
            if (res.statusCode === 200 && Array.isArray(parsed.vectors)) {
              for (const [key, value] of Object.entries(parsed.counters ?? {})) if (typeof value === 'number') counters[key] = (counters[key] ?? 0) + value
              return resolve(parsed.vectors)
            }
            reject(rebuildError(parsed.error, res.statusCode))
          }, reject)
        },
      )
      req.on('error', (error) => context?.signal.aborted ? reject(context.signal.reason) : reject(new ScorerError(`cannot reach the shared scorer at ${base.origin}: ${error.message}`)))
      req.end(body)
    })
  }
  return Object.defineProperties(score as RemoteScorer, {
    close: {
      value: async () => {
        closed = true
        agent.destroy()
      },
    },
    description: { value: options.description ?? `shared onnx scorer at ${base.origin}`, enumerable: true },
    counters: { value: () => ({ ...counters }) },
  })
}

/** The numeric entries of a scorer's `manifestEntries()`: its counters. */
export function countersOf(scorer: unknown): Record<string, number> {
  const entries = (scorer as { manifestEntries?: () => Record<string, unknown> }).manifestEntries?.() ?? {}
  return Object.fromEntries(Object.entries(entries).filter((entry): entry is [string, number] => typeof entry[1] === 'number'))
}

function rebuildError(error: { name: string; message: string } | undefined, status: number | undefined): Error {
  const message = error?.message ?? `the shared scorer answered HTTP ${status}`
  switch (error?.name) {
    case 'ConfigError':
      return new ConfigError(message)
    case 'DataError':
      return new DataError(message)
    default:
      return new ScorerError(message)
  }
}

function isRequest(value: unknown): value is ScoreRequest {
  const request = value as ScoreRequest
  return (
    typeof request === 'object' &&
    request !== null &&
    typeof request.state === 'string' &&
    typeof request.prompt === 'string' &&
    typeof request.criterion === 'object' &&
    request.criterion !== null &&
    Array.isArray(request.criterion.options)
  )
}

function readBody(stream: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > MAX_BODY) {
        stream.destroy()
        reject(new ScorerError(`request body larger than ${MAX_BODY} bytes`))
      } else chunks.push(chunk)
    })
    stream.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    stream.on('error', reject)
  })
}
