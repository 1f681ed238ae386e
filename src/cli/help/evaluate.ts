/** `sceptic evaluate`'s usage line, summary and options: what `--help` prints without loading the command. */
import { DEFAULT_PRIDE_FRACTION, MAX_EPOCHS } from '../../core/evaluate/limits.ts'
import { DEBIAS_MODES, DEFAULT_DEBIAS } from '../../core/requests/orderings.ts'
import { CACHE_FLAGS } from '../args.ts'
import { MODEL_FLAGS } from '../model-flags.ts'
import type { CommandHelp } from '../command.ts'

export const evaluateHelp = {
  usage: 'evaluate DATA (--model DIR|FILE.gguf | --scorer MODULE) [--debias MODE] [--pride-fraction F] [--batch-size N] [--workers N] [--dtype NAME] [--prepack-cache DIR] [--threads N] [--sequences N] [--chat-template [--system TEXT] [--chat-template-kwargs JSON]] [--seed N] [--average probability|log] [--epochs N] [--reducer NAME] [--store-prompts] [--no-statistics] [--cache DIR | --no-cache] [--cache-mode read-write|read-only|off] [--cache-verify N] [--json-out FILE] [--records-out FILE] [--timeout SECONDS] [--shard i/n] [--threshold KEY=VALUE ...] [--max-failure-rate R] [--stop-early [--alpha A]]',
  summary: 'Score a JSONL decision file and print the sceptic report.',
  /** Every option of `sceptic evaluate`: read by the parser, `--help` and "did you mean". */
  options: {
    model: { type: 'string', value: 'DIR', description: 'score with a local ONNX model directory (needs onnxruntime-node) or a GGUF file (needs node-llama-cpp)' },
    scorer: { type: 'string', value: 'MODULE', description: 'score with a JS module whose default export is a ScoreFn' },
    debias: { type: 'string', value: 'MODE', default: DEFAULT_DEBIAS, description: `option orderings: ${DEBIAS_MODES.join(', ')}; none cannot measure order consistency` },
    'pride-fraction': { type: 'string', value: 'F', default: String(DEFAULT_PRIDE_FRACTION), description: 'with --debias pride: share of decisions (per option count) scored under every rotation to estimate the slot prior, in (0, 1]' },
    'batch-size': { type: 'string', value: 'N', description: 'prompts per ONNX run (--model)' },
    workers: { type: 'string', value: 'N', description: 'ONNX worker threads (--model)' },
    seed: { type: 'string', value: 'N', default: '0', description: 'seed for sampled orderings and the PriDe sample' },
    average: { type: 'string', value: 'MODE', default: 'probability', description: 'combine orderings by probability or log mean: probability, log' },
    epochs: { type: 'string', value: 'N', default: '1', description: `score every decision N times (for sampling scorers), at most ${MAX_EPOCHS}` },
    reducer: { type: 'string', value: 'NAME', default: 'mean', description: 'combine epochs: mean, median, mode, max, at_least_K, pass_at_K, or at_least_K_ge_T, pass_at_K_ge_T (an epoch counts when it scores ≥ T)' },
    'store-prompts': { type: 'boolean', description: 'keep each prompt in the records' },
    'no-statistics': { type: 'boolean', description: 'skip intervals, baselines and verdicts (the bootstrap); they are attached by default' },
    ...MODEL_FLAGS,
    ...CACHE_FLAGS,
    'json-out': { type: 'string', value: 'FILE', description: 'write the result as JSON' },
    'records-out': { type: 'string', value: 'FILE', description: 'write one record per decision as JSONL' },
    timeout: { type: 'string', value: 'SECONDS', description: 'bound the whole run, up to 1e9 s; past it in-flight work is cancelled and the run exits 4 (no bound by default)' },
    shard: { type: 'string', value: 'I/N', description: 'score only part I of N (split by group_id, else id); needs --records-out; join parts with sceptic merge' },
    threshold: { type: 'string', multiple: true, value: 'KEY=VALUE', description: 'gate on a metric: accuracy=0.7 (lower bound), slotSensitivityGap=..0.1 (upper), preferenceFairness=-0.05..0.05; exit 1 when one fails' },
    'max-failure-rate': { type: 'string', value: 'R', default: '0', description: 'with --threshold: the share of labelled decisions that may fail to score, in [0, 1]; more fails the gate (exit 1), since the metrics cover only what scored' },
    'stop-early': { type: 'boolean', description: 'score in a seeded random order and stop once every --threshold is decided by anytime-valid bounds (or one fails)' },
    alpha: { type: 'string', value: 'A', description: 'with --stop-early: level of the anytime-valid bounds, in (0, 1)', default: '0.05' },
  },
} satisfies CommandHelp
