// Chat templates and the in-context letter readout on the fixture tokenizer (fast; the
// real tokenizers are checked against transformers.js in ../transformers-oracle.test.ts).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../../src/core/support/errors.ts'
import { chatRenderer, type ChatOptions } from '../../../../src/scorers/prompt/chat-template.ts'
import { letterContinuation, letterIdsInContext } from '../../../../src/scorers/prompt/letter-readout.ts'
import { loadTokenizer } from '../../../../src/scorers/onnx/prompt/tokenizer.ts'
import { makeModel, maxAbsDiff, request, scorerFactory } from '../helpers.ts'

const scorer = scorerFactory()
const TEMPLATE =
  "{% for m in messages %}<|{{ m.role }}|>\n{{ m.content }}\n{% endfor %}{% if add_generation_prompt %}<|assistant|>\n{% if think is defined and not think %}(no thinking)\n{% endif %}{% endif %}"

describe('letterContinuation', () => {
  it('is " L" after a non-space character and L after whitespace', () => {
    expect(letterContinuation('Answer:', 'A')).toBe(' A')
    expect(letterContinuation('<|assistant|>\n', 'B')).toBe('B')
    expect(letterContinuation('Answer: ', 'C')).toBe('C')
    expect(letterContinuation('Answer:\t', 'D')).toBe('D')
  })
})

describe('letterIdsInContext', () => {
  // A toy encoder: every character is a token (its code), except "\tA" which is one token (999).
  const encode = (text: string) => {
    const out: number[] = []
    for (let i = 0; i < text.length; i++) {
      if (text.slice(i, i + 2) === '\tA') {
        out.push(999)
        i++
      } else out.push(text.charCodeAt(i))
    }
    return out
  }
  const decode = (id: number) => (id === 999 ? '\tA' : String.fromCharCode(id))

  it('takes the first id after the prompt, for each letter', () => {
    expect([...letterIdsInContext(encode, decode, 'Q:\n', 3, 'tok.json')]).toEqual([65, 66, 67])
  })

  it('refuses a letter that merges with the prompt, a shared first id, and a first token without the letter', () => {
    expect(() => letterIdsInContext(encode, decode, 'Q:\t', 2, 'tok.json')).toThrow('tok.json: the option letter "A" cannot be read after the prompt')
    expect(() => letterIdsInContext(encode, decode, 'Q:\t', 2, 'tok.json')).toThrow('not a prefix of the extended encoding')
    // " A" and " B" both start with the space token: not the letters' own tokens.
    expect(() => letterIdsInContext(encode, decode, 'Answer:', 2, 'tok.json')).toThrow('it is not a token of its own: the first token after the prompt is " "')
    const shared = (text: string) => (text === 'Q:\n' ? encode(text) : [...encode('Q:\n'), 7])
    expect(() => letterIdsInContext(shared, () => 'AB', 'Q:\n', 2, 'tok.json')).toThrow('tok.json: letters "A" and "B" share the first token id 7')
  })
})

/** One text through a renderer for these options, its thread closed after. */
async function renderOne(options: ChatOptions, config: Record<string, unknown>, text: string): Promise<string> {
  const render = (await chatRenderer(options, config, 'cfg.json'))!
  try {
    return (await render([text]))[0]!
  } finally {
    await render.close()
  }
}

describe('chatRenderer', () => {
  const config = { chat_template: TEMPLATE, bos_token: '<s>', eos_token: { __type: 'AddedToken', content: '</s>' } }

  it('twelve live renderers add one exit listener between them (ten would warn of a leak), removed when the last closes', async () => {
    const before = process.listenerCount('exit')
    const renderers = await Promise.all(Array.from({ length: 12 }, () => chatRenderer({ chatTemplate: true }, config, 'cfg.json')))
    try {
      expect(await Promise.all(renderers.map((render) => render!(['Q'])))).toEqual(Array(12).fill(['<|user|>\nQ\n<|assistant|>\n']))
      expect(process.listenerCount('exit')).toBe(before + 1)
    } finally {
      await Promise.all(renderers.map((render) => render!.close()))
    }
    expect(process.listenerCount('exit')).toBe(before)
  })

  it('renders the model template with system, user and the generation prompt; kwargs reach the template', async () => {
    const render = (await chatRenderer({ chatTemplate: true, system: 'Be brief.', chatTemplateKwargs: { think: false } }, config, 'cfg.json'))!
    expect(await render(['Which?\nAnswer:', 'Q2'])).toEqual(['<|system|>\nBe brief.\n<|user|>\nWhich?\nAnswer:\n<|assistant|>\n(no thinking)\n', '<|system|>\nBe brief.\n<|user|>\nQ2\n<|assistant|>\n(no thinking)\n'])
    await render.close()
    expect(await renderOne({ chatTemplate: true }, config, 'Q')).toBe('<|user|>\nQ\n<|assistant|>\n')
  })

  it('a string is a template of your own, with the special tokens of the config', async () => {
    expect(await renderOne({ chatTemplate: '{{ bos_token }}[{{ messages[0].content }}]{{ eos_token }} ' }, config, 'Q')).toBe('<s>[Q]</s> ')
  })

  it('the plain prompt when off; errors name the file or the option', async () => {
    expect(await chatRenderer({}, config, 'cfg.json')).toBeUndefined()
    expect(await chatRenderer({ chatTemplate: false }, config, 'cfg.json')).toBeUndefined()
    await expect(chatRenderer({ chatTemplate: true }, {}, 'cfg.json')).rejects.toThrow(ConfigError)
    await expect(chatRenderer({ chatTemplate: true }, {}, 'cfg.json')).rejects.toThrow('cfg.json: no chat_template, so chatTemplate: true (--chat-template) has nothing to render')
    await expect(chatRenderer({ system: 'x' }, config, 'cfg.json')).rejects.toThrow('`system` and `chatTemplateKwargs` apply only with `chatTemplate`')
    await expect(chatRenderer({ chatTemplate: '{% if %}' }, config, 'cfg.json')).rejects.toThrow('onnxScorer: `chatTemplate` does not compile')
    await expect(chatRenderer({ chatTemplate: true }, { chat_template: '{{ raise_exception("no") }}' }, 'cfg.json')).rejects.toThrow('cfg.json: its chat_template fails to render')
    for (const kwargs of [{ messages: [] }, { add_generation_prompt: false }, JSON.parse('{"__proto__": {"x": 1}}')])
      await expect(chatRenderer({ chatTemplate: true, chatTemplateKwargs: kwargs }, config, 'cfg.json')).rejects.toThrow('`chatTemplateKwargs` may not set')
    await expect(chatRenderer({ chatTemplate: true, chatTemplateKwargs: [] as never }, config, 'cfg.json')).rejects.toThrow('`chatTemplateKwargs` must be an object')
  })

  it('picks the "default" of named templates', async () => {
    const named = { chat_template: [{ name: 'tool_use', template: 'T' }, { name: 'default', template: 'D{{ messages[0].content }}' }] }
    expect(await renderOne({ chatTemplate: true }, named, 'x')).toBe('Dx')
  })
})

describe('the scorer with a chat template (fixture BPE tokenizer)', () => {
  const dir = makeModel({ tokenizer: 'bpe' })
  writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ chat_template: TEMPLATE }))

  it('reads the letter as "A" after the assistant header, not " A", and scores the rendered text', async () => {
    const tokenizer = await loadTokenizer(dir)
    const render = (await chatRenderer({ chatTemplate: true }, tokenizer.config, tokenizer.configPath))!
    const [rendered] = (await render([request('x').prompt])) as [string]
    await render.close()
    const ids = [...tokenizer.letterIdsAfter(rendered, 4, false)]
    expect(ids.map((id) => tokenizer.letterIdsAfter('Answer:', 4, false).includes(id))).toEqual([false, false, false, false])
    const chat = await scorer({ model: dir, workers: 1, chatTemplate: true })([request('The invoice was charged twice.')])
    const plain = await scorer({ model: dir, workers: 1 })([request('The invoice was charged twice.')])
    expect(maxAbsDiff(chat, plain)).toBeGreaterThan(1e-4)
  })

  it('a model without a template and chatTemplate: true fails at ready() naming tokenizer_config.json', async () => {
    const bare = makeModel({ tokenizer: 'bpe' }, 'bare')
    await expect(scorer({ model: bare, chatTemplate: true }).ready()).rejects.toThrow(`${join(bare, 'tokenizer_config.json')}: no chat_template`)
  })

  it('a template ending in a space merges the letter with it: a ConfigError, not a silent misread', async () => {
    const s = scorer({ model: dir, workers: 1, chatTemplate: '{{ messages[0].content }} ' })
    await expect(s([request('x')])).rejects.toThrow('the option letter "A" cannot be read after the prompt')
  })

  it('describes the template and keys it in the cache identity', () => {
    const a = scorer({ model: dir, chatTemplate: true })
    expect(a.description).toContain("the model's chat template")
    const ids = [{}, { chatTemplate: true }, { chatTemplate: true, system: 's' }, { chatTemplate: true, chatTemplateKwargs: { think: false } }, { chatTemplate: 'x' }].map((o) =>
      JSON.stringify(scorer({ model: dir, ...o }).cacheIdentity!.settings),
    )
    expect(new Set(ids).size).toBe(ids.length)
    // The plain prompt's identity is what it was before chat templates existed.
    expect(JSON.parse(ids[0]!)).toEqual({ executionProviders: ['cpu'] })
  })
})

describe('add_bos_token', () => {
  it('adds BOS once when tokenizer_config.json asks and the post-processor does not', async () => {
    const dir = makeModel({ tokenizer: 'bpe' }, 'bos')
    const plain = await loadTokenizer(dir)
    const base = [...plain.encode('Hello there.\nAnswer:')]
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ add_bos_token: true, bos_token: '<|endoftext|>' }))
    const withBos = await loadTokenizer(dir)
    const bosId = withBos.vocabSize - 1 // the fixture BPE's last id is <|endoftext|>
    expect([...withBos.encode('Hello there.\nAnswer:')]).toEqual([bosId, ...base])
    // Never twice: text already starting with it, or a chat template's text (special false).
    expect([...withBos.encode('<|endoftext|>Hello there.\nAnswer:')]).toEqual([bosId, ...base])
    expect([...withBos.encode('Hello there.\nAnswer:', false)]).toEqual(base)
  })
})

describe('plugin-shared models', () => {
  it('key the chat settings, the dtype and the context length like onnxScorer does (the served scorer\'s own identity)', () => {
    const dir = makeModel({ tokenizer: 'bpe', variants: ['fp16'] }, 'shared')
    const plain = scorer({ model: dir }).cacheIdentity!
    const chat = scorer({ model: dir, chatTemplate: true, system: 's' }).cacheIdentity!
    const fp16 = scorer({ model: dir, dtype: 'fp16' }).cacheIdentity!
    expect(plain.settings).toEqual({ executionProviders: ['cpu'] })
    expect(chat.settings).toEqual({ executionProviders: ['cpu'], chatTemplate: true, system: 's' })
    expect(fp16.settings).toEqual({ executionProviders: ['cpu'], dtype: 'fp16' })
    expect(scorer({ model: dir, contextLength: 64 }).cacheIdentity!.settings).toEqual({ executionProviders: ['cpu'], contextLength: 64 })
    expect(fp16.files!.model).toBe(join(dir, 'model_fp16.onnx'))
    expect(fp16.files!.config).toBe(join(dir, 'config.json'))
    expect(scorer({ model: dir, dtype: 'fp16', chatTemplate: true }).cacheIdentity!.settings).toEqual({ executionProviders: ['cpu'], dtype: 'fp16', chatTemplate: true })
  })
})
