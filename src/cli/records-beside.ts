/** The records file a `--json-out` result has beside it, by the names `evaluate` writes (`X.json` → `X.records.jsonl`). */
import { access } from 'node:fs/promises'

/** `X.json` → `X.records.jsonl`, when that file exists. */
export async function recordsBeside(file: string): Promise<string | undefined> {
  const candidate = file.replace(/\.json$/i, '') + '.records.jsonl'
  try {
    await access(candidate)
    return candidate
  } catch {
    return undefined
  }
}
