import type { Decision, ScoreFn } from '../../src/core/index.ts'

/** Keys and ids that break a plain `{}`: one replaces the prototype, the rest are inherited members. */
export const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty'] as const

/**
 * Five decisions per criterion, one criterion per name plus `plain`, every option id
 * one of the names, gold cycling over them. The state says `answer: <id>`.
 */
export function protoDecisions(): Decision[] {
  const options = PROTO_NAMES.map((id, i) => ({ id, text: `Option ${i}` }))
  return [...PROTO_NAMES, 'plain'].flatMap((key) =>
    PROTO_NAMES.map((gold, g) => ({
      id: `${key}/${gold}`,
      state: `answer: ${gold}`,
      criterion: { key, question: 'Which one?', options },
      answer_id: gold,
      group_id: PROTO_NAMES[g % 2 === 0 ? 0 : 1]!,
    })),
  )
}

/**
 * Reads `answer: <id>` from the state and puts 0.6 on it (0.1 elsewhere), except under
 * the `__proto__` criterion, where it always answers the next option: that criterion
 * sits at 0% while every other one is at 100%.
 */
export const protoReader: ScoreFn = (requests) =>
  requests.map(({ state, criterion }) => {
    const ids = criterion.options.map((o) => o.id)
    const said = state.slice('answer: '.length)
    const pick = criterion.key === '__proto__' ? PROTO_NAMES[(PROTO_NAMES.indexOf(said as never) + 1) % PROTO_NAMES.length]! : said
    return ids.map((id) => (id === pick ? 0.6 : 0.1))
  })
