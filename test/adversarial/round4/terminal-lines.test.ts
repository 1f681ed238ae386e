// Every string from data that reaches a terminal goes through the one escaper (escapeControl):
// the CLI's report (`render`, printed by `sceptic evaluate` and `sceptic report`), its gate lines,
// and the GitHub annotations both reporters print, with a data string holding ESC, an OSC 8 link,
// CSI (7-bit and the one-byte C1 form), other C1 controls or a bidi override in every place a
// string from the data, the scorer or the server reaches: criterion keys, custom metric names,
// failure reasons and messages, decision ids, the scorer's description, a suite, file or error.
// (The sceptic report of the Vitest and Jest reporters and the progress line: terminal.test.ts.)
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { gateLines } from '../../../src/cli/thresholds.ts'
import type { EvalResult } from '../../../src/core/index.ts'
import { githubAnnotations, type GitHubSuite } from '../../../src/report/github.ts'
import { render } from '../../../src/report/terminal.ts'
import { decideRun } from '../../../src/run/gate.ts'
import { fakeResult } from '../../helpers/fake-result.ts'

/** The pieces of a hostile string: ESC colour codes, OSC 8 links, CSI both ways, C1 controls, bidi overrides, CR/LF. */
const HOSTILE = ['\u001b[32m', '\u001b[0m', '\u001b]8;;https://evil.example\u0007', '\u001b]8;;\u001b\\', '\u009b2J', '\u009d0;title\u009c', '\u0085', '\u0090', '\u202e', '\u2066', '\u2069', '\r', '\n', '\u0007', '\u0008', '\u007f', 'x', '%', ':']
const hostile = fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''))

/** What a terminal line may not hold: the escaper's set less the newline between lines. */
const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/

/** A result with `s` in every place a data string reaches the report. */
function result(s: string): EvalResult {
  const base = fakeResult(Array(10).fill(true), {
    perCriterion: { [s]: 0.4, queue: 0.9 },
    metrics: { [s]: 0.5 },
    failed: 2,
    failures: [{ id: s, message: `server said ${s}`, reason: 'error' }] as never,
  })
  return {
    ...base,
    manifest: { ...base.manifest, scorer: `scorer ${s}`, model: s, failedByReason: { [s]: 2 }, flagged: { [s]: 1 }, stopEarlyOff: s, readout: s } as EvalResult['manifest'],
  }
}

/** Lines as printed, with colour off (an injected SGR code is then caught) or on (the report's own SGR codes dropped). */
const shown = (text: string, color: boolean) => (color ? text.replace(/\u001b\[[0-9;]*m/g, '') : text)

describe('the CLI report, its gate lines and the GitHub annotations print data strings escaped', () => {
  it('render(): no control character from data, and no line forged, colour off or on (property)', () => {
    fc.assert(
      fc.property(hostile, fc.boolean(), (s, color) => {
        const text = shown(render(result(s), { color }), color)
        expect(text).not.toMatch(CONTROL)
        expect(text.split('\n').length).toBe(shown(render(result('x'), { color }), color).split('\n').length)
      }),
      { numRuns: 300, seed: 42 },
    )
  })

  it('the gate lines `sceptic evaluate --threshold` prints (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const gate = decideRun({ name: s, thresholds: { accuracy: 0.99, [s]: 0.9, perCriterion: 0.5 }, maxFailureRate: 0 }, { result: result(s) as never })
        const lines = gateLines(gate)
        for (const line of lines) expect(line).not.toMatch(CONTROL)
        expect(lines.join('\n').split('\n').length).toBe(lines.length)
      }),
      { numRuns: 300, seed: 42 },
    )
  })

  it('the GitHub annotations either reporter prints: one line each, no control character (property)', () => {
    fc.assert(
      fc.property(hostile, (s) => {
        const { records: _records, ...json } = result(s)
        const suites: GitHubSuite[] = [
          { suite: s, file: `evals/${s}.eval.ts`, thresholds: { accuracy: 0.99, perCriterion: 0.5 }, result: json as never, baseline: { status: 'regressed', pass: false, message: `drop on ${s}` } },
          { suite: s, file: s, error: `scorer said ${s}` },
        ]
        const lines = githubAnnotations(suites)
        expect(lines.length).toBeGreaterThan(2)
        for (const line of lines) {
          expect(line).not.toMatch(CONTROL)
          expect(line.startsWith('::error ')).toBe(true)
        }
      }),
      { numRuns: 300, seed: 42 },
    )
  })

  it('an OSC 8 link in a criterion key shows as text in the report', () => {
    const key = '\u001b]8;;https://evil.example\u0007queue\u001b]8;;\u0007'
    expect(render(result(key), { color: false })).toContain('\\x1b]8;;https://evil.example\\x07queue\\x1b]8;;\\x07')
  })
})
