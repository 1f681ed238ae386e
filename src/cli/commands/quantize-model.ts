/** `sceptic quantize-model`: batch-invariant quantization of an ONNX model directory (MatMulNBits or MatMulInteger). */
import { DEBIAS_MODES, type DebiasMode } from '../../core/requests/orderings.ts'
import { flagNumber, parse } from '../args.ts'
import type { Command } from '../command.ts'
import { planModelDirs, writingModelOut } from '../model-out.ts'
import { UsageError } from '../usage-error.ts'
import { quantizeModelHelp } from '../help/quantize-model.ts'

const { usage: USAGE, options: OPTIONS } = quantizeModelHelp

/**
 * `sceptic quantize-model IN_DIR --model-out DIR [--format nbits|int8] [--bits 4|8] [--accuracy-level 4|0]`:
 * quantization (MatMulNBits or MatMulInteger) that keeps batching and prefix sharing exact (docs/onnx.md).
 */
export const quantizeModelCommand: Command = {
  ...quantizeModelHelp,
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    const bits = values.bits === undefined ? 4 : flagNumber(String(values.bits))
    if (bits !== 4 && bits !== 8) throw new UsageError(`--bits must be 4 or 8, got "${String(values.bits)}"`)
    const level = values['accuracy-level'] === undefined ? 4 : flagNumber(String(values['accuracy-level']))
    if (level !== 0 && level !== 4) throw new UsageError(`--accuracy-level must be 4 (int8 activations per row and block, default) or 0 (float32 activations), got "${String(values['accuracy-level'])}"`)
    const format = values.format ?? 'nbits'
    if (format !== 'nbits' && format !== 'int8') throw new UsageError(`--format must be nbits (MatMulNBits, default) or int8 (MatMulInteger), got "${String(values.format)}"`)
    const calibration = values.calibration as string | undefined
    const minAgreement = values['min-agreement'] === undefined ? 0.98 : flagNumber(String(values['min-agreement']))
    if (!(minAgreement >= 0 && minAgreement <= 1)) throw new UsageError(`--min-agreement must be a number in [0, 1], got "${String(values['min-agreement'])}"`)
    const minPicks = values['min-pick-agreement'] === undefined ? undefined : flagNumber(String(values['min-pick-agreement']))
    if (minPicks !== undefined && !(minPicks >= 0 && minPicks <= 1)) throw new UsageError(`--min-pick-agreement must be a number in [0, 1], got "${String(values['min-pick-agreement'])}"`)
    if (calibration === undefined && (values.force || values['max-float'] !== undefined || minPicks !== undefined)) throw new UsageError('--max-float, --min-pick-agreement and --force apply only with --calibration DATA.jsonl')
    const maxFloat = values['max-float'] === undefined ? undefined : flagNumber(String(values['max-float']))
    if (maxFloat !== undefined && !(Number.isInteger(maxFloat) && maxFloat >= 0)) throw new UsageError(`--max-float must be an integer ≥ 0, got "${String(values['max-float'])}"`)
    if (values.debias !== undefined && !(DEBIAS_MODES as readonly string[]).includes(values.debias as string))
      throw new UsageError(`--debias must be one of ${DEBIAS_MODES.join(', ')}, got "${String(values.debias)}"`)
    const [inDir, outDir] = await planModelDirs('quantize-model', positionals, values['model-out'] as string | undefined, USAGE)
    const started = performance.now()
    if (calibration !== undefined) {
      const { calibratedQuantize } = await import('../../scorers/onnx/transform/calibrate.ts')
      const { result, info } = await calibratedQuantize(inDir, outDir, { format, bits, accuracyLevel: level, calibration, minAgreement, ...(minPicks !== undefined ? { minPickAgreement: minPicks } : {}), force: values.force === true, ...(maxFloat !== undefined ? { maxFloat } : {}), ...(values.debias !== undefined ? { debias: values.debias as DebiasMode } : {}), log: (line) => process.stderr.write(`${line}\n`) })
      const pct = (x: number) => `${(100 * x).toFixed(1)}%`
      process.stdout.write(
        `wrote ${result.modelPath}: ${result.quantized} MatMuls → ${format === 'int8' ? 'int8 MatMulInteger' : `${bits}-bit MatMulNBits`}, ${info.keptFloat.length} kept float32 by calibration, LM head kept float32 (${((performance.now() - started) / 1000).toFixed(1)} s)\n` +
          `agreement with fp32 on ${info.calibration.clear} clear of ${info.calibration.decisions} calibration decisions, on ${info.cpu!.kind}: decisions ${pct(info.agreement.decisions)}, per-ordering picks ${pct(info.agreement.picks)} (target ${pct(minAgreement)}${minPicks ? `, picks ${pct(minPicks)}` : ''}${info.forced ? ', NOT MET: written with --force' : ''}); speed-up ${info.speedup.toFixed(2)}× fp32${info.cpuSpeedup ? ` (CPU time ${info.cpuSpeedup.toFixed(2)}×)` : ''}\n` +
          `calibration: ${info.trials} candidates scored${info.smoothed ? ', int8 inputs smoothed per channel' : ''}; ${info.keptFloat.length > 0 ? `kept float32: ${info.keptFloat.join(', ')}` : 'nothing kept float32'}\n` +
          `score with --model ${outDir}\n`,
      )
      return 0
    }
    const { quantizeModel } = await import('../../scorers/onnx/transform/quantize.ts')
    const result = await writingModelOut(outDir, () => quantizeModel(inDir, outDir, { format, bits, accuracyLevel: level }))
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1)
    process.stdout.write(
      `wrote ${result.modelPath}: ${result.quantized} MatMuls → ${format === 'int8' ? 'int8 MatMulInteger' : `${bits}-bit MatMulNBits`}, LM head kept float32; weights ${mb(result.bytesIn)} MB → ${mb(result.bytesOut)} MB (${((performance.now() - started) / 1000).toFixed(1)} s)\n` +
        `score with --model ${outDir}\n`,
    )
    return 0
  },
}
