import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

/** The fake vocabulary: `" A"`…`" T"` are ids 100…119, `"A"`…`"T"` 200…219, filler tokens 1000 and up. */
export const LETTER_ID = (letter: string, spaced: boolean) => (spaced ? 100 : 200) + letter.charCodeAt(0) - 65
const FILLERS = 30

/**
 * The fake model's logits at the answer position: per option, 2 when its text appears in the
 * state, else 0, and −6 for the option in the last slot (a model that shuns the last slot);
 * `" X"` gets that logit plus log 3, `"X"` the logit itself (a 3:1 split); 30 filler tokens at 1.
 * So the top 20 holds fillers and the favoured letter only: most letters lie outside it.
 */
export function answerLogits(prompt: string): Map<number, number> {
  const [state = '', rest = ''] = prompt.split('\n\n')
  const options = [...rest.matchAll(/^([A-T])\. (.*)$/gm)].map(([, letter, text]) => ({ letter: letter!, text: text! }))
  const logits = new Map<number, number>()
  options.forEach(({ letter, text }, i) => {
    const logit = (state.toLowerCase().includes(text.toLowerCase()) ? 2 : 0) - (i === options.length - 1 ? 6 : 0)
    logits.set(LETTER_ID(letter, true), logit + Math.log(3))
    logits.set(LETTER_ID(letter, false), logit)
  })
  for (let j = 0; j < FILLERS; j++) logits.set(1000 + j, 1)
  return logits
}

/** Log-softmax of `logits` over its ids (or over `within` only). */
function logSoftmax(logits: Map<number, number>, within?: readonly number[]): Map<number, number> {
  const ids = within ? within.filter((id) => logits.has(id)) : [...logits.keys()]
  const max = Math.max(...ids.map((id) => logits.get(id)!))
  const log = max + Math.log(ids.reduce((sum, id) => sum + Math.exp(logits.get(id)! - max), 0))
  return new Map(ids.map((id) => [id, logits.get(id)! - log]))
}

const spelling = (id: number) => (id >= 1000 ? ` filler${id - 1000}` : id >= 200 ? String.fromCharCode(65 + id - 200) : ` ${String.fromCharCode(65 + id - 100)}`)

/**
 * A real HTTP server on 127.0.0.1 speaking the request fields of exact letter readouts.
 * `vllm`: `/tokenize` at the root; `/v1/completions` and `/v1/chat/completions` take
 * `allowed_token_ids` and `return_tokens_as_token_ids` (tokens named `token_id:N`); with
 * `logprobsMode: 'processed'` (vLLM's `--logprobs-mode processed_logprobs`) the log-probs are
 * over the allowed ids, with `'raw'` (vLLM's default) over the whole vocabulary, so the allowed
 * ids change only the sampled token. `sglang`: `/v1/tokenize`, the OpenAI routes (top-k only),
 * and the native `/generate` with `token_ids_logprob`. Other paths answer 404.
 */
export async function startFakeExactLetters({ dialect, logprobsMode = 'processed' }: { dialect: 'vllm' | 'sglang'; logprobsMode?: 'processed' | 'raw' }) {
  const received: { path: string; body: any }[] = []
  const server = createServer(async (req: IncomingMessage, res: ServerResponse) => {
    let raw = ''
    for await (const chunk of req) raw += chunk
    const body = JSON.parse(raw)
    const path = req.url ?? ''
    received.push({ path, body })
    const json = (value: unknown, status = 200) => (res.writeHead(status, { 'content-type': 'application/json' }), res.end(JSON.stringify(value)))
    if (path === (dialect === 'vllm' ? '/tokenize' : '/v1/tokenize')) {
      const text: string = body.prompt
      const single = /^ ?[A-T]$/.test(text) ? [LETTER_ID(text.trim(), text.startsWith(' '))] : [...text].map((c) => 500 + c.charCodeAt(0))
      return json({ tokens: single, count: single.length, max_model_len: 4096 })
    }
    if (dialect === 'sglang' && path === '/generate') {
      const logits = answerLogits(body.text)
      const all = logSoftmax(logits)
      const rows = (body.token_ids_logprob ?? []).map((id: number) => [all.get(id) ?? -Infinity, id, null])
      return json({ text: ' A', meta_info: { id: 'x', prompt_tokens: 10, completion_tokens: 1, output_token_ids_logprobs: [rows] } })
    }
    const chat = path === '/v1/chat/completions'
    if (!chat && path !== '/v1/completions') return json({ error: 'not found' }, 404)
    const prompt: string = chat ? body.messages[0].content : body.prompt
    const allowed: number[] | undefined = dialect === 'vllm' ? body.allowed_token_ids : undefined
    const logits = answerLogits(prompt)
    const dist = logSoftmax(logits, logprobsMode === 'processed' ? allowed : undefined)
    const k = chat ? body.top_logprobs : body.logprobs
    const named = (id: number) => (dialect === 'vllm' && body.return_tokens_as_token_ids ? `token_id:${id}` : spelling(id))
    const top = [...dist].sort((a, b) => b[1] - a[1] || a[0] - b[0]).slice(0, k)
    const choice = chat
      ? { index: 0, message: { role: 'assistant', content: ' A' }, logprobs: { content: [{ token: named(top[0]![0]), logprob: top[0]![1], top_logprobs: top.map(([id, logprob]) => ({ token: named(id), logprob })) }] } }
      : { index: 0, text: ' A', logprobs: { tokens: [named(top[0]![0])], token_logprobs: [top[0]![1]], top_logprobs: [Object.fromEntries(top.map(([id, logprob]) => [named(id), logprob]))] } }
    return json({ id: 'cmpl-1', choices: [choice] })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    close: () => new Promise<void>((resolve) => (server.close(() => resolve()), server.closeAllConnections())),
  }
}

/** The true probabilities of a prompt's letters: every spelling's mass, renormalised over the letters. */
export function trueLetterProbabilities(prompt: string, optionCount: number): number[] {
  const logits = answerLogits(prompt)
  const mass = Array.from({ length: optionCount }, (_, i) => {
    const letter = String.fromCharCode(65 + i)
    return Math.exp(logits.get(LETTER_ID(letter, true))!) + Math.exp(logits.get(LETTER_ID(letter, false))!)
  })
  const total = mass.reduce((a, b) => a + b, 0)
  return mass.map((m) => m / total)
}
