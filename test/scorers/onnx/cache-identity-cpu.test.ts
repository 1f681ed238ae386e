// The score cache keys a graph with integer kernels by the CPU kind (docs/onnx-models.md, "Which
// CPU"): its cached scores from an AVX2 CPU are not reused on a VNNI one. Float graphs are not.
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { cpuKind } from '../../../src/core/support/cpu-kind.ts'
import { onnxCacheIdentity } from '../../../src/scorers/onnx/cache-identity.ts'
import { locateModel } from '../../../src/scorers/onnx/model/model-dir.ts'
import { INTEGER_KERNEL_OPS, integerKernelOp } from '../../../src/scorers/onnx/transform/activation-quant.ts'
import { quantizeModel } from '../../../src/scorers/onnx/transform/quantize.ts'
import { cleanupTemp, makeModel, tempDir } from './helpers.ts'

afterAll(cleanupTemp)

describe('the CPU kind in an ONNX cache identity', () => {
  const dir = makeModel({ tokenizer: 'bpe', decoder: { hidden: 32, layers: 1, heads: 4 } })

  it('fp32: no CPU kind (float kernels agree within rounding on every kind)', () => {
    expect(integerKernelOp(locateModel(dir).modelPath)).toBeUndefined()
    expect(onnxCacheIdentity(locateModel(dir), { executionProviders: ['cpu'] }).settings).toEqual({ executionProviders: ['cpu'] })
  })

  it.each([
    ['4-bit blocks', { bits: 4 }, 'MatMulNBits'],
    ['8-bit blocks, level 0', { bits: 8, accuracyLevel: 0 }, 'MatMulNBits'],
    ['int8', { format: 'int8' }, 'MatMulIntegerToFloat'],
  ] as const)('%s: keyed by this machine\'s CPU kind', async (name, options, op) => {
    const out = join(tempDir(), name.replace(/\W/g, ''))
    await quantizeModel(dir, out, options)
    const files = locateModel(out)
    expect(INTEGER_KERNEL_OPS).toContain(integerKernelOp(files.modelPath))
    expect(integerKernelOp(files.modelPath)).toBe(op)
    expect(onnxCacheIdentity(files, { executionProviders: ['cpu'] }).settings).toEqual({ executionProviders: ['cpu'], cpu: cpuKind().kind })
  })
})
