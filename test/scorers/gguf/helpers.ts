// GGUF test helpers: the Qwen2 fixture written both as an ONNX model directory and as GGUF
// files (F32, F16, Q8_0) from the same weights and tokenizer, and decisions to score.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import type { EvalResult } from '../../../src/core/result/result.ts'
import { buildGguf, bpeTokenizer, tokenizerVocabSize, writeModelDir, type DecoderOptions, type GgufOptions, type GgufType } from '../../../scripts/onnx-fixture/index.ts'
import { TempDirs } from '../../helpers/temp.ts'

export const temp = new TempDirs('sceptic-gguf-')

/** A small Qwen2 shape whose debiased decisions have real margins (sharp attention, a confident head). */
export const SMALL: DecoderOptions = { architecture: 'qwen2', hidden: 64, layers: 2, heads: 4, kvHeads: 2, ffn: 128, seed: 11, headScale: 4, attentionSharpness: 3, maxPositions: 1024 }

/** Write the fixture as GGUF files of `types` (and, with `onnx`, the ONNX directory) under a fresh temp folder. */
export function writeTwins(decoder: DecoderOptions = SMALL, types: readonly GgufType[] = ['F32'], options: { onnx?: boolean; gguf?: GgufOptions } = {}): { dir: string; onnx: string; gguf: Record<string, string> } {
  const dir = temp.make()
  const tokenizer = bpeTokenizer({ merges: 200 })
  const full = { ...decoder, vocab: tokenizerVocabSize(tokenizer) }
  const gguf: Record<string, string> = {}
  for (const type of types) {
    const path = join(dir, `tiny-${type}.gguf`)
    writeFileSync(path, buildGguf(full, tokenizer, { ...options.gguf, type }))
    gguf[type] = path
  }
  const onnx = join(dir, 'onnx')
  if (options.onnx) writeModelDir(onnx, { tokenizer, decoder: full })
  return { dir, onnx, gguf }
}

const SUBJECTS = ['The invoice', 'The app', 'A user', 'The shipment', 'My subscription', 'The password reset email', 'The settings page', 'The order', 'The refund', 'The box']
const EVENTS = ['was charged twice', 'crashes after the latest update', 'cannot log in', 'is stuck at customs', 'should be cancelled', 'never arrives', 'does not open', 'arrived late and damaged', 'has not been paid', 'was sent to the wrong address']
const OPTIONS = [
  { id: 'billing', text: 'Billing' },
  { id: 'tech', text: 'Technical support' },
  { id: 'account', text: 'Account access' },
  { id: 'sales', text: 'Sales' },
]

/** `n` labelled 4-option decisions with varied evidence (deterministic). */
export function decisions(n: number): Decision[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: `${SUBJECTS[i % 10]} ${EVENTS[Math.floor(i / 10) % 10]}${i >= 100 ? ` (ticket ${i})` : ''}.`,
    criterion: { key: 'queue', question: 'Which queue should handle this ticket?', options: OPTIONS },
    answer_id: OPTIONS[i % 4]!.id,
  }))
}

/** The largest |Δp| between two runs' records of the same decisions, option by option. */
export function maxDistance(a: EvalResult, b: EvalResult): number {
  let max = 0
  a.records.forEach((record, i) => {
    for (const [option, p] of Object.entries(record.probabilities)) max = Math.max(max, Math.abs(p - b.records[i]!.probabilities[option]!))
  })
  return max
}
