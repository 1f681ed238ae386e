/**
 * Graphs that quantize activations per tensor (docs/onnx.md, "Quantized models"): ORT's
 * dynamic quantization (`q8`/`int8`/`uint8` exports) computes one scale per activation
 * tensor from every value in it, so what else shares the batch (other prompts, padding, a
 * tiled prefix) changes each row's probabilities. Such graphs are scored one full prompt
 * per run. Detected from the op types in the graph file, without onnx-proto.
 */
import { closeSync, openSync, readSync } from 'node:fs'
import { largest } from '../../../core/support/spreadless.ts'

/** Op types whose scale depends on the whole activation tensor. */
export const PER_TENSOR_ACTIVATION_OPS = ['DynamicQuantizeLinear', 'DynamicQuantizeMatMul', 'DynamicQuantizeLSTM'] as const

const CHUNK = 16 * 1024 * 1024

/**
 * The first per-tensor activation-quantization op type named in the model file at
 * `path`, or `undefined`. Scans the bytes (op types are stored as plain strings in the
 * protobuf; external data holds only weights), so a name that only appears in a doc string
 * errs on the safe side: one prompt per run is exact, only slower.
 */
export function perTensorActivationOp(path: string): string | undefined {
  return firstOpNamed(path, PER_TENSOR_ACTIVATION_OPS)
}

/**
 * Op types that run on integer kernels, which differ by CPU kind (docs/onnx-models.md, "Which
 * CPU"): a graph holding one is scored differently on AVX2 and on VNNI CPUs, so its cached
 * scores are keyed by the CPU kind. A longer name before its prefix: the scan matches substrings.
 */
export const INTEGER_KERNEL_OPS = ['MatMulNBits', 'MatMulIntegerToFloat', 'MatMulInteger', 'QLinearMatMul', 'QAttention', 'QGemm', 'ConvInteger', 'QLinearConv', ...PER_TENSOR_ACTIVATION_OPS] as const

/** The first op type of {@link INTEGER_KERNEL_OPS} named in the model file at `path`, or `undefined`. */
export function integerKernelOp(path: string): string | undefined {
  return firstOpNamed(path, INTEGER_KERNEL_OPS)
}

/** The first of `ops` whose name appears in the file at `path` (the earliest in `ops` when a chunk holds several). */
function firstOpNamed(path: string, ops: readonly string[]): string | undefined {
  const needles = ops.map((op) => Buffer.from(op, 'latin1'))
  const overlap = largest(needles.map((n) => n.length)) - 1
  const fd = openSync(path, 'r')
  try {
    const buffer = Buffer.alloc(CHUNK + overlap)
    let carried = 0
    let position = 0
    for (;;) {
      const read = readSync(fd, buffer, carried, CHUNK, position)
      if (read === 0) return undefined
      position += read
      const view = buffer.subarray(0, carried + read)
      for (let i = 0; i < needles.length; i++) if (view.includes(needles[i]!)) return ops[i]
      carried = Math.min(overlap, view.length)
      view.copyWithin(0, view.length - carried)
    }
  } finally {
    closeSync(fd)
  }
}
