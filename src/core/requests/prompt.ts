/** The default prompt. */
import { LETTERS, type Criterion } from '../decisions/schema.ts'

/**
 * The default prompt (docs/data-format.md#the-prompt): the state, a blank line, the question on
 * its own line when there is one, one `A. text` line per option, then `Answer:`.
 */
export function buildPrompt(state: string, criterion: Criterion): string {
  let text = state + '\n\n'
  if (criterion.question) text += criterion.question + '\n'
  criterion.options.forEach((option, index) => {
    text += LETTERS[index] + '. ' + option.text + '\n'
  })
  return text + 'Answer:'
}
