import type { Decision, ScoreFn } from '../../src/core/index.ts'

let made = 0

/**
 * A decision with options o0..o{k-1}; `answer` is an option index or null for unlabelled.
 * Without `extra.id` it gets the next id of a counter (`auto-1`, `auto-2`, ...): unique within
 * a test file and the same on every run (random ids could collide, and ids decide shards).
 */
export function decision(k: number, answer: number | null, extra: Partial<Decision> = {}): Decision {
  return {
    id: extra.id ?? `auto-${++made}`,
    state: extra.state ?? 'Some evidence.',
    criterion: extra.criterion ?? {
      key: 'c',
      question: 'Which one?',
      options: Array.from({ length: k }, (_, i) => ({ id: `o${i}`, text: `Option ${i}` })),
    },
    ...(answer === null ? {} : { answer_id: `o${answer}` }),
    ...(extra.group_id ? { group_id: extra.group_id } : {}),
  }
}

/** 0.8 on slot A, the rest shared: the reference's positional answerer. */
export const alwaysFirst: ScoreFn = (requests) =>
  requests.map(({ criterion }) => {
    const n = criterion.options.length
    return [0.8, ...Array<number>(n - 1).fill(0.2 / (n - 1))]
  })

/** A scorer whose vector depends only on option ids, never on slots: `weights[id]`. */
export function byId(weights: (id: string, state: string) => number): ScoreFn {
  return (requests) => requests.map(({ criterion, state }) => criterion.options.map((o) => weights(o.id, state)))
}
