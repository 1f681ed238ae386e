/** `sceptic optimize-model IN_DIR OUT_DIR`. */
import { parse } from '../args.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'

const USAGE = 'optimize-model IN_DIR OUT_DIR'

/**
 * `sceptic optimize-model IN_DIR OUT_DIR`: rewrite an Optimum decoder so its LM head
 * computes only the option-letter logits at the last position (docs/onnx.md).
 */
export const optimizeModelCommand: Command = {
  usage: USAGE,
  options: {},
  summary: 'Rewrite an ONNX model directory so the LM head runs on the last position and only for the option letters (same probabilities, less work).',
  async run(argv) {
    const { positionals } = parse(argv, {}, USAGE)
    if (positionals.length !== 2) throw new UsageError(`optimize-model takes IN_DIR and OUT_DIR. Usage: sceptic ${USAGE}`)
    const [inDir, outDir] = positionals as [string, string]
    const started = performance.now()
    // Loaded on demand: the tokenizer and the graph rewriter are only for this command.
    const { optimizeModel } = await import('../../scorers/onnx/optimize.ts')
    const result = await optimizeModel(inDir, outDir)
    const external = result.externalFiles.length > 0 ? `; external data linked: ${result.externalFiles.join(', ')}` : ''
    process.stdout.write(
      `wrote ${result.modelPath}: logits [batch, 1, ${result.letters}] (letters A–${String.fromCharCode(64 + result.letters)}) instead of [batch, seq, ${result.vocab}]${external} (${((performance.now() - started) / 1000).toFixed(1)} s)\n` +
        `score with --model ${outDir}; the report's scorer line says "optimized readout"\n`,
    )
    return 0
  },
}
