/**
 * Samplers reused, not one per evaluation. node-llama-cpp (3.21.1 and 3.22.1) makes a native sampler for
 * every `controlledEvaluate` call, and each holds a candidate array the size of the
 * vocabulary (1.8 MB at 151,936 tokens) that its `dispose()` does not free: only the
 * garbage collector does, and V8 does not count that memory, so it rarely runs for it. At the
 * Qwen2.5-0.5B shape a run's memory grew by about 2 MB per ordering (300 decisions with 4
 * sequences: 3.1 GiB peak against 1.2 GiB). Here a model's samplers go back to a pool when
 * node-llama-cpp disposes of them, and the next evaluation takes one from it, so a model has
 * as many samplers as evaluations run at once. A sampler's settings are applied again on
 * every call (`applyConfig`), so a reused one samples as a new one.
 */

import { NODE_LLAMA_CPP_VERSION } from './model-file.ts'

/** The part of node-llama-cpp's native binding this replaces: its sampler class. */
interface Bindings {
  AddonSampler: new (model: object) => NativeSampler
}
interface NativeSampler {
  dispose(): void
}

// Per binding (one per Llama instance): the pools of the models whose samplers are reused.
const pooled = new WeakMap<object, Map<object, NativeSampler[]>>()

/**
 * Reuse `model`'s samplers from now on. Returns what frees them, to call before the model is
 * disposed of: the pool's now, and any in use then when node-llama-cpp disposes of it. `llama` and `model` are
 * node-llama-cpp's; a binding without the sampler class is an error, not a silent leak.
 */
export function reuseSamplers(llama: unknown, model: unknown): () => void {
  const bindings = (llama as { _bindings?: Bindings })._bindings
  const native = (model as { _model?: object })._model
  if (!bindings || typeof bindings.AddonSampler !== 'function' || !native) throw new Error(`node-llama-cpp changed: no native sampler class (install node-llama-cpp ${NODE_LLAMA_CPP_VERSION})`)
  let pools = pooled.get(bindings)
  if (!pools) {
    pools = installPools(bindings)
    pooled.set(bindings, pools)
  }
  const pool: NativeSampler[] = []
  pools.set(native, pool)
  return () => {
    pools.delete(native)
    for (const sampler of pool.splice(0)) freeSampler(sampler)
  }
}

/** The binding's sampler class, wrapped: a model with a pool takes a sampler from it, others get a new one. */
function installPools(bindings: Bindings): Map<object, NativeSampler[]> {
  const Native = bindings.AddonSampler
  const pools = new Map<object, NativeSampler[]>()
  // A constructor that returns an object: `new AddonSampler(model)` gives that object.
  function AddonSampler(model: object): NativeSampler {
    const pool = pools.get(model)
    if (!pool) return new Native(model)
    const sampler = pool.pop() ?? new Native(model)
    // node-llama-cpp's dispose() returns it to the pool (its native dispose is read-only on the prototype).
    Object.defineProperty(sampler, 'dispose', {
      configurable: true,
      value: () => {
        // Twice in the pool would hand one sampler to two evaluations at once.
        if (pools.get(model) !== pool) freeSampler(sampler)
        else if (!pool.includes(sampler)) pool.push(sampler)
      },
    })
    return sampler
  }
  // The class's static methods (grammar checks) and instanceof stay the native class's.
  Object.setPrototypeOf(AddonSampler, Native)
  AddonSampler.prototype = Native.prototype
  bindings.AddonSampler = AddonSampler as unknown as Bindings['AddonSampler']
  return pools
}

function freeSampler(sampler: NativeSampler): void {
  delete (sampler as Partial<NativeSampler>).dispose
  sampler.dispose()
}
