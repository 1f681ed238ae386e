// A simulated LLM-as-judge for examples/data/judge.jsonl. It does read the answer: it
// counts the reference facts the candidate states, the known errors it repeats, and
// marks hedging ("I think", "maybe") and very short answers, which places the answer
// somewhere on the grade scale (0 = excellent … 4 = unacceptable). On top of that it has
// a mild first-slot preference, as fixed-order judges are known to have: a fixed bonus
// for whichever grade is listed as A. Clear answers keep their grade however the grades
// are ordered; an answer between two grades leans to the nearer one, and the other wins
// whenever it is listed first.
// `sceptic evaluate … --debias cyclic` exposes exactly those verdicts.
/** @typedef {import('vitest-sceptic').ScoreRequest} ScoreRequest */

const GRADES = ['excellent', 'good', 'adequate', 'poor', 'unacceptable']

/** What the judge knows per question: fact keywords (any one counts) and known errors. */
const RUBRIC = [
  {
    about: 'photosynthesis',
    facts: [['sunlight', 'light'], ['carbon dioxide'], ['glucose', 'sugar']],
    errors: ['from the soil'],
  },
  {
    about: 'seasons',
    facts: [['tilt'], ['angle', 'direct'], ['longer days', 'day length']],
    errors: ['closer to the sun', 'sun itself gets hotter'],
  },
  {
    about: 'vaccine',
    facts: [['immune'], ['recognise', 'recognize', 'learns', 'trains', 'teaches'], ['harmless', 'weakened', 'inactivated']],
    errors: ['antibiotic', 'cures', 'kill the virus directly'],
  },
  {
    about: 'ice float',
    facts: [['less dense', 'lower density'], ['hydrogen bond'], ['lattice', 'expands', 'spread out']],
    errors: ['air bubbles', 'heavier than water'],
  },
  {
    about: 'weather and climate',
    facts: [['short-term', 'day to day'], ['long-term'], ['average', 'decades']],
    errors: ['the same thing'],
  },
  {
    about: 'binary search',
    facts: [['sorted'], ['middle'], ['half', 'halving']],
    errors: ['every element', 'unsorted', 'binary numbers'],
  },
]

const HEDGES = ['i think', 'maybe', 'probably', 'possibly', 'mostly']
const REFUSALS = ["don't know", 'no idea']
/** Logit bonus for the grade in slot A: mild, smaller than one full grade step (2). */
const FIRST_SLOT_BONUS = 0.8

/** Where the answer sits on the grade scale, 0 (excellent) to 4 (unacceptable). */
export function gradeEstimate(state) {
  const [questionLine = '', answerLine = ''] = state.split('\n')
  const question = questionLine.toLowerCase()
  const answer = answerLine.replace(/^Candidate answer:\s*/, '').toLowerCase()
  if (REFUSALS.some((phrase) => answer.includes(phrase))) return 4
  const rubric = RUBRIC.find((r) => question.includes(r.about))
  if (!rubric) return 2 // a question it has no key for: the middle of the scale
  const facts = rubric.facts.filter((words) => words.some((word) => answer.includes(word))).length
  const errors = rubric.errors.filter((phrase) => answer.includes(phrase)).length
  // Short of half a grade, so a borderline answer is never an exact tie (a tie is no answer).
  const hedged = HEDGES.some((word) => answer.includes(word)) ? 0.4 : 0
  const terse = answer.split(/\s+/).length < 8 ? 0.4 : 0
  return Math.min(4, Math.max(0, 3 - facts + errors + hedged + terse))
}

/** @param {readonly ScoreRequest[]} requests */
export default function judgeFirstBias(requests) {
  return requests.map(({ state, criterion }) => {
    const estimate = gradeEstimate(state)
    const logits = criterion.options.map(({ id }, slot) => {
      const grade = GRADES.indexOf(id)
      return -2 * Math.abs(grade - estimate) + (slot === 0 ? FIRST_SLOT_BONUS : 0)
    })
    const top = Math.max(...logits)
    const exp = logits.map((l) => Math.exp(l - top))
    const sum = exp.reduce((a, b) => a + b, 0)
    return exp.map((e) => e / sum)
  })
}
