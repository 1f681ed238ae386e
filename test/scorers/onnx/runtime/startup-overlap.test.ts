// The workers start while the main thread still writes the letter head: they load ORT and
// the tokenizer, then the model once its path arrives; a readout that fails stops them.
import { afterAll, describe, expect, it } from 'vitest'
import { WorkerPool, type ModelLoad } from '../../../../src/scorers/onnx/runtime/pool.ts'
import { cleanupTemp, makeModel } from '../helpers.ts'

afterAll(() => cleanupTemp())
const dir = makeModel({ tokenizer: 'bpe' })
const init = { shownPath: `${dir}/model.onnx`, tokenizerDir: dir, intraOpNumThreads: 1, executionProviders: ['cpu'] }

describe('workers started before the model file exists', () => {
  it('spawn at once, wait for the path, then load the model and report ready', async () => {
    let give!: (load: ModelLoad) => void
    const pool = new WorkerPool(2, { ...init, modelPath: new Promise<ModelLoad>((resolve) => (give = resolve)) })
    const starting = pool.start()
    expect(pool.spawned).toBe(2)
    let ready = false
    void starting.then(() => (ready = true))
    await new Promise((r) => setTimeout(r, 300))
    expect(ready).toBe(false)
    give({ path: `${dir}/model.onnx` })
    const { plan, tokenizer } = await starting
    expect(plan.vocab).toBeGreaterThan(0)
    expect(tokenizer.vocabSize).toBeGreaterThan(0)
    await pool.close()
  })

  it('a path that never comes (the readout failed) rejects start and stops the workers', async () => {
    let fail!: (error: Error) => void
    const pool = new WorkerPool(2, { ...init, modelPath: new Promise<ModelLoad>((_, reject) => (fail = reject)) })
    const starting = pool.start()
    fail(new Error('letter head failed'))
    await expect(starting).rejects.toThrow('letter head failed')
    await pool.close()
    expect(pool.workers).toEqual([])
  })
})
