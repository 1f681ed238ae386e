// A simulated cache-aware router on 127.0.0.1, for the router test and npm run bench:replicas: one
// OpenAI-compatible URL in front of several replicas (bench/prefix-cache-server.mjs), routing as
// vLLM's router and SGLang's Model Gateway do with their cache-aware policy. The router keeps, per
// replica, the prompt blocks it has sent there (its approximate picture of that replica's prefix
// cache) and the requests it has in flight there. A request goes to the least-loaded replica when
// the loads are imbalanced (the busiest has more than `balanceAbs` requests over the idlest and more
// than `balanceRel` times it); otherwise to the replica holding the longest prefix of its prompt,
// when that prefix covers at least `matchShare` of the prompt; otherwise to the least-loaded
// replica (ties: the smallest cache picture, then the first).
import { createHash } from 'node:crypto'
import { Agent, createServer, request } from 'node:http'

/** The chained hashes of a prompt's whole `blockTokens`-token blocks (a word with its leading space is one token), and its token count. */
export function promptBlocks(prompt, blockTokens = 16) {
  const tokens = prompt.split(/(?=\s)/)
  const hashes = []
  let chain = ''
  for (let i = 0; i + blockTokens <= tokens.length; i += blockTokens) {
    chain = createHash('sha1').update(chain).update(tokens.slice(i, i + blockTokens).join('')).digest('hex')
    hashes.push(chain)
  }
  return { tokens: tokens.length, hashes }
}

/** The prompt of a completions, chat or SGLang-native body. */
const promptOf = (body) => body.prompt ?? body.text ?? body.messages?.[0]?.content ?? ''

/** Start a router in front of `replicas` (base URLs on the same paths: a request's path is forwarded as it came); resolves with its baseURL, counters and close(). */
export async function startCacheAwareRouter(replicas, { blockTokens = 16, balanceAbs = 16, balanceRel = 1.5, matchShare = 0.5 } = {}) {
  const targets = replicas.map((base) => ({ url: new URL(base), inFlight: 0, blocks: new Set(), requests: 0 }))
  const counts = { requests: 0, byPrefix: 0, leastLoaded: 0, imbalanced: 0 }
  const agent = new Agent({ keepAlive: true, maxSockets: 1024 })

  const choose = (prompt) => {
    const { hashes } = promptBlocks(prompt, blockTokens)
    const loads = targets.map((t) => t.inFlight)
    const max = Math.max(...loads)
    const min = Math.min(...loads)
    const least = () => targets.reduce((a, b) => (b.inFlight < a.inFlight || (b.inFlight === a.inFlight && b.blocks.size < a.blocks.size) ? b : a))
    let target
    if (max - min > balanceAbs && max > balanceRel * min) {
      target = least()
      counts.imbalanced++
    } else {
      const matched = targets.map((t) => {
        let n = 0
        while (n < hashes.length && t.blocks.has(hashes[n])) n++
        return n
      })
      const best = Math.max(...matched)
      if (hashes.length > 0 && best / hashes.length >= matchShare) {
        target = targets[matched.indexOf(best)]
        counts.byPrefix++
      } else {
        target = least()
        counts.leastLoaded++
      }
    }
    for (const hash of hashes) target.blocks.add(hash)
    return target
  }

  const server = createServer((req, res) => {
    const chunks = []
    req.on('data', (chunk) => chunks.push(chunk))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      let prompt = ''
      try {
        prompt = promptOf(JSON.parse(raw.toString('utf8')))
      } catch {}
      const target = choose(prompt)
      counts.requests++
      target.requests++
      target.inFlight++
      const upstream = request(
        { host: target.url.hostname, port: target.url.port, path: req.url, method: req.method, headers: { ...req.headers, 'content-length': String(raw.length) }, agent },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers)
          answer.pipe(res)
          answer.on('end', () => target.inFlight--)
        },
      )
      upstream.on('error', () => {
        target.inFlight--
        if (!res.headersSent) res.writeHead(502)
        res.end()
      })
      upstream.end(raw)
    })
  })
  server.keepAliveTimeout = 60_000
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    baseURL: `http://127.0.0.1:${server.address().port}/v1`,
    counts,
    /** Requests routed to each replica, in the order given. */
    perReplica: () => targets.map((t) => t.requests),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
        agent.destroy()
      }),
  }
}
