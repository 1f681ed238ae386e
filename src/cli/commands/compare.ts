/** `sceptic compare A B`: the paired comparison of two runs. */
import { basename } from 'node:path'
import { compareResults, type Comparable } from '../../core/compare/compare.ts'
import { renderComparison } from '../../report/terminal-comparison.ts'
import { decisionId } from '../../core/decisions/id.ts'
import { isLabelled } from '../../core/decisions/schema.ts'
import { loadDecisions } from '../../core/decisions/load.ts'
import { dict } from '../../core/support/dict.ts'
import { readTextBounded } from '../../core/support/read-bounded.ts'
import { MAX_RESAMPLES } from '../../core/math/bootstrap.ts'
import { parseComparable, parseRecordsJsonl, parseResultJson } from '../../core/result/files.ts'
import { checkRecordsMatch } from '../../core/compare/records-match.ts'
import { recordsBeside } from '../records-beside.ts'
import { colorEnabled } from '../../report/terminal.ts'
import { integer, parse } from '../args.ts'
import type { Command } from '../command.ts'
import { UsageError } from '../usage-error.ts'
import { planOutputs, writeOutputs } from '../../core/support/outputs.ts'
import { compareHelp } from '../help/compare.ts'

const { usage: USAGE, options: OPTIONS } = compareHelp

/**
 * `sceptic compare A B`: a paired comparison of two evaluations of the same decisions.
 *
 * A and B are each either a `--records-out` JSONL file (one record per line; it has no
 * manifest, so the check is that both files hold the same ids with the same criteria
 * and gold answers) or a whole `EvalResult` as JSON (`JSON.stringify(result)`), whose
 * `manifest.fingerprint`, when both have one, must match. A `--json-out` report is read with
 * the `X.records.jsonl` beside it, as `sceptic report` does; without one it is refused with a hint.
 * `--data DATA` supplies `group_id`s so the bootstrap resamples whole groups.
 */
export const compareCommand: Command = {
  ...compareHelp,
  async run(argv) {
    const { values: raw, positionals } = parse(argv, OPTIONS, USAGE)
    const values = raw as Record<string, string | undefined>
    if (positionals.length !== 2) throw new UsageError(`compare takes two result files, A and B. Usage: sceptic ${USAGE}`)
    const [pathA, pathB] = positionals as [string, string]
    const seed = integer(values.seed, 'seed') ?? 0
    const resamples = integer(values.resamples, 'resamples', 1, MAX_RESAMPLES)
    // A result's records file beside it is read too: an input like the two named.
    const beside = (await Promise.all([pathA, pathB].map(recordsBeside))).filter((file) => file !== undefined)
    const inputs = [pathA, pathB, ...beside, ...(values.data !== undefined ? [values.data] : [])]
    const outputs = await planOutputs([{ flag: '--json-out', path: values['json-out'] }], inputs)
    const [a, b] = await Promise.all([readComparable(pathA), readComparable(pathB)])
    const groups = values.data !== undefined ? await groupsById(values.data) : undefined
    const labels = distinctLabels(pathA, pathB)
    const comparison = compareResults(a, b, {
      seed,
      labels,
      ...(resamples !== undefined ? { resamples } : {}),
      ...(groups ? { groups } : {}),
    })
    process.stdout.write(renderComparison(comparison, { color: colorEnabled(process.stdout) }) + '\n')
    await writeOutputs(outputs.map((output) => ({ output, content: JSON.stringify(comparison, null, 2) + '\n' })))
    return 0
  },
}

/**
 * Read a records JSONL file, a whole `EvalResult` as JSON (see {@link parseComparable}), or
 * a `--json-out` result with its records beside it (`X.json` → `X.records.jsonl`, checked
 * to be that run's, as `sceptic report` does).
 */
export async function readComparable(path: string): Promise<Comparable> {
  const text = await readText(path)
  const beside = await recordsBeside(path)
  if (beside !== undefined && !hasRecords(text)) {
    const result = parseResultJson(text, path)
    const records = parseRecordsJsonl(await readText(beside), beside)
    checkRecordsMatch(result, records, path, beside)
    const fingerprint = result.manifest.fingerprint
    return { records, manifest: typeof fingerprint === 'string' ? { fingerprint } : undefined }
  }
  return parseComparable(text, path)
}

/** Whether `text` is one JSON object that carries its records (a whole `EvalResult`). */
function hasRecords(text: string): boolean {
  try {
    const whole = JSON.parse(text.replace(/^\uFEFF/, '')) as { records?: unknown } | null
    return typeof whole !== 'object' || whole === null || Array.isArray(whole.records) || 'gold' in whole
  } catch {
    return true // not one JSON document: a records JSONL file
  }
}

function readText(path: string): Promise<string> {
  return readTextBounded(path, { cannotRead: (code) => `cannot read result file: ${code}` })
}

/** Record id → group_id, by the evaluator's id rule ({@link decisionId}). */
async function groupsById(path: string): Promise<Record<string, string | null>> {
  const decisions = (await loadDecisions(path)).filter(isLabelled)
  return dict(decisions.map((d, i) => [decisionId(d, i), d.group_id ?? null]))
}

function distinctLabels(a: string, b: string): [string, string] {
  const [la, lb] = [basename(a), basename(b)]
  return la === lb ? [a, b] : [la, lb]
}
