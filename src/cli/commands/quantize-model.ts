/** `sceptic quantize-model`: batch-invariant quantization of an ONNX model directory (MatMulNBits or MatMulInteger). */
import { parse, type OptionTable } from '../args.ts'
import type { Command } from '../command.ts'
import { planModelDirs, writingModelOut } from '../model-out.ts'
import { UsageError } from '../usage-error.ts'

const USAGE = 'quantize-model IN_DIR --model-out DIR [--format nbits|int8] [--bits 4|8] [--accuracy-level 4|0]'

/** Every option of `sceptic quantize-model`: read by the parser, `--help` and "did you mean". */
const OPTIONS = {
  'model-out': { type: 'string', value: 'DIR', description: 'the model directory to write (required; not IN_DIR)' },
  format: { type: 'string', value: 'nbits|int8', default: 'nbits', description: 'nbits: MatMulNBits weight blocks; int8: MatMulInteger, int8 weights per column and activations per row (the integer VNNI/AMX path)' },
  bits: { type: 'string', value: '4|8', default: '4', description: 'weight bits per MatMulNBits block (--format nbits only; int8 is always 8 bits)' },
  'accuracy-level': { type: 'string', value: '4|0', default: '4', description: '--format nbits only. 4: int8 activations per row and block (batch-invariant); 0: float32 activations' },
} satisfies OptionTable

/**
 * `sceptic quantize-model IN_DIR --model-out DIR [--format nbits|int8] [--bits 4|8] [--accuracy-level 4|0]`:
 * quantization (MatMulNBits or MatMulInteger) that keeps batching and prefix sharing exact (docs/onnx.md).
 */
export const quantizeModelCommand: Command = {
  usage: USAGE,
  options: OPTIONS,
  summary: 'Quantize an ONNX model directory\'s weights to 4 or 8 bits (MatMulNBits or MatMulInteger, batch-invariant; embeddings and the LM head stay float32).',
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    const bits = values.bits === undefined ? 4 : Number(values.bits)
    if (bits !== 4 && bits !== 8) throw new UsageError(`--bits must be 4 or 8, got "${String(values.bits)}"`)
    const level = values['accuracy-level'] === undefined ? 4 : Number(values['accuracy-level'])
    if (level !== 0 && level !== 4) throw new UsageError(`--accuracy-level must be 4 (int8 activations per row and block, default) or 0 (float32 activations), got "${String(values['accuracy-level'])}"`)
    const format = values.format ?? 'nbits'
    if (format !== 'nbits' && format !== 'int8') throw new UsageError(`--format must be nbits (MatMulNBits, default) or int8 (MatMulInteger), got "${String(values.format)}"`)
    const [inDir, outDir] = await planModelDirs('quantize-model', positionals, values['model-out'] as string | undefined, USAGE)
    const started = performance.now()
    const { quantizeModel } = await import('../../scorers/onnx/quantize.ts')
    const result = await writingModelOut(outDir, () => quantizeModel(inDir, outDir, { format, bits, accuracyLevel: level }))
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
    process.stdout.write(
      `wrote ${result.modelPath}: ${result.quantized} MatMuls → ${format === 'int8' ? 'int8 MatMulInteger' : `${bits}-bit MatMulNBits`}, LM head kept float32; weights ${mb(result.bytesIn)} MB → ${mb(result.bytesOut)} MB (${((performance.now() - started) / 1000).toFixed(1)} s)\n` +
        `score with --model ${outDir}\n`,
    )
    return 0
  },
}
