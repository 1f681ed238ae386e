// The per-request time limit of openAIScorer survives a garbage collection. It was
// AbortSignal.any([AbortSignal.timeout(ms), runSignal]); on Node 20 and 22 a collection can
// drop the timeout signal inside such a composite, so a server that stalled mid-body held the
// request forever (test/adversarial/runtime.test.ts hung this way once in a full run).
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import { expect, it } from 'vitest'
import { openAIScorer } from '../../../src/scorers/http/index.ts'

setFlagsFromString('--expose-gc')
const gc = runInNewContext('gc') as () => void

it('a server that stalls mid-body is a counted timeout even when a garbage collection runs meanwhile', async () => {
  const server = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"choices": [')
    setImmediate(() => (gc(), gc()))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const score = openAIScorer({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: 'm', timeoutMs: 300, retries: 0 })
    const criterion = { key: 'k', options: [{ id: 'a', text: 'x' }, { id: 'b', text: 'y' }] }
    // The run's signal, as the evaluator always passes one.
    const scored = score([{ state: 's', criterion, prompt: 'p' }], { signal: new AbortController().signal })
    const hung = new Promise((resolve) => setTimeout(() => resolve('still waiting after 10 s'), 10_000).unref())
    expect(await Promise.race([scored, hung])).toEqual([expect.objectContaining({ failure: 'timeout', message: expect.stringMatching(/body took longer than 300 ms/) })])
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})

it('a request of a run already cancelled is not sent: it rejects with the run\'s reason', async () => {
  let received = 0
  const server = createServer((req, res) => {
    received++
    res.writeHead(200, { 'content-type': 'application/json' })
    res.write('{"choices": [')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  try {
    const score = openAIScorer({ baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, model: 'm', timeoutMs: 5_000, retries: 0 })
    const criterion = { key: 'k', options: [{ id: 'a', text: 'x' }, { id: 'b', text: 'y' }] }
    const cancelled = new AbortController()
    cancelled.abort(new Error('run cancelled'))
    await expect(score([{ state: 's', criterion, prompt: 'p' }], { signal: cancelled.signal })).rejects.toThrow('run cancelled')
    expect(received).toBe(0)
  } finally {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  }
})
