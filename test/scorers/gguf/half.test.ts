// The GGUF writer's F16 conversion (halfBits, one pass over a Float32Array, fast enough for a
// 0.5B model's 494M weights) gives, value for value, the bits of the fixture's floatToHalf,
// which the small test models' F16 files were written with: rounding ties, subnormals, overflow,
// infinities, signed zeros and any float32 bit pattern.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { halfBits } from '../../../scripts/onnx-fixture/gguf.ts'
import { floatToHalf } from '../../../scripts/onnx-fixture/variants.ts'

const fromBits = (bits: number[]) => new Float32Array(new Uint32Array(bits).buffer)
const expected = (values: Float32Array) => Array.from(values, (v) => floatToHalf(v))

describe('halfBits', () => {
  it('rounds the edge cases as floatToHalf does', () => {
    const values = new Float32Array([
      0, -0, 1, -1, 65504, -65504, 65519.996, 65520, 1e6, -1e6, Infinity, -Infinity,
      // smallest normal and subnormal halves, below them, and ties at both
      2 ** -14, 2 ** -24, 2 ** -25, 2 ** -25 * 1.5, 3 * 2 ** -25, 2 ** -26, -(2 ** -24), 2 ** -14 - 2 ** -25,
      // ties to even in the normal range: 1 + 2^-11 rounds down, 1 + 3·2^-11 rounds up
      1 + 2 ** -11, 1 + 3 * 2 ** -11, 1 + 2 ** -11 + 2 ** -20, 2048 + 1, 2048 + 3,
      0.1, -0.3333333, 1e-8, -1e-30, 3.4e38,
    ])
    expect(Array.from(halfBits(values))).toEqual(expected(values))
  })

  it('gives floatToHalf bits for any float32 bit pattern (NaN: a quiet NaN)', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 0xffffffff }), { maxLength: 64 }), (bits) => {
        const values = fromBits(bits)
        const got = Array.from(halfBits(values))
        expected(values).forEach((want, i) => {
          // A NaN's sign does not survive a JavaScript number; its half is 0x7e00 either way.
          if (Number.isNaN(values[i])) expect(got[i]! & 0x7fff).toBe(0x7e00)
          else expect(got[i]).toBe(want)
        })
      }),
      { numRuns: 2000 },
    )
  })

  it('reads a view at an offset into a larger buffer', () => {
    const buffer = new Float32Array([7, 0.5, -2, 1e-5, 9])
    const view = buffer.subarray(1, 4)
    expect(Array.from(halfBits(view))).toEqual(expected(view))
  })
})
