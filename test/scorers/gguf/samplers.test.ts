// node-llama-cpp (3.21.1, and 3.22.1 still) makes a native sampler per controlledEvaluate call, holding a
// vocabulary-sized candidate array that only the garbage collector frees (V8 does not count it):
// at the Qwen2.5-0.5B shape a run grew by ~2 MB per ordering. reuseSamplers keeps a model's
// samplers in a pool: as many as evaluations run at once, the same probabilities, all freed on release.
import { getLlama } from 'node-llama-cpp'
import { afterAll, describe, expect, it } from 'vitest'
import { reuseSamplers } from '../../../src/scorers/gguf/samplers.ts'
import { SMALL, temp, writeTwins } from './helpers.ts'

afterAll(() => temp.removeAll())

/** A binding whose sampler class counts what it makes and frees. */
function fakeBindings() {
  const made: FakeSampler[] = []
  class FakeSampler {
    freed = 0
    constructor(readonly model: object) {
      made.push(this)
    }
    dispose(): void {
      this.freed++
    }
  }
  return { bindings: { AddonSampler: FakeSampler as new (model: object) => FakeSampler }, made }
}

describe('reuseSamplers, on a binding that counts', () => {
  it('hands a disposed sampler to the next evaluation, frees the pool on release, and leaves other models alone', () => {
    const { bindings, made } = fakeBindings()
    const mine = {}
    const other = {}
    const release = reuseSamplers({ _bindings: bindings }, { _model: mine })
    const a = new bindings.AddonSampler(mine)
    const b = new bindings.AddonSampler(mine)
    expect(made).toHaveLength(2)
    a.dispose()
    a.dispose() // twice: still one entry in the pool
    expect(new bindings.AddonSampler(mine)).toBe(a)
    expect(new bindings.AddonSampler(mine)).not.toBe(a)
    expect(made).toHaveLength(3)
    // Another model's samplers are made and freed as before.
    const c = new bindings.AddonSampler(other)
    c.dispose()
    expect(c.freed).toBe(1)
    expect(new bindings.AddonSampler(other)).not.toBe(c)
    b.dispose()
    expect(b.freed).toBe(0)
    release()
    expect(b.freed).toBe(1)
    // In use at release: freed when node-llama-cpp disposes of it.
    a.dispose()
    expect(a.freed).toBe(1)
    // After release the model's samplers are new ones again.
    expect(new bindings.AddonSampler(mine)).not.toBe(b)
  })

  it('refuses a binding without the sampler class', () => {
    expect(() => reuseSamplers({}, { _model: {} })).toThrow(/node-llama-cpp changed/)
    expect(() => reuseSamplers({ _bindings: { AddonSampler: 1 } }, { _model: {} })).toThrow(/node-llama-cpp changed/)
  })
})

describe('reuseSamplers, with node-llama-cpp', () => {
  it('60 evaluations on 3 sequences make at most 3 samplers, with the probabilities of new ones', async () => {
    const { gguf } = writeTwins(SMALL, ['F32'])
    const llama = await getLlama({ gpu: false, build: 'never', logger: () => {} })
    const model = await llama.loadModel({ modelPath: gguf.F32!, gpuLayers: 0 })
    const context = await model.createContext({ sequences: 3, contextSize: 256, threads: 1, flashAttention: false, experimentalKvCacheKeyType: 'F32', experimentalKvCacheValueType: 'F32' })
    const bindings = (llama as unknown as { _bindings: { AddonSampler: new (model: object) => unknown } })._bindings
    const Native = bindings.AddonSampler
    let made = 0
    // Counted under the pool: what the pool asks the binding for.
    bindings.AddonSampler = function (this: unknown, native: object) {
      made++
      return new Native(native)
    } as unknown as typeof Native
    const sequences = [0, 1, 2].map(() => context.getSequence())
    const run = async () => {
      const out: number[][] = []
      await Promise.all(
        sequences.map(async (sequence, s) => {
          for (let i = 0; i < 20; i++) {
            await sequence.clearHistory()
            const result = await sequence.controlledEvaluate([5 + s, 9, 12 + i, [20, { generateNext: { probabilities: true } }]] as never[])
            const probabilities = (result.at(-1) as { next: { probabilities: Map<number, number> } }).next.probabilities
            out[s * 20 + i] = [30, 31, 32].map((id) => probabilities.get(id) ?? 0)
          }
        }),
      )
      return out
    }
    try {
      const fresh = await run()
      expect(made).toBe(60)
      made = 0
      const release = reuseSamplers(llama, model)
      const reused = await run()
      expect(made).toBeLessThanOrEqual(3)
      // Batches form as the sequences race, so float rounding may differ in the last bits: a swapped or stale readout would not.
      const diff = Math.max(...reused.flatMap((row, r) => row.map((p, j) => Math.abs(p - fresh[r]![j]!))))
      expect(diff).toBeLessThan(1e-6)
      expect(new Set(fresh.map((row) => row.join())).size).toBeGreaterThan(30)
      release()
    } finally {
      bindings.AddonSampler = Native
      await context.dispose()
      await model.dispose()
    }
  }, 60_000)
})
