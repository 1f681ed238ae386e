/**
 * The `int8` form of `sceptic quantize-model` (docs/onnx.md, "sceptic quantize-model"): a
 * MatMul by a constant float weight becomes `com.microsoft.MatMulIntegerToFloat` on uint8 activations and
 * int8 weights (ORT's U8S8 product, the form its CPU EP runs on VNNI/AMX integer units and with
 * VPMADDUBSW elsewhere). Weights: symmetric 7-bit per output column, in [-64, 64]. Activations:
 * symmetric int8 per row (one scale from that row's largest |x|), stored as uint8 on the fixed
 * zero point 128, quantized in the graph. Every scale belongs to one row or one column and the
 * integer product is exact, so a row's result does not depend on what else shares the batch.
 * Pure (the onnx-proto namespace is passed in).
 */
import type { onnx as OnnxNamespace } from 'onnx-proto'

/** The 7-bit weight (stored as int8) and its per-column scales of one `[K, N]` float matrix (row-major). */
export interface Int8Weight {
  /** `[K, N]` int8 in [-{@link WEIGHT_LEVELS}, {@link WEIGHT_LEVELS}], row-major. */
  readonly values: Int8Array
  /** `[N]` scales: `w ≈ values[k, n] * scales[n]`. */
  readonly scales: Float32Array
}

/**
 * The largest weight magnitude: 7 bits, as onnxruntime's `reduce_range`. ORT's U8S8 product on
 * CPUs without VNNI (AVX2, AVX-512 without VNNI) adds pairs of uint8 × int8 in int16
 * (VPMADDUBSW): 255 × 64 × 2 = 32640 fits, where full int8 weights (255 × 127 × 2) saturate and
 * moved decisions on an AVX2 CPU. ORT's `session.x64quantprecision` leaves weights within
 * [-64, 64] on this fast path (integer-precision.ts).
 */
export const WEIGHT_LEVELS = 64

/** Quantize `weight` (`[K, N]`, row-major) per column, symmetric: `scale = max|w| / WEIGHT_LEVELS`. */
export function quantizeColumns(weight: ArrayLike<number>, K: number, N: number): Int8Weight {
  const scales = new Float32Array(N)
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) scales[n] = Math.max(scales[n]!, Math.abs(weight[k * N + n]!))
  for (let n = 0; n < N; n++) scales[n] = scales[n]! / WEIGHT_LEVELS || 1
  const values = new Int8Array(K * N)
  for (let k = 0; k < K; k++) for (let n = 0; n < N; n++) values[k * N + n] = Math.max(-WEIGHT_LEVELS, Math.min(WEIGHT_LEVELS, Math.round(weight[k * N + n]! / scales[n]!)))
  return { values, scales }
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
    // Weights int8 on zero point 0 (the omitted last input): ORT's U8S8 product.
    { opType: 'MatMulIntegerToFloat', domain: 'com.microsoft', input: [n('xq'), weightName, C.one, scalesName, C.zeroU8], output: [n('y2')] },
    { opType: 'Mul', input: [n('y2'), n('scale')], output: [n('y2s')] },
    { opType: 'Shape', input: [input], output: [n('shape')] },
    { opType: 'Slice', input: [n('shape'), C.first, C.last], output: [n('lead')] },
    { opType: 'Concat', input: [n('lead'), n('n')], output: [n('outShape')], attribute: [{ name: 'axis', type: A.INT, i: 0 }] },
    { opType: 'Reshape', input: [n('y2s'), n('outShape')], output: [output] },
  ].map((node) => ({ ...node, name: node.output![0] }))
}
