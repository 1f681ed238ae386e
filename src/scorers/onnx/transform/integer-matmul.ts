/**
 * The `int8` form of `sceptic quantize-model` (docs/onnx.md, "sceptic quantize-model"): a
 * MatMul by a constant float weight becomes `com.microsoft.MatMulIntegerToFloat` on uint8 activations and
 * int8 weights, the form ORT's CPU EP runs on VNNI/AMX integer units. Weights: symmetric
 * int8 per output column. Activations: symmetric int8 per row (one scale from that row's
 * largest |x|), stored as uint8 on the fixed zero point 128, quantized in the graph. Every
 * scale belongs to one row or one column and the integer product is exact, so a row's
 * result does not depend on what else shares the batch. Pure (the onnx-proto namespace is
 * passed in).
 */
import type { onnx as OnnxNamespace } from 'onnx-proto'

/** The int8 weight and its per-column scales of one `[K, N]` float matrix (row-major). */
export interface Int8Weight {
  /** `[K, N]` int8, row-major. */
  readonly values: Int8Array
  /** `[N]` scales: `w ≈ values[k, n] * scales[n]`. */
  readonly scales: Float32Array
}

/** Quantize `weight` (`[K, N]`, row-major) to int8 per column, symmetric: `scale = max|w| / 127`. */
export function quantizeColumns(weight: ArrayLike<number>, K: number, N: number): Int8Weight {
  const scales = new Float32Array(N)
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) scales[n] = Math.max(scales[n]!, Math.abs(weight[k * N + n]!))
  for (let n = 0; n < N; n++) scales[n] = scales[n]! / 127 || 1
  const values = new Int8Array(K * N)
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) values[k * N + n] = Math.max(-127, Math.min(127, Math.round(weight[k * N + n]! / scales[n]!)))
  return { values, scales }
}

/**
 * `values` as uint8 on the zero point 128 (`v + 128`, in [1, 255]): with uint8 activations this
 * is ORT's U8U8 product, exact on every x86-64 CPU. Int8 weights would make it U8S8, which
 * CPUs without VNNI (AVX2, AVX-512 without VNNI) compute with VPMADDUBSW, whose int16 pair
 * sums saturate (255 × 127 × 2 > 32767): the same model moved decisions on an AVX2 CPU.
 */
export function onZeroPoint128(values: Int8Array): Uint8Array {
  const out = new Uint8Array(values.length)
  for (let i = 0; i < values.length; i++) out[i] = values[i]! + 128
  return out
}

/** Names of the constants every rewritten MatMul shares (added once per graph by {@link sharedConstants}). */
const C = { max: 'sceptic_int8_127', zeroU8: 'sceptic_int8_zp', one: 'sceptic_int8_one', tiny: 'sceptic_int8_tiny', axes: 'sceptic_int8_axes', first: 'sceptic_int8_0', last: 'sceptic_int8_m1' } as const

/** The shared constants: 127, the uint8 zero point 128, 1, a floor for all-zero rows, the last axis, slice bounds. */
export function sharedConstants(onnx: typeof OnnxNamespace): OnnxNamespace.ITensorProto[] {
  const T = onnx.TensorProto.DataType
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  return [
    { name: C.max, dims: [], dataType: T.FLOAT, rawData: bytes(Float32Array.of(127)) },
    { name: C.zeroU8, dims: [], dataType: T.UINT8, rawData: Uint8Array.of(128) },
    { name: C.one, dims: [], dataType: T.FLOAT, rawData: bytes(Float32Array.of(1)) },
    { name: C.tiny, dims: [], dataType: T.FLOAT, rawData: bytes(Float32Array.of(1e-30)) },
    { name: C.axes, dims: [1], dataType: T.INT64, rawData: bytes(BigInt64Array.of(-1n)) },
    { name: C.first, dims: [1], dataType: T.INT64, rawData: bytes(BigInt64Array.of(0n)) },
    { name: C.last, dims: [1], dataType: T.INT64, rawData: bytes(BigInt64Array.of(-1n)) },
  ]
}

/** Per-MatMul constants: the 2-D view `[-1, K]` of the input and the output's last dimension `[N]`. */
export function matMulConstants(onnx: typeof OnnxNamespace, prefix: string, K: number, N: number): OnnxNamespace.ITensorProto[] {
  const T = onnx.TensorProto.DataType
  const bytes = (a: ArrayBufferView) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength)
  return [
    { name: `${prefix}_rows`, dims: [2], dataType: T.INT64, rawData: bytes(BigInt64Array.of(-1n, BigInt(K))) },
    { name: `${prefix}_n`, dims: [1], dataType: T.INT64, rawData: bytes(BigInt64Array.of(BigInt(N))) },
  ]
}

/**
 * Nodes computing `output = input × weight` through MatMulIntegerToFloat, for a weight
 * quantized by {@link quantizeColumns} stored as `weightName` (int8 `[K, N]`) and
 * `scalesName` (float `[N]`), with {@link matMulConstants} under `prefix`. The input is
 * viewed as rows `[M, K]`; each row's scale is its largest |x| / 127 (QuantizeLinear per
 * row, zero point 128); the integer product is scaled by the weight's column scales in
 * the same op, then by the row scale, and reshaped back. `opset` is the graph's
 * default-domain opset (ReduceMax takes its axes as an input from 18 on). With `smoothName`
 * (float `[K]`), the input is multiplied by it per channel first (the weight's rows carry
 * the inverse).
 */
export function integerMatMulNodes(onnx: typeof OnnxNamespace, input: string, output: string, weightName: string, scalesName: string, prefix: string, opset: number, smoothName?: string): OnnxNamespace.INodeProto[] {
  const A = onnx.AttributeProto.AttributeType
  const n = (suffix: string) => `${prefix}_${suffix}`
  const reduce: OnnxNamespace.INodeProto =
    opset >= 18
      ? { opType: 'ReduceMax', input: [n('abs'), C.axes], output: [n('amax')], attribute: [{ name: 'keepdims', type: A.INT, i: 1 }] }
      : { opType: 'ReduceMax', input: [n('abs')], output: [n('amax')], attribute: [{ name: 'keepdims', type: A.INT, i: 1 }, { name: 'axes', type: A.INTS, ints: [-1] }] }
  const smooth: OnnxNamespace.INodeProto[] = smoothName ? [{ opType: 'Mul', input: [input, smoothName], output: [n('xs')] }] : []
  return [
    ...smooth,
    { opType: 'Reshape', input: [smoothName ? n('xs') : input, n('rows')], output: [n('x2')] },
    { opType: 'Abs', input: [n('x2')], output: [n('abs')] },
    reduce,
    // One scale per row ([M, 1]); an all-zero row gets the floor (its values stay 0).
    { opType: 'Div', input: [n('amax'), C.max], output: [n('scale0')] },
    { opType: 'Max', input: [n('scale0'), C.tiny], output: [n('scale')] },
    { opType: 'Reshape', input: [n('scale'), C.last], output: [n('scale1')] },
    { opType: 'Shape', input: [n('scale1')], output: [n('m')] },
    { opType: 'Expand', input: [C.zeroU8, n('m')], output: [n('zp')] },
    // round(x / scale) + 128, saturated to uint8: in [1, 255] by construction.
    { opType: 'QuantizeLinear', input: [n('x2'), n('scale1'), n('zp')], output: [n('xq')], attribute: [{ name: 'axis', type: A.INT, i: 0 }] },
    { opType: 'MatMulIntegerToFloat', domain: 'com.microsoft', input: [n('xq'), weightName, C.one, scalesName, C.zeroU8, C.zeroU8], output: [n('y2')] },
    { opType: 'Mul', input: [n('y2'), n('scale')], output: [n('y2s')] },
    { opType: 'Shape', input: [input], output: [n('shape')] },
    { opType: 'Slice', input: [n('shape'), C.first, C.last], output: [n('lead')] },
    { opType: 'Concat', input: [n('lead'), n('n')], output: [n('outShape')], attribute: [{ name: 'axis', type: A.INT, i: 0 }] },
    { opType: 'Reshape', input: [n('y2s'), n('outShape')], output: [output] },
  ].map((node) => ({ ...node, name: node.output![0] }))
}
