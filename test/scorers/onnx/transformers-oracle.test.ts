// transformers.js as an independent oracle: with each real tokenizer (Qwen3, Llama-3,
// Gemma-3), plain and through the model's chat template, the scorer's letter
// probabilities equal those transformers.js computes on the same directory (its
// tokenizer, apply_chat_template, model forward, last-position logits at the letter
// ids), at batch 1 and batch 8. transformers.js runs with local files only.
import { basename, dirname, join } from 'node:path'
import { AutoModelForCausalLM, AutoTokenizer, env } from '@huggingface/transformers'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { LETTERS } from '../../../src/core/decisions/schema.ts'
import type { ScoreRequest } from '../../../src/core/scorer/contract.ts'
import { halfToFloat, softmax } from '../../../src/scorers/onnx/readout/readout.ts'
import { chatRenderer } from '../../../src/scorers/prompt/chat-template.ts'
import { letterContinuation } from '../../../src/scorers/prompt/letter-readout.ts'
import { loadTokenizer } from '../../../src/scorers/onnx/prompt/tokenizer.ts'
import { maxAbsDiff, QUEUE, request, scorerFactory, SENTIMENT, tempDir } from './helpers.ts'
import { REAL_DECODER, REAL_TOKENIZERS, writeRealModelDir, type RealTokenizer } from './real-tokenizers.ts'

// Each case runs transformers.js and the scorer on a real tokenizer's model (Gemma's 262k
// columns): about 25 s alone on 2 cores, past 60 s beside another test file.
vi.setConfig({ testTimeout: 240_000, hookTimeout: 240_000 })

const scorer = scorerFactory()
env.allowRemoteModels = false
env.useFSCache = false
env.useBrowserCache = false

/** A short state keeps Gemma's 262k-column logits small: every rotation of QUEUE (one prefix group), plus SENTIMENT. */
function requests(): ScoreRequest[] {
  const out: ScoreRequest[] = []
  for (const state of ['The invoice was charged twice.']) {
    for (let k = 0; k < 4; k++) out.push(request(state, { ...QUEUE, options: QUEUE.options.map((_, i) => QUEUE.options[(i + k) % 4]!) }))
    out.push(request(state, SENTIMENT))
  }
  return out
}

interface Chat {
  readonly system?: string
  readonly kwargs?: Record<string, unknown>
}

type Oracle = (list: readonly ScoreRequest[], chat?: Chat) => Promise<number[][]>

/** transformers.js end to end on `dir`: the probabilities of each request's letters. Call `dispose` when done. */
type OracleTokenizer = Awaited<ReturnType<typeof AutoTokenizer.from_pretrained>>

async function loadOracle(dir: string, dtype: 'fp32' | 'fp16' | 'int8' | 'q4' = 'fp32', loaded?: OracleTokenizer): Promise<{ oracle: Oracle; tokenizer: OracleTokenizer; dispose: () => Promise<unknown> }> {
  env.localModelPath = dirname(dir) + '/'
  const name = basename(dir)
  const tokenizer = loaded ?? (await AutoTokenizer.from_pretrained(name))
  const model = await AutoModelForCausalLM.from_pretrained(name, { dtype, device: 'cpu' })
  const oracle: Oracle = async (list, chat) => {
    const out: number[][] = []
    for (const r of list) {
      const messages = [...(chat?.system !== undefined ? [{ role: 'system', content: chat.system }] : []), { role: 'user', content: r.prompt }]
      const text = chat ? (tokenizer.apply_chat_template(messages, { tokenize: false, add_generation_prompt: true, ...chat.kwargs }) as string) : r.prompt
      const special = !chat
      const promptIds = tokenizer.encode(text, { add_special_tokens: special })
      const letterIds = r.criterion.options.map((_, i) => tokenizer.encode(text + letterContinuation(text, LETTERS[i]!), { add_special_tokens: special })[promptIds.length]!)
      const inputs = tokenizer(text, { add_special_tokens: special })
      const { logits } = (await model(inputs)) as { logits: { dims: number[]; data: Float32Array | Uint16Array } }
      const [, positions, vocab] = logits.dims as [number, number, number]
      // fp16 logits come back as raw half bits (Node has no Float16Array).
      const value = (i: number) => (logits.data instanceof Uint16Array ? halfToFloat(logits.data[i]!) : logits.data[i]!)
      out.push(softmax(letterIds.map((id) => value((positions - 1) * vocab + id))))
    }
    return out
  }
  return { oracle, tokenizer, dispose: () => model.dispose() }
}

/** What each tokenizer adds as BOS: the post-processor (Gemma-3: `<bos>`) or nothing (Qwen3; this Llama-3 export's post-processor is ByteLevel only). */
const BOS: Record<RealTokenizer, string | undefined> = { qwen3: undefined, llama3: undefined, gemma3: '<bos>' }

const CHATS: Record<RealTokenizer, Chat> = {
  qwen3: { system: 'You route support tickets.', kwargs: { enable_thinking: false } },
  llama3: { system: 'You route support tickets.' },
  gemma3: {},
}

describe.each(REAL_TOKENIZERS)('%s tokenizer', (name) => {
  let dir: string
  let oracle: Oracle
  let json: Awaited<ReturnType<typeof loadOracle>>['tokenizer']
  let dispose: () => Promise<unknown>
  beforeAll(async () => {
    dir = writeRealModelDir(join(tempDir('sceptic-real-'), name), name)
    ;({ oracle, dispose, tokenizer: json } = await loadOracle(dir))
  })
  afterAll(() => dispose())
  // The scorer's plain-prompt vectors at batch 8, started once (a scorer's start loads the
  // tokenizer twice and rewrites the graph: seconds at Gemma's vocabulary) and read by both tests.
  let plainAt8: Promise<Awaited<ReturnType<ReturnType<typeof scorer>>>> | undefined
  const plainBatch8 = () => (plainAt8 ??= Promise.resolve(scorer({ model: dir, workers: 1, threadsPerWorker: 1, batchSize: 8, maxLogitsBytes: 2 ** 30 })(requests())))

  it('BOS exactly once, plain and through the template; letters read as " A" after "Answer:" and "A" after the assistant header', async () => {
    const tokenizer = await loadTokenizer(dir)
    const bos = BOS[name]
    const text = requests()[0]!.prompt
    const render = (await chatRenderer({ chatTemplate: true, ...(CHATS[name].kwargs ? { chatTemplateKwargs: CHATS[name].kwargs } : {}) }, tokenizer.config, tokenizer.configPath))!
    const [chat] = (await render([text])) as [string]
    await render.close()
    for (const ids of [tokenizer.encode(text), tokenizer.encode(chat, false)]) {
      const bosCount = bos === undefined ? 0 : [...ids].filter((id) => id === json.convert_tokens_to_ids(bos)).length
      expect(bosCount).toBe(bos === undefined ? 0 : 1)
      if (bos !== undefined) expect(ids[0]).toBe(json.convert_tokens_to_ids(bos))
    }
    const decoded = (ids: Int32Array) => [...ids].map((id) => json.decode([id]))
    expect(decoded(tokenizer.letterIdsAfter(text, 4))).toEqual([' A', ' B', ' C', ' D'])
    expect(chat).toMatch(/\n$/)
    expect(decoded(tokenizer.letterIdsAfter(chat, 4, false))).toEqual(['A', 'B', 'C', 'D'])
  })

  it('plain prompt: equal to transformers.js within 1e-4 at batch 1 and 8', async () => {
    const list = requests()
    const expected = await oracle(list)
    const got = { 1: await scorer({ model: dir, workers: 1, threadsPerWorker: 1, batchSize: 1, maxLogitsBytes: 2 ** 30 })(list), 8: await plainBatch8() }
    for (const batchSize of [1, 8] as const) expect(maxAbsDiff(got[batchSize], expected), `batch ${batchSize}`).toBeLessThan(1e-4)
  })

  it('chat template: equal to transformers.js within 1e-4 at batch 1 and 8', async () => {
    const list = requests()
    const chat = CHATS[name]
    const expected = await oracle(list, chat)
    for (const batchSize of [1, 8]) {
      const s = scorer({ model: dir, workers: 1, threadsPerWorker: 1, batchSize, maxLogitsBytes: 2 ** 30, chatTemplate: true, ...(chat.system !== undefined ? { system: chat.system } : {}), ...(chat.kwargs ? { chatTemplateKwargs: chat.kwargs } : {}) })
      const got = await s(list)
      expect(maxAbsDiff(got, expected), `batch ${batchSize}`).toBeLessThan(1e-4)
    }
    // The template changes what the model reads: the plain prompt gives other numbers.
    expect(maxAbsDiff(await plainBatch8(), expected)).toBeGreaterThan(1e-3)
  })
})

// The variants people download, on the Qwen3 tokenizer through its chat template (the
// other tokenizers add time, not coverage: the variant changes the graph, not the text).
// One directory holds all three, so both tokenizers load once.
describe('qwen3 variants', () => {
  let dir: string
  let tokenizer: OracleTokenizer
  beforeAll(async () => {
    dir = writeRealModelDir(join(tempDir('sceptic-real-'), 'qwen3-variants'), 'qwen3', REAL_DECODER, ['fp16', 'int8', 'q4'])
    env.localModelPath = dirname(dir) + '/'
    tokenizer = await AutoTokenizer.from_pretrained(basename(dir))
  })

  it.each([
    ['fp16', 2e-3],
    ['int8', 1e-4],
    ['q4', 2e-3],
  ] as const)('%s, chat template: equal to transformers.js at batch 1 and 8', async (dtype, tolerance) => {
    const { oracle, dispose } = await loadOracle(dir, dtype, tokenizer)
    try {
      const list = requests()
      const chat = CHATS.qwen3
      const expected = await oracle(list, chat)
      for (const batchSize of [1, 8]) {
        const s = scorer({ model: dir, dtype, workers: 1, threadsPerWorker: 1, batchSize, maxLogitsBytes: 2 ** 30, chatTemplate: true, system: chat.system!, chatTemplateKwargs: chat.kwargs! })
        expect(maxAbsDiff(await s(list), expected), `batch ${batchSize}`).toBeLessThan(tolerance)
      }
    } finally {
      await dispose()
    }
  })
})
