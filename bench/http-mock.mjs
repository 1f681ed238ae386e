// An OpenAI completions endpoint on 127.0.0.1 that answers instantly with a fixed body
// (letters A-D in top_logprobs), for npm run bench:http. Prints its port, then serves until killed.
import { createServer } from 'node:http'

const body = JSON.stringify({
  id: 'cmpl-bench',
  object: 'text_completion',
  choices: [{ index: 0, text: ' A', logprobs: { tokens: [' A'], token_logprobs: [-0.1], top_logprobs: [{ ' A': -0.4, ' B': -1.6, ' C': -2.2, ' D': -2.9 }] }, finish_reason: 'length' }],
})
const server = createServer((req, res) => {
  req.resume()
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) })
    res.end(body)
  })
})
server.keepAliveTimeout = 60_000
server.listen(0, '127.0.0.1', () => process.stdout.write(`${server.address().port}\n`))
process.on('disconnect', () => process.exit(0))
