/** `sceptic optimize-model`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const optimizeModelHelp = {
  usage: 'optimize-model IN_DIR --model-out DIR',
  summary: 'Rewrite an ONNX model directory so the LM head runs on the last position and only for the option letters (same probabilities, less work).',
  /** Every option of `sceptic optimize-model`: read by the parser, `--help` and "did you mean". */
  options: {
    'model-out': { type: 'string', value: 'DIR', description: 'the model directory to write (required; not IN_DIR)' },
  },
} satisfies CommandHelp
