// Every string from data that reaches a terminal line goes through the one escaper: a criterion
// key, suite name, file, scoring error or baseline message holding an ESC colour code, an OSC 8
// link, a bare CR or a forged newline prints as visible text in the sceptic report both the
// Vitest and the Jest reporter write (renderReports) and in the progress line (a suite name),
// never as a control sequence.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { renderReports, type SuiteReport } from '../../../src/suite/suite-report.ts'
import { formatProgress } from '../../../src/suite/progress.ts'
import { fakeResult } from '../../helpers/fake-result.ts'

/** The pieces an attacker puts in a string meant for a terminal. */
const HOSTILE = ['\u001b[32m', '\u001b[0m', '\u001b]8;;https://evil.example\u0007', '\u001b]8;;\u001b\\', '\r', '\n', '\u009b31m', '\u009d8;;x\u009c', '\u202e', '\u2066', '\u0007', '\u0000', '\u007f', 'x', ' ', '"']
const hostile = fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''))

/** Control characters a report may not print: the escaper's set, less the newline between its own lines. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** A suite block with `name` in every place data reaches: suite, file, worst criterion, error, baseline. */
function reports(name: string): SuiteReport[] {
  const { records: _records, ...result } = fakeResult(Array(10).fill(true), { perCriterion: { [name]: 0.1, queue: 0.9 } })
  return [
    {
      file: `evals/${name}.eval.ts`,
      meta: { schema: 1, suite: name, thresholds: { balancedAccuracy: 0.5, perCriterion: 0.7 }, result, baseline: { status: 'regressed', pass: false, file: `b/${name}.json`, message: `drop on ${name}` } },
    },
    { file: name, meta: { schema: 1, suite: name, thresholds: {}, error: `scorer said ${name}` } },
  ]
}

describe('the sceptic report prints data strings escaped (Vitest and Jest reporters)', () => {
  it('the worst-criterion line shows an OSC 8 link and colour codes as text', () => {
    const key = '\u001b]8;;https://evil.example\u0007queue\u001b]8;;\u0007\u001b[32m'
    const text = renderReports(reports(key), false)
    expect(text).toContain('worst "\\x1b]8;;https://evil.example\\x07queue\\x1b]8;;\\x07\\x1b[32m" 0.100')
    expect(text).not.toMatch(CONTROL)
  })

  it('no control character from data in any line, colour off or on (property)', () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (name, color) => {
        const text = renderReports(reports(name), color)
        // With colour on, drop SGR codes (the report's own); an injected one is caught with colour off.
        const shown = color ? text.replace(/\u001b\[[0-9;]*m/g, '') : text
        expect(shown).not.toMatch(CONTROL)
        expect(shown.split('\n').length).toBe(renderReports(reports('x'), color).split('\n').length)
      }),
      { numRuns: 200, seed: 42 },
    )
  })

  it('the progress line both the reporter and the CLI print shows a hostile suite name as text (property)', () => {
    fc.assert(
      fc.property(hostile, (name) => {
        const line = formatProgress({ suite: name, scored: 1, total: 2, elapsedMs: 1000 })
        expect(line).not.toMatch(CONTROL)
        expect(line).not.toContain('\n')
      }),
      { numRuns: 200, seed: 42 },
    )
  })
})
