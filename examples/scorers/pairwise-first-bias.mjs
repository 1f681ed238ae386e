// A simulated pairwise judge for examples/data/pairs.jsonl: "which of two answers is
// better, or is it a tie?". It does read the answers: it counts the facts each states
// and the known misconceptions it repeats. On top of that it prefers whichever answer it
// is shown first, the primacy bias Shi et al. ("Judging the Judges", 2024) measure in
// LLM judges. When one answer is clearly better the bonus does not matter; when the
// judge is unsure, the first-shown answer wins. `debias: 'cyclic'` shows each pair in
// both orders, and the pairwise audit counts the verdicts that follow the order.
/** @typedef {import('vitest-sceptic').ScoreRequest} ScoreRequest */

/** Words that mark a stated fact (any match counts once) and misconceptions. */
const FACTS = [
  'sunlight', 'carbon dioxide', 'glucose', 'oxygen', 'tilted', 'direct', 'immune', 'recognise', 'weakened',
  'less dense', 'hydrogen bond', 'lattice', 'sorted', 'middle', 'half', 'short-term', 'long-term', 'average',
  'gravity', 'moon', 'refracted', 'reflected', 'pressure', 'vapour', 'reacts', 'iron oxide', 'orbits', 'sunlit', 'pumps',
]
const MISCONCEPTIONS = ['closer to the sun', 'kills the virus', 'antibiotic', 'air bubbles', 'every element', 'same thing', 'wind', 'pollution', 'gets old', 'shadow', 'filters', 'breathe']

/** Logit bonus for the answer shown first: a strong primacy bias. */
const FIRST_SHOWN_BONUS = 2.5

/** How good an answer reads: facts stated minus misconceptions repeated. */
export function quality(text) {
  const t = text.toLowerCase()
  return FACTS.filter((f) => t.includes(f)).length - 2 * MISCONCEPTIONS.filter((m) => t.includes(m)).length
}

/** @param {readonly ScoreRequest[]} requests */
export default function pairwiseFirstBias(requests) {
  return requests.map(({ criterion }) => {
    const candidates = criterion.options.map((o, slot) => ({ o, slot })).filter(({ o }) => !o.pinned)
    const scores = candidates.map(({ o }) => quality(o.text))
    const logits = criterion.options.map((option, slot) => {
      if (option.pinned) return Math.max(...scores) - 1 - 2 * Math.abs(scores[0] - scores[1])
      return quality(option.text) + (slot === candidates[0].slot ? FIRST_SHOWN_BONUS : 0)
    })
    const top = Math.max(...logits)
    const exp = logits.map((l) => Math.exp(l - top))
    const sum = exp.reduce((a, b) => a + b, 0)
    return exp.map((e) => e / sum)
  })
}
