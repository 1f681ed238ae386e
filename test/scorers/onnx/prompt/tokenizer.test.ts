// tokenizer.json loading through @huggingface/tokenizers 0.2.0 and the letter readout ids.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Tokenizer } from '@huggingface/tokenizers'
import { afterAll, describe, expect, it } from 'vitest'
import { ConfigError } from '../../../../src/core/support/errors.ts'
import { LETTERS } from '../../../../src/core/decisions/schema.ts'
import { bpeTokenizer, wordLevelTokenizer, type TokenizerJson } from '../../../../scripts/onnx-fixture/index.ts'
import { loadTokenizer } from '../../../../src/scorers/onnx/prompt/tokenizer.ts'
import { cleanupTemp, tempDir } from '../helpers.ts'

afterAll(cleanupTemp)

function dirWith(json: TokenizerJson | string): string {
  const dir = tempDir()
  writeFileSync(join(dir, 'tokenizer.json'), typeof json === 'string' ? json : JSON.stringify(json))
  return dir
}

describe.each([
  ['byte-level BPE', bpeTokenizer()],
  ['WordLevel', wordLevelTokenizer()],
])('%s tokenizer.json', (_, json) => {
  it('gives each letter the last id of encoding " X", distinct for A..T', async () => {
    const tokenizer = await loadTokenizer(dirWith(json))
    const reference = new Tokenizer(json, { unk_token: '[UNK]' })
    const ids = [...tokenizer.letterIds(20)]
    expect(ids).toEqual(LETTERS.split('').map((letter) => reference.encode(' ' + letter).ids.at(-1)))
    expect(new Set(ids).size).toBe(20)
  })

  it('encodes prompts to ids the tokenizer decodes back', async () => {
    const tokenizer = await loadTokenizer(dirWith(json))
    const ids = tokenizer.encode('The invoice was charged twice.\nAnswer:')
    expect(ids.length).toBeGreaterThan(3)
    expect(Math.max(...ids)).toBeLessThan(tokenizer.vocabSize)
  })

  it('refuses a letter that is not one token, naming the file and the letter', async () => {
    const broken = (json.model as { type: string }).type === 'BPE' ? bpeTokenizer({ omitLetters: ['C'] }) : wordLevelTokenizer({ omitLetters: ['C'] })
    const dir = dirWith(broken)
    const tokenizer = await loadTokenizer(dir)
    expect([...tokenizer.letterIds(2)]).toHaveLength(2) // A and B still fine
    expect(() => tokenizer.letterIds(4)).toThrow(ConfigError)
    expect(() => tokenizer.letterIds(4)).toThrow(`${join(dir, 'tokenizer.json')}: the option letter "C" cannot be read after the prompt (ending …"Answer:", continued by " C")`)
  })
})

describe('WordLevel through the Legacy fallback', () => {
  it('maps unknown words to [UNK] instead of undefined', async () => {
    const tokenizer = await loadTokenizer(dirWith(wordLevelTokenizer()))
    const ids = tokenizer.encode('Zyzzyva quux invoice')
    expect([...ids].slice(0, 2)).toEqual([1, 1])
    expect(ids.every((id) => Number.isInteger(id))).toBe(true)
  })
})

describe('bad tokenizer files', () => {
  it('names the path of a missing tokenizer.json', async () => {
    const dir = tempDir()
    await expect(loadTokenizer(dir)).rejects.toThrow(`${join(dir, 'tokenizer.json')}: cannot read it (ENOENT)`)
  })

  it('names the path of a tokenizer.json that does not parse', async () => {
    const dir = dirWith('{"model": {"type": "BPE", ')
    await expect(loadTokenizer(dir)).rejects.toThrow(ConfigError)
    await expect(loadTokenizer(dir)).rejects.toThrow(`${join(dir, 'tokenizer.json')}: not valid JSON`)
  })

  it('names the path of JSON that is not a tokenizer', async () => {
    const dir = dirWith('{"hello": 1}')
    await expect(loadTokenizer(dir)).rejects.toThrow(`${join(dir, 'tokenizer.json')}: not a Hugging Face tokenizer.json`)
    const dir2 = dirWith('{"model": {"type": "Nonsense"}}')
    await expect(loadTokenizer(dir2)).rejects.toThrow(`${join(dir2, 'tokenizer.json')}: @huggingface/tokenizers cannot load it`)
  })

  it('names a tokenizer_config.json that does not parse', async () => {
    const dir = dirWith(bpeTokenizer())
    mkdirSync(dir, { recursive: true })
    writeFileSync(join(dir, 'tokenizer_config.json'), 'nope')
    await expect(loadTokenizer(dir)).rejects.toThrow(`${join(dir, 'tokenizer_config.json')}: not valid JSON`)
  })
})

describe('the in-process memo', () => {
  it('loads unchanged files once, and a rewritten tokenizer.json again even with its mtime set back', async () => {
    const dir = dirWith(wordLevelTokenizer())
    const first = await loadTokenizer(dir)
    expect(await loadTokenizer(dir)).toBe(first)
    const path = join(dir, 'tokenizer.json')
    const { statSync, utimesSync } = await import('node:fs')
    const before = statSync(path)
    writeFileSync(path, JSON.stringify(wordLevelTokenizer({ corpus: 'zyzzyva' })))
    utimesSync(path, before.atime, before.mtime)
    const second = await loadTokenizer(dir)
    expect(second).not.toBe(first)
    expect(second.vocabSize).toBe(first.vocabSize + 1)
  })
})
