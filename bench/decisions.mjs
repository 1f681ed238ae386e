// Synthetic ticket decisions for the ONNX benchmarks: 4-option `queue` decisions whose
// evidence is grown from the fixture corpus until it reaches a token count.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { loadFixture } from '../scripts/load-fixture.mjs'

const root = fileURLToPath(new URL('..', import.meta.url))

/** The criterion every benchmark decision asks. */
export const QUEUE = {
  key: 'queue',
  question: 'Which queue should handle this ticket?',
  options: [
    { id: 'billing', text: 'Billing' },
    { id: 'tech', text: 'Technical support' },
    { id: 'account', text: 'Account access' },
    { id: 'sales', text: 'Sales' },
  ],
}

/**
 * `count` decisions whose `measure` (`'prompt'`: the whole prompt; `'evidence'`: the
 * state alone) has at least `tokens` tokens with the model directory's tokenizer.
 * Decisions are numbered from `first` (another `first` gives held-out decisions).
 * Returns them with the mean prompt and evidence lengths in tokens.
 */
export async function makeBenchDecisions(dir, count, { tokens, measure, first = 0 }) {
  const { Tokenizer } = await import('@huggingface/tokenizers')
  const { buildPrompt } = await import(join(root, 'dist/core/index.js'))
  const tokenizer = new Tokenizer(JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')), {})
  const sentences = (await loadFixture()).FIXTURE_CORPUS.split('\n')
  const length = (text) => tokenizer.encode(text).ids.length
  const decisions = []
  for (let d = first; d < first + count; d++) {
    let state = `Ticket ${d}.`
    const measured = () => length(measure === 'prompt' ? buildPrompt(state, QUEUE) : state)
    for (let s = d; measured() < tokens; s++) state += ' ' + sentences[s % sentences.length]
    decisions.push({ id: `d${d}`, state, criterion: QUEUE, answer_id: QUEUE.options[d % 4].id })
  }
  const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length
  return {
    decisions,
    promptTokens: mean(decisions.map((x) => length(buildPrompt(x.state, x.criterion)))),
    evidenceTokens: mean(decisions.map((x) => length(x.state))),
  }
}
