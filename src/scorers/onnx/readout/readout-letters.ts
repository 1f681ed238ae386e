/**
 * The token ids a letter head keeps (letter-head.ts): every option letter's first id after
 * each prompt ending the scorer meets. The plain prompt ends with `Answer:` (letters read
 * as `" A"`), a chat template's assistant header ends with a newline (letters read as
 * `"A"`), so a head cut to the union of both serves either; a rendered chat prompt adds
 * its own ending. Columns are looked up by id (letter-columns.ts), so extra ids cost a
 * column each and nothing else.
 */
import { LETTERS } from '../../../core/decisions/schema.ts'
import type { LoadedTokenizer } from '../prompt/tokenizer.ts'

/** A prompt ending the readout must serve, and how its text is encoded (`special`: as the plain prompt). */
export interface PromptEnding {
  /** The text whose continuation is a letter. */
  readonly text: string
  /** Encode as the plain prompt (true) or as a rendered chat template (false); see {@link LoadedTokenizer.encode}. */
  readonly special: boolean
}

/** The plain prompt's ending, and the ending after a newline (a chat template's assistant header). */
export const DEFAULT_ENDINGS: readonly PromptEnding[] = [
  { text: 'Answer:', special: false },
  { text: 'Answer:\n', special: false },
]

/**
 * Letter ids after each ending, in order of first appearance, without repeats. Per
 * ending, the letters A.. up to the first that is not a token of its own there (the
 * readout could not read it, so neither need the head).
 */
export function readoutLetterIds(tokenizer: LoadedTokenizer, endings: readonly PromptEnding[]): number[] {
  const ids: number[] = []
  for (const { text, special } of endings) {
    for (let count = 1; count <= LETTERS.length; count++) {
      let id: number
      try {
        id = tokenizer.letterIdsAfter(text, count, special)[count - 1]!
      } catch {
        break
      }
      if (!ids.includes(id)) ids.push(id)
    }
  }
  return ids
}
