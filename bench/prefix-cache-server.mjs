// A simulated inference replica on 127.0.0.1 for npm run bench:prefix and bench:http: OpenAI
// completions with letter log-probs and an LRU prefix cache of limited size at block granularity
// (as vLLM's automatic prefix caching keeps 16-token blocks). It processes at most `slots` requests
// at once (the others queue, first come first served); a request looks the cache up when it starts,
// holds its slot for `usPerToken` per *uncached* prompt token (simulated time, not CPU), and only
// when it finishes is its prefix cached. So orderings of one decision that start before the first
// finished each pay full price; sent after it, they hit.
import { createHash } from 'node:crypto'
import { createServer } from 'node:http'
import { promptBlocks } from './cache-aware-router.mjs'

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

  const blocksOf = (prompt) => promptBlocks(prompt, blockTokens)

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
      // The simulated model reads the prompt: each option's log-prob is a hash of the evidence and that option's text, so an answer
      // depends on its request (a request answered by another's answer changes the records) and not on the option's position.
      const evidence = prompt.slice(0, prompt.indexOf('\n') >>> 0)
      const options = [...prompt.matchAll(/^([A-T])\. (.*)$/gm)]
      const top = Object.fromEntries(options.map(([, letter, text]) => [` ${letter}`, -0.5 - createHash('sha1').update(evidence).update('\0').update(text).digest().readUInt16BE(0) / 20_000]))
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
