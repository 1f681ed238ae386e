// A simulated inference server on 127.0.0.1 for npm run bench:prefix: OpenAI completions with
// letter log-probs, an LRU prefix cache of limited size at block granularity (as vLLM's
// automatic prefix caching keeps 16-token blocks), and continuous batching: requests that arrive
// while a batch runs join the next one; a batch looks the cache up when it starts, costs
// `usPerToken` per *uncached* prompt token (simulated time, not CPU) and fills the cache when it
// ends. So orderings of one decision sent together all miss; sent after the first, they hit.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'

/** Start one simulated server; resolves with its baseURL, counters and close(). */
export async function startPrefixCacheServer({ blockTokens = 16, cacheBlocks = 2000, usPerToken = 60, maxBatch = 256 } = {}) {
  const cache = new Map() // block hash → true, in LRU order (oldest first)
  const queue = []
  const counts = { requests: 0, tokens: 0, cachedTokens: 0, batches: 0, busyMs: 0 }
  const firstLines = new Set() // the first line of every prompt seen (a decision's evidence starts there)
  let running = false

  const blocksOf = (prompt) => {
    const tokens = prompt.split(/(?=\s)/) // a word with its leading space is one token
    const hashes = []
    let chain = ''
    for (let i = 0; i + blockTokens <= tokens.length; i += blockTokens) {
      chain = createHash('sha1').update(chain).update(tokens.slice(i, i + blockTokens).join('')).digest('hex')
      hashes.push(chain)
    }
    return { tokens: tokens.length, hashes }
  }

  const runBatch = async () => {
    running = true
    while (queue.length > 0) {
      const batch = queue.splice(0, maxBatch)
      counts.batches++
      let uncached = 0
      for (const job of batch) {
        let hit = 0
        while (hit < job.hashes.length && cache.has(job.hashes[hit])) hit++
        for (let i = 0; i < hit; i++) {
          cache.delete(job.hashes[i])
          cache.set(job.hashes[i], true) // touch: most recently used
        }
        counts.tokens += job.tokens
        counts.cachedTokens += hit * blockTokens
        uncached += job.tokens - hit * blockTokens
      }
      const ms = (uncached * usPerToken) / 1000
      counts.busyMs += ms
      await new Promise((resolve) => setTimeout(resolve, ms))
      for (const job of batch) {
        for (const hash of job.hashes) {
          cache.delete(hash)
          cache.set(hash, true)
        }
        while (cache.size > cacheBlocks) cache.delete(cache.keys().next().value)
        job.respond()
      }
    }
    running = false
  }

  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (chunk) => (raw += chunk))
    req.on('end', () => {
      const { prompt } = JSON.parse(raw)
      counts.requests++
      firstLines.add(prompt.slice(0, prompt.indexOf('\n') >>> 0))
      const letters = [...prompt.matchAll(/^([A-T])\. /gm)].map((m) => m[1])
      const top = Object.fromEntries(letters.map((l, i) => [` ${l}`, -1 - i * 0.1]))
      const body = JSON.stringify({ choices: [{ index: 0, text: ' A', logprobs: { top_logprobs: [top] } }] })
      queue.push({ ...blocksOf(prompt), respond: () => (res.writeHead(200, { 'content-type': 'application/json' }), res.end(body)) })
      if (!running) void runBatch()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    counts,
    firstLines,
    close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  }
}
