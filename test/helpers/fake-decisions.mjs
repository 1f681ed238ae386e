// A real HTTP server on 127.0.0.1 speaking the OpenAI Decisions wire format (POST /v1/decisions):
// request `input: [{ role, content: [{ type: 'input_text', text }] }]` and `questions: [{ type:
// 'choice', name, instructions, choices: [{ value, description }] }]`; response `answers: [{ type:
// 'choice', name, choice, probabilities: [{ value, probability }] }]` rounded to two decimals,
// `{ type: 'refusal', name }`, `usage`, and OpenAI-shaped error bodies. Shared by the tests and
// `npm run bench:decide`.
import { createServer } from 'node:http'

/** Position-biased: slot 0 gets `first`, the rest share what is left. */
export const biased =
  (first = 0.7) =>
  (question) => {
    const n = question.choices.length
    return { probabilities: question.choices.map((_, slot) => (slot === 0 ? first : (1 - first) / (n - 1))) }
  }

/** Reads the state: the option whose description appears in it gets 0.9, whatever its slot. */
export const reader = () => (question, state) => {
  const n = question.choices.length
  const hit = question.choices.findIndex((choice) => state.includes(choice.description))
  return { probabilities: question.choices.map((_, slot) => (hit < 0 ? 1 / n : slot === hit ? 0.9 : 0.1 / (n - 1))) }
}

/** Tied: the first two slots share the mass equally, and the model chooses the second of them. */
export const tiedSecond = () => (question) => ({
  probabilities: question.choices.map((_, slot) => (slot < 2 ? 0.5 : 0)),
  choice: 1,
})

/** Refuses every question. */
export const refusing = () => () => 'refusal'

/**
 * Start the server. `decide(question, state, body)` answers one question (`{ probabilities
 * [by slot], choice? slot }` or `'refusal'`); `behave(body, call)` may instead make a call
 * slow (`{ delay: ms }`), fail (`{ status, body? }`), echo the Authorization header in a 401
 * (`{ echoKey: true }`) or answer garbage (`{ malformed: true }`).
 * @param {{ decide?: (question: any, state: string, body: any) => any, behave?: (body: any, call: number) => any }} [options]
 */
export async function startFakeDecisions({ decide = biased(), behave = () => ({}) } = {}) {
  const received = []
  let calls = 0
  let inFlight = 0
  let maxInFlight = 0
  const server = createServer(async (req, res) => {
    inFlight++
    maxInFlight = Math.max(maxInFlight, inFlight)
    try {
      let raw = ''
      for await (const chunk of req) raw += chunk
      const body = JSON.parse(raw)
      received.push({ path: req.url, headers: req.headers, body })
      const behaviour = behave(body, calls++) ?? {}
      if (behaviour.delay) await new Promise((resolve) => setTimeout(resolve, behaviour.delay))
      if (behaviour.echoKey) {
        res.writeHead(401, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${req.headers.authorization}`, type: 'invalid_request_error', code: 'invalid_api_key' } }))
      }
      if (behaviour.status) {
        res.writeHead(behaviour.status, { 'content-type': 'application/json' })
        return res.end(behaviour.body ?? JSON.stringify({ error: { message: 'upstream says no', type: 'server_error' } }))
      }
      if (behaviour.malformed) {
        res.writeHead(200, { 'content-type': 'application/json' })
        return res.end(JSON.stringify({ answers: [{ type: 'choice', name: 'nobody', choice: 'x', probabilities: [] }] }))
      }
      const state = body.input.flatMap((message) => message.content).map((part) => part.text ?? JSON.stringify(part.data)).join('\n')
      const answers = body.questions.map((question) => {
        const answer = decide(question, state, body)
        if (answer === 'refusal') return { type: 'refusal', name: question.name }
        const rounded = answer.probabilities.map((p) => Math.round(p * 100) / 100)
        const choice = answer.choice ?? rounded.indexOf(Math.max(...rounded))
        return {
          type: 'choice',
          name: question.name,
          choice: question.choices[choice].value,
          probabilities: question.choices.map((c, slot) => ({ value: c.value, probability: rounded[slot] })),
        }
      })
      const input = Math.ceil(raw.length / 4)
      const output = 6 * body.questions.length
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ model: body.model, answers, usage: { input_tokens: input, output_tokens: output, total_tokens: input + output } }))
    } catch (error) {
      res.writeHead(500)
      res.end(String(error))
    } finally {
      inFlight--
    }
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    received,
    get calls() {
      return calls
    },
    get maxInFlight() {
      return maxInFlight
    },
    close: () => new Promise((resolve) => (server.closeAllConnections?.(), server.close(() => resolve()))),
  }
}
