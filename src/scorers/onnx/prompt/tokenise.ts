/**
 * Tokenizing a call's prompts in the workers (docs/onnx-prompts.md#tokenization): identical texts
 * once (a decision's epochs repeat its orderings), the distinct ones split into one
 * contiguous share per worker, balanced by characters. The main thread only packs texts
 * and unpacks ids.
 */
import { ScorerError } from '../../../core/support/errors.ts'
import type { WorkerPool } from '../runtime/pool.ts'

/** Each request's token ids and the letter token ids read after its prompt. */
export interface Tokenised {
  /** Token ids per request. */
  readonly ids: readonly Int32Array[]
  /** Letter token ids (A.. for its options) per request. */
  readonly letters: readonly Int32Array[]
}

/** A call's prompts, as {@link tokenise} takes them. */
export interface Prompts {
  /** The text the model reads, per request. */
  readonly texts: readonly string[]
  /** Options per request. */
  readonly letterCounts: readonly number[]
  /** Add the tokenizer's special tokens (plain prompts); false for rendered chat templates. */
  readonly special: boolean
}

/** Tokenize `prompts` in `parts` jobs on `pool`; `describe(rows)` names requests in errors. A request that encodes to no tokens is a ScorerError. */
export async function tokenise(
  pool: WorkerPool,
  prompts: Prompts,
  parts: number,
  describe: (rows: readonly number[]) => string,
  cancel: { cancelled: boolean },
): Promise<Tokenised> {
  const { texts, letterCounts, special } = prompts
  // Distinct (letters, text) pairs, and for each request the pair it is.
  const index = new Map<string, number>()
  const unique: number[] = []
  const slot = texts.map((text, r) => {
    const key = `${letterCounts[r]}\u0000${text}`
    let u = index.get(key)
    if (u === undefined) {
      u = unique.length
      index.set(key, u)
      unique.push(r)
    }
    return u
  })
  const shares = splitByCharacters(unique.map((r) => texts[r]!.length), parts)
  const ids: Int32Array[] = new Array(unique.length)
  const letters: Int32Array[] = new Array(unique.length)
  await Promise.all(
    shares.map(async ([first, end]) => {
      const rows = unique.slice(first, end)
      const encoded = await pool
        .encode({
          payload: { texts: rows.map((r) => texts[r]!), letterCounts: Int32Array.from(rows, (r) => letterCounts[r]!), special },
          describe: () => describe(rows),
          cancel,
        })
        .catch((error: unknown) => {
          cancel.cancelled = true
          throw error
        })
      let idOffset = 0
      let letterOffset = 0
      rows.forEach((_, i) => {
        const length = encoded.lengths[i]!
        ids[first + i] = encoded.ids.subarray(idOffset, idOffset + length)
        letters[first + i] = encoded.letters.subarray(letterOffset, letterOffset + letterCounts[rows[i]!]!)
        idOffset += length
        letterOffset += letterCounts[rows[i]!]!
      })
    }),
  )
  const out = { ids: slot.map((u) => ids[u]!), letters: slot.map((u) => letters[u]!) }
  const empty = out.ids.findIndex((row) => row.length === 0)
  if (empty >= 0) throw new ScorerError(`request #${empty} encodes to no tokens; nothing to score`)
  return out
}

/** `[first, end)` index ranges cutting items of `sizes` into at most `parts` contiguous shares of about equal total size. */
export function splitByCharacters(sizes: readonly number[], parts: number): [number, number][] {
  const total = sizes.reduce((sum, n) => sum + n, 0)
  const shares: [number, number][] = []
  let first = 0
  let sum = 0
  for (let i = 0; i < sizes.length; i++) {
    sum += sizes[i]!
    // Close a share once it reaches its fair part of the total (the last share takes the rest).
    if (shares.length < parts - 1 && sum >= (total * (shares.length + 1)) / parts) {
      shares.push([first, i + 1])
      first = i + 1
    }
  }
  if (first < sizes.length) shares.push([first, sizes.length])
  return shares
}
