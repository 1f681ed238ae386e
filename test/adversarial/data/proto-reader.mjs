// Fixture scorer for the adversarial corpus (a plain module, so the built CLI can load it
// with --scorer). Reads "answer: <id>" from the state and puts 0.6 on that option (0.1
// elsewhere), except under the "__proto__" criterion, where it always answers the next
// option of the five: that criterion sits at 0% while every other one is at 100%.
export const PROTO_NAMES = ['__proto__', 'constructor', 'toString', 'valueOf', 'hasOwnProperty']

export default function protoReader(requests) {
  return requests.map(({ state, criterion }) => {
    const said = state.slice('answer: '.length)
    const pick = criterion.key === '__proto__' ? PROTO_NAMES[(PROTO_NAMES.indexOf(said) + 1) % PROTO_NAMES.length] : said
    return criterion.options.map((o) => (o.id === pick ? 0.6 : 0.1))
  })
}
