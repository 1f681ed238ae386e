// A scorer that reads the evidence: each option gets a score from the keywords of its
// option id found in the ticket, then a softmax. Crude, but it answers by content, not
// by slot, so its answers survive any reordering of the options.
/** @typedef {import('vitest-sceptic').ScoreRequest} ScoreRequest */

const KEYWORDS = {
  billing: ['charge', 'charged', 'invoice', 'billed', 'payment', 'card', 'subscription', 'price', 'plan', 'renewed'],
  tech: ['crash', 'error', 'app', 'update', 'sync', 'screen', 'export', 'printing', 'notifications', 'software', 'browser'],
  account: ['log in', 'login', 'password', 'account', 'locked', 'username', 'two-factor', 'email', 'delete'],
  shipping: ['parcel', 'package', 'delivery', 'delivered', 'courier', 'order', 'tracking', 'shipping', 'box', 're-ship'],
  yes: ['refund', 'money back', 'reverse', 'return it'],
  no: [],
}

/** @param {readonly ScoreRequest[]} requests */
export default function keywordReader(requests) {
  return requests.map(({ state, criterion }) => {
    const text = state.toLowerCase()
    const scores = criterion.options.map(({ id }) => {
      const hits = (KEYWORDS[id] ?? []).filter((word) => text.includes(word)).length
      // "no" is the default answer of a yes/no question: a small constant evidence.
      return id === 'no' ? 0.5 : hits
    })
    const exp = scores.map((s) => Math.exp(1.5 * s))
    const sum = exp.reduce((a, b) => a + b, 0)
    return exp.map((e) => e / sum)
  })
}
