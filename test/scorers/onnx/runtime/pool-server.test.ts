// The shared pool: one model loaded in one process, scored by several clients over
// HTTP on 127.0.0.1. Clients here are in-process and in child processes.
import { execFile } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigError, ScorerError, connectScorer, onnxScorer, startScorerServer, type ScorerServer } from '../../../../dist/onnx/index.js'
import * as poolServerEntry from '../../../../dist/onnx/pool-server.js'
import { poolOf } from '../internal.ts'
import { cleanupTemp, makeModel, maxAbsDiff, request, sampleRequests, vectors } from '../helpers.ts'

const run = promisify(execFile)
const root = join(import.meta.dirname, '../../../..')
const dir = makeModel({ tokenizer: 'bpe', tokenizerOptions: { omitLetters: ['D'] } })
let server: ScorerServer
let expected: number[][]
const twoOptionRequests = () => sampleRequests().filter((r) => r.criterion.options.length === 2)

beforeAll(async () => {
  server = await startScorerServer({ model: dir })
  const local = onnxScorer({ model: dir })
  expected = vectors(await local(twoOptionRequests()))
  await local.close()
})
afterAll(async () => {
  await server.close()
  cleanupTemp()
})

describe('startScorerServer / connectScorer', () => {
  it('listens on 127.0.0.1 behind a random path token and describes the pool', () => {
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/[0-9a-f]{24}$/)
    expect(server.description).toMatch(/^onnx /)
    expect(poolServerEntry.startScorerServer).toBeTypeOf('function') // also a standalone entry
  })

  it('a client is a ScoreFn giving the same vectors as a local scorer', async () => {
    const client = connectScorer(server.url)
    expect(maxAbsDiff(await client(twoOptionRequests()), expected)).toBe(0)
    expect(client.description).toMatch(/^shared onnx scorer at http:\/\/127\.0\.0\.1:\d+$/)
    await client.close()
    await expect(client([request('x')])).rejects.toThrow(ScorerError)
  })

  it('serves three child-process clients at once from one pool', async () => {
    const clientScript = `
      import { connectScorer } from ${JSON.stringify(join(root, 'dist/onnx/index.js'))}
      const requests = JSON.parse(process.argv[1])
      const score = connectScorer(process.argv[2])
      const vectors = await score(requests)
      await score.close()
      process.stdout.write(JSON.stringify(vectors))`
    const spawned = poolOf(server.scorer)!.spawned
    const outputs = await Promise.all(
      [0, 1, 2].map(() => run(process.execPath, ['--input-type=module', '-e', clientScript, JSON.stringify(twoOptionRequests()), server.url], { timeout: 30_000 })),
    )
    for (const { stdout } of outputs) expect(maxAbsDiff(JSON.parse(stdout), expected)).toBe(0)
    expect(poolOf(server.scorer)!.spawned).toBe(spawned) // no extra model loads
  })

  it('keeps the error type across the wire (ConfigError for a letter that is not one token)', async () => {
    const client = connectScorer(server.url)
    const failing = client([request('four options need letter D')])
    await expect(failing).rejects.toThrow(ConfigError)
    await expect(failing).rejects.toThrow(/tokenizer\.json: the option letter "D" cannot be read after the prompt/)
  })

  it('refuses a wrong token or a malformed body', async () => {
    const wrong = server.url.replace(/[0-9a-f]{24}$/, '0'.repeat(24))
    await expect(connectScorer(wrong)([request('x')])).rejects.toThrow(/no such endpoint/)
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${server.url}/score`, { method: 'POST' }, (res) => {
        res.resume()
        resolve(res.statusCode!)
      })
      req.on('error', reject)
      req.end('{"requests": [{"state": 1}]}')
    })
    expect(status).toBe(400)
  })

  it('an unreachable server is a ScorerError naming the address', async () => {
    const other = await startScorerServer({ model: dir, workers: 1 })
    const client = connectScorer(other.url)
    await other.close()
    await other.close() // idempotent
    await expect(client([request('x')])).rejects.toThrow(/cannot reach the shared scorer at http:\/\/127\.0\.0\.1:\d+/)
  })

  it('a bad model directory fails startScorerServer itself', async () => {
    await expect(startScorerServer({ model: join(dir, 'missing') })).rejects.toThrow(ConfigError)
  })
})
