/** `sceptic quantize-model`'s usage line, summary and options: what `--help` prints without loading the command. */
import type { CommandHelp } from '../command.ts'

export const quantizeModelHelp = {
  usage: 'quantize-model IN_DIR --model-out DIR [--format nbits|int8] [--bits 4|8] [--accuracy-level 4|0] [--calibration DATA.jsonl [--min-agreement 0.98] [--min-pick-agreement X] [--debias MODE] [--max-float N] [--force]]',
  summary: 'Quantize an ONNX model directory\'s weights to 4 or 8 bits (MatMulNBits or MatMulInteger, batch-invariant; embeddings and the LM head stay float32).',
  /** Every option of `sceptic quantize-model`: read by the parser, `--help` and "did you mean". */
  options: {
    'model-out': { type: 'string', value: 'DIR', description: 'the model directory to write (required; not IN_DIR)' },
    format: { type: 'string', value: 'nbits|int8', default: 'nbits', description: 'nbits: MatMulNBits weight blocks; int8: MatMulInteger, int8 weights per column and activations per row (the integer VNNI/AMX path)' },
    bits: { type: 'string', value: '4|8', default: '4', description: 'weight bits per MatMulNBits block (--format nbits only; int8 is always 8 bits)' },
    'accuracy-level': { type: 'string', value: '4|0', default: '4', description: '--format nbits only. 4: int8 activations per row and block (batch-invariant); 0: float32 activations' },
    calibration: { type: 'string', value: 'DATA.jsonl', description: 'decisions scored with fp32 and each candidate; MatMuls whose quantization moves decisions stay float32 until the agreement holds' },
    'min-agreement': { type: 'string', value: 'X', default: '0.98', description: 'with --calibration: the share of clear decisions (fp32 margin ≥ 0.05) whose final pick must equal fp32\'s' },
    'min-pick-agreement': { type: 'string', value: 'X', description: 'with --calibration: also the share of their per-ordering picks that must equal fp32\'s (default: not required)' },
    debias: { type: 'string', value: 'MODE', default: 'cyclic', description: 'with --calibration: the debiasing the decisions are compared under (as sceptic evaluate --debias)' },
    'max-float': { type: 'string', value: 'N', description: 'with --calibration: keep at most N MatMuls float32 (default: all but one)' },
    force: { type: 'boolean', description: 'with --calibration: write the best candidate even below --min-agreement' },
  },
} satisfies CommandHelp
