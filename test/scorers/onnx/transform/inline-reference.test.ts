// The letter head made at startup on a model with inline weights: the rewritten graph names
// the original file (hard-linked beside it) as external data at the weights' own offsets, so
// no copy of the weights is encoded or written, and onnxruntime computes the same logits as
// from a graph with the weights written inline.
import { readFileSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import * as ort from 'onnxruntime-node'
import { describe, expect, it } from 'vitest'
import { locateModel } from '../../../../src/scorers/onnx/model/model-dir.ts'
import { prepareReadout } from '../../../../src/scorers/onnx/readout/startup-readout.ts'
import { INLINE_SOURCE } from '../../../../src/scorers/onnx/transform/inline-reference.ts'
import { optimizeModel } from '../../../../src/scorers/onnx/transform/optimize.ts'
import { makeModel, maxAbsDiff, sampleRequests, scorerFactory, tempDir } from '../helpers.ts'

const scorer = scorerFactory()

async function lastLogits(path: string): Promise<number[]> {
  const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1 })
  try {
    const ids = [5, 77, 130, 9, 41]
    const n = ids.length
    const feeds: Record<string, ort.Tensor> = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [1, n]),
      attention_mask: new ort.Tensor('int64', new BigInt64Array(n).fill(1n), [1, n]),
      position_ids: new ort.Tensor('int64', BigInt64Array.from(ids, (_, i) => BigInt(i)), [1, n]),
    }
    for (const m of session.inputMetadata) if (m.name.startsWith('past_key_values.') && m.isTensor) feeds[m.name] = new ort.Tensor('float32', new Float32Array(0), [1, m.shape[1] as number, 0, m.shape[3] as number])
    const { logits } = await session.run(feeds)
    return [...(logits!.data as Float32Array)]
  } finally {
    await session.release()
  }
}

describe.each(['gpt2', 'qwen2'] as const)('%s fixture with inline weights', (architecture) => {
  const dir = makeModel({ tokenizer: 'bpe', decoder: { architecture, hidden: 128, layers: 2, heads: 4, kvHeads: 2, ffn: 512 } })
  const files = locateModel(dir)
  const original = statSync(files.modelPath)

  it('the startup rewrite writes a small graph and links the original for its weights', async () => {
    const readout = await prepareReadout({ files, mode: 'auto', sidecar: undefined, render: undefined })
    try {
      expect(readout.summary).toMatch(/made at startup/)
      expect(statSync(readout.modelPath).size).toBeLessThan(original.size / 10)
      // A hard link, not a copy: the same inode as the original file.
      expect(statSync(join(dirname(readout.modelPath), INLINE_SOURCE)).ino).toBe(original.ino)
    } finally {
      readout.dispose()
    }
  })

  it('the referenced graph gives exactly the logits of the graph written inline', async () => {
    const letterIds = [65, 66, 67, 68]
    const inline = await optimizeModel(dir, tempDir('sceptic-inline-a-'), { files, letterIds, sideFiles: false })
    const referenced = await optimizeModel(dir, tempDir('sceptic-inline-b-'), { files, letterIds, sideFiles: false, referenceInline: true })
    expect(statSync(inline.modelPath).size).toBeGreaterThan(original.size / 2)
    expect(readFileSync(referenced.modelPath).length).toBeLessThan(original.size / 10)
    expect(await lastLogits(referenced.modelPath)).toEqual(await lastLogits(inline.modelPath))
  })

  it('onnxScorer on it: the same probabilities as the full readout', async () => {
    const list = sampleRequests().slice(0, 6)
    const full = await scorer({ model: dir, workers: 1, threadsPerWorker: 1, readout: 'full' })(list)
    const cut = scorer({ model: dir, workers: 1, threadsPerWorker: 1 })
    expect((await cut.ready()).readout).toMatch(/made at startup/)
    expect(maxAbsDiff(await cut(list), full)).toBeLessThan(1e-5)
  })
})
