import { parse } from '../args.ts'
import { UsageError, type Command } from '../commands.ts'

const USAGE = 'quantize-model IN_DIR OUT_DIR [--bits 4|8] [--accuracy-level 4|0]'

/**
 * `sceptic quantize-model IN_DIR OUT_DIR [--bits 4|8] [--accuracy-level 4|0]`: weight quantization
 * (MatMulNBits) that keeps batching and prefix sharing exact (docs/onnx.md).
 */
export const quantizeModelCommand: Command = {
  usage: USAGE,
  summary: 'Quantize an ONNX model directory\'s weights to 4 or 8 bits (MatMulNBits, batch-invariant; embeddings and the LM head stay float32).',
  async run(argv) {
    const { values, positionals } = parse(argv, { bits: { type: 'string' }, 'accuracy-level': { type: 'string' } }, USAGE)
    if (positionals.length !== 2) throw new UsageError(`quantize-model takes IN_DIR and OUT_DIR. Usage: sceptic ${USAGE}`)
    const bits = values.bits === undefined ? 4 : Number(values.bits)
    if (bits !== 4 && bits !== 8) throw new UsageError(`--bits must be 4 or 8, got "${String(values.bits)}"`)
    const level = values['accuracy-level'] === undefined ? 4 : Number(values['accuracy-level'])
    if (level !== 0 && level !== 4) throw new UsageError(`--accuracy-level must be 4 (int8 activations per row and block, default) or 0 (float32 activations), got "${String(values['accuracy-level'])}"`)
    const [inDir, outDir] = positionals as [string, string]
    const started = performance.now()
    const { quantizeModel } = await import('../../scorers/onnx/quantize.ts')
    const result = await quantizeModel(inDir, outDir, { bits, accuracyLevel: level })
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
    process.stdout.write(
      `wrote ${result.modelPath}: ${result.quantized} MatMuls → ${bits}-bit MatMulNBits, LM head kept float32; weights ${mb(result.bytesIn)} MB → ${mb(result.bytesOut)} MB (${((performance.now() - started) / 1000).toFixed(1)} s)\n` +
        `score with --model ${outDir}\n`,
    )
    return 0
  },
}
