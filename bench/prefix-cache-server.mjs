// A simulated inference replica on 127.0.0.1 for npm run bench:prefix and bench:http: OpenAI
// completions with letter log-probs and an LRU prefix cache of limited size at block granularity
// (as vLLM's automatic prefix caching keeps 16-token blocks). It processes at most `slots` requests
// at once (the others queue, first come first served); a request looks the cache up when it starts,
// holds its slot for `usPerToken` per *uncached* prompt token (simulated time, not CPU), and only
// when it finishes is its prefix cached. So orderings of one decision that start before the first
// finished each pay full price; sent after it, they hit.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'

/** Start one simulated replica; resolves with its baseURL, counters, activity timeline and close(). */
export async function startPrefixCacheServer({ blockTokens = 16, cacheBlocks = 2000, usPerToken = 60, slots = 4 } = {}) {
  const cache = new Map() // block hash → true, in LRU order (oldest first)
  const queue = []
  const counts = { requests: 0, tokens: 0, cachedTokens: 0, busyMs: 0 }
  const firstLines = new Set() // the first line of every prompt seen (a decision's evidence starts there)
  // [performance.now(), requests processing, requests queued] at every change: idle slots and queues over time.
  const timeline = [[performance.now(), 0, 0]]
  let active = 0
  const mark = () => timeline.push([performance.now(), active, queue.length])

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

  // When each slot is free, in simulated time: a job starts at max(its arrival, its slot's end), so a
  // timer that fires late (the client shares this process and its CPU) delays that answer, not the slot.
  const freeAt = Array.from({ length: slots }, () => 0)
  const start = () => {
    while (active < slots && queue.length > 0) {
      const job = queue.shift()
      active++
      const slot = freeAt.indexOf(Math.min(...freeAt))
      let hit = 0
      while (hit < job.hashes.length && cache.has(job.hashes[hit])) hit++
      for (let i = 0; i < hit; i++) {
        cache.delete(job.hashes[i])
        cache.set(job.hashes[i], true) // touch: most recently used
      }
      counts.tokens += job.tokens
      counts.cachedTokens += hit * blockTokens
      const ms = ((job.tokens - hit * blockTokens) * usPerToken) / 1000
      counts.busyMs += ms
      freeAt[slot] = Math.max(job.arrived, freeAt[slot]) + ms
      setTimeout(() => {
        for (const hash of job.hashes) {
          cache.delete(hash)
          cache.set(hash, true)
        }
        while (cache.size > cacheBlocks) cache.delete(cache.keys().next().value)
        active--
        job.respond()
        start()
        mark()
      }, freeAt[slot] - performance.now())
    }
    mark()
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
      queue.push({ ...blocksOf(prompt), arrived: performance.now(), respond: () => (res.writeHead(200, { 'content-type': 'application/json' }), res.end(body)) })
      start()
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    counts,
    firstLines,
    timeline,
    slots,
    close: () => new Promise((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  }
}
