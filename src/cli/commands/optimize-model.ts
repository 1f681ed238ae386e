/** `sceptic optimize-model IN_DIR --model-out DIR`. */
import { parse } from '../args.ts'
import type { Command } from '../command.ts'
import { planModelDirs, writingModelOut } from '../model-out.ts'
import { optimizeModelHelp } from '../help/optimize-model.ts'

const { usage: USAGE, options: OPTIONS } = optimizeModelHelp

/**
 * `sceptic optimize-model IN_DIR --model-out DIR`: rewrite an Optimum decoder so its LM head
 * computes only the option-letter logits at the last position (docs/onnx.md).
 */
export const optimizeModelCommand: Command = {
  ...optimizeModelHelp,
  async run(argv) {
    const { values, positionals } = parse(argv, OPTIONS, USAGE)
    const [inDir, outDir] = await planModelDirs('optimize-model', positionals, values['model-out'] as string | undefined, USAGE)
    const started = performance.now()
    // Loaded on demand: the tokenizer and the graph rewriter are only for this command.
    const { optimizeModel } = await import('../../scorers/onnx/transform/optimize.ts')
    const result = await writingModelOut(outDir, () => optimizeModel(inDir, outDir))
    const external = result.externalFiles.length > 0 ? `; external data linked: ${result.externalFiles.join(', ')}` : ''
    process.stdout.write(
      `wrote ${result.modelPath}: logits [batch, 1, ${result.letters}] (the option letters' tokens after the plain prompt and after a newline) instead of [batch, seq, ${result.vocab}]${external} (${((performance.now() - started) / 1000).toFixed(1)} s)\n` +
        `score with --model ${outDir}; the report's scorer line says "optimized readout"\n`,
    )
    return 0
  },
}
