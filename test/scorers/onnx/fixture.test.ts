// The fixture generator is deterministic, and the committed example model is its output.
import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { buildDecoder, buildModelFiles, TINY_EXAMPLE } from '../../../scripts/onnx-fixture/index.ts'

const sha = (data: Uint8Array | string) => createHash('sha256').update(data).digest('hex')

describe('fixture generator', () => {
  it('gives the same bytes for the same options, different bytes for another seed', () => {
    expect(sha(buildDecoder({ seed: 1 }))).toBe(sha(buildDecoder({ seed: 1 })))
    expect(sha(buildDecoder({ seed: 1 }))).not.toBe(sha(buildDecoder({ seed: 2 })))
  })

  it('examples/models/tiny is exactly what `npm run make-model` writes', () => {
    const dir = join(import.meta.dirname, '../../../examples/models/tiny')
    const { model, tokenizer } = buildModelFiles(TINY_EXAMPLE)
    // If this fails after a generator change: run `npm run make-model` and commit the result.
    expect(sha(readFileSync(join(dir, 'model.onnx')))).toBe(sha(model))
    expect(readFileSync(join(dir, 'tokenizer.json'), 'utf8')).toBe(tokenizer)
  })
})
