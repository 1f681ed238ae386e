// Helpers of the runtime adversarial corpus: temp folders, decision files, scorer modules.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Decision } from '../../src/core/decisions/schema.ts'
import { ROOT } from '../helpers/run.ts'
import { TempDirs } from '../helpers/temp.ts'

const roots = new TempDirs('sceptic-adv-')

/** A fresh temp folder, removed by {@link cleanup}. */
export const temp = roots.make
export const cleanup = roots.removeAll

const OPTIONS = [
  { id: 'billing', text: 'Billing' },
  { id: 'tech', text: 'Technical support' },
]

/** `n` labelled two-option decisions; `state(i)` may vary the text. */
export function decisions(n: number, state: (i: number) => string = (i) => `Ticket ${i} about Billing`): Decision[] {
  return Array.from({ length: n }, (_, i) => ({
    id: `d${i}`,
    state: state(i),
    criterion: { key: 'queue', question: 'Which queue?', options: OPTIONS },
    answer_id: i % 2 === 0 ? 'billing' : 'tech',
  }))
}

/** Write decisions as JSONL; returns the path. */
export function writeData(dir: string, rows: readonly Decision[], name = 'data.jsonl'): string {
  const path = join(dir, name)
  writeFileSync(path, rows.map((row) => JSON.stringify(row)).join('\n') + '\n')
  return path
}

/** Write a `--scorer` module with the given body (an ES module); returns its path. */
export function writeScorer(dir: string, body: string, name = 'scorer.mjs'): string {
  const path = join(dir, name)
  writeFileSync(path, body)
  return path
}

/** An import specifier for a built entry of this package, e.g. `dist/onnx/index.js`. */
export function distUrl(entry: string): string {
  return JSON.stringify(pathToFileURL(join(ROOT, entry)).href)
}

/** A scorer body returning a uniform-ish vector that prefers slot A: scores every request. */
export const FIRST_SCORER = 'export default (requests) => requests.map((r) => r.criterion.options.map((_, i) => (i === 0 ? 0.9 : 0.1)))\n'
