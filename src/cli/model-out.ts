/** The input and output folders of the model commands (`optimize-model`, `quantize-model`). */
import { join } from 'node:path'
import { DataError, EvaluationError } from '../core/support/errors.ts'
import { planOutputDir } from '../core/support/outputs.ts'
import { UsageError } from './usage-error.ts'

/**
 * IN_DIR (the one positional) and `--model-out DIR`, checked before any work: a second
 * positional (the output folder before it became `--model-out`) is a UsageError saying
 * so, and the output folder must not be IN_DIR or its `onnx/` (see {@link planOutputDir}).
 */
export async function planModelDirs(
  command: string,
  positionals: readonly string[],
  modelOut: string | undefined,
  usage: string,
): Promise<[inDir: string, outDir: string]> {
  if (positionals.length === 2 && modelOut === undefined)
    throw new UsageError(`${command} writes to --model-out DIR: give the output folder as --model-out ${positionals[1]}. Usage: sceptic ${usage}`)
  if (positionals.length !== 1) throw new UsageError(`${command} takes one IN_DIR. Usage: sceptic ${usage}`)
  if (modelOut === undefined) throw new UsageError(`${command} needs --model-out DIR, the folder to write. Usage: sceptic ${usage}`)
  const inDir = positionals[0]!
  await planOutputDir('--model-out', modelOut, [inDir, join(inDir, 'onnx')])
  return [inDir, modelOut]
}

/**
 * Run a model command's writing step: a file-system error while writing `--model-out`
 * (a full disk, ENOSPC; a read-only folder) is a one-line {@link DataError} naming the
 * folder (exit 3), not a stack trace. The command's own errors pass through.
 */
export async function writingModelOut<T>(outDir: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    const code = (error as NodeJS.ErrnoException)?.code
    if (error instanceof EvaluationError || typeof code !== 'string') throw error
    throw new DataError(`cannot write --model-out (${code})`, { file: outDir })
  }
}
