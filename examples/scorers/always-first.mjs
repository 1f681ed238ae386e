// The pathology the sceptic report exists to expose: a scorer that prefers slot A
// whatever the evidence says (0.8 on A, the rest shared). On a balanced set it looks
// "weak"; under cyclic debiasing its order consistency is exactly 0 and it picks A 100%.
/** @typedef {import('vitest-sceptic').ScoreRequest} ScoreRequest */

/** @param {readonly ScoreRequest[]} requests */
export default function alwaysFirst(requests) {
  return requests.map(({ criterion }) => {
    const n = criterion.options.length
    return [0.8, ...Array(n - 1).fill(0.2 / (n - 1))]
  })
}
