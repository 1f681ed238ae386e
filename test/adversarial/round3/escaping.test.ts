// User and server strings are data: a suite name, class label, option id, criterion key,
// failure message, server error or run-JSON string holding Markdown link/image syntax, HTML,
// quotes, backticks, pipes or newlines renders as inert text — in the job summary (no live
// link, image, raw HTML or broken table row) and in the HTML report (no element or attribute
// the benign report does not have; the string only as text or inside a quoted attribute).
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateWithScorer } from '../../../src/core/evaluate/index.ts'
import { scoreFailure } from '../../../src/core/scorer/contract.ts'
import type { Decision } from '../../../src/core/decisions/schema.ts'
import { resultToJson, type EvalResult } from '../../../src/core/result/result.ts'
import { githubSummary, type GitHubSuite } from '../../../src/report/github.ts'
import { escapeMarkdown, markdownCode } from '../../../src/report/escape.ts'
import { renderHtmlReport } from '../../../src/report/html.ts'

/** The pieces an attacker puts in a string. */
const HOSTILE = ['[x](https://evil.example)', '![i](http://x/y.png)', '<img src=x onerror=alert(1)>', '"', "'", '`', '|', '\n', '\r\n', '&lt;b&gt;', '&', '<', '>', '[', ']', '(', ')', '!', '*', '_', '~', '#', '\\', 'www.evil.example', 'a@b.example', ' ', 'x', '"><svg onload=alert(1)>', "' onmouseover='x", '<!--', ']]>', '<script>alert(1)</script>']
const hostile = fc.array(fc.constantFrom(...HOSTILE), { minLength: 1, maxLength: 6 }).map((parts) => parts.join(''))

/** A run whose every user string (ids, states, criterion keys, option ids and texts, failure messages) is one of `names`. */
async function runWith(names: readonly string[]): Promise<EvalResult> {
  const name = (i: number) => `${names[i % names.length]}${i}`
  const options = [0, 1, 2].map((k) => ({ id: name(k), text: name(k + 3) }))
  const decisions: Decision[] = Array.from({ length: 12 }, (_, i) => ({
    id: name(i + 10),
    state: name(i),
    criterion: { key: name(i % 2 ? 30 : 31), question: name(32), options },
    answer_id: options[i % 3]!.id,
  }))
  return evaluateWithScorer(
    decisions,
    (requests) => requests.map((r, i) => (i % 5 === 4 ? scoreFailure('http_error', `server said: ${name(40)}`) : r.criterion.options.map((o, k) => (k === 0 ? 0.6 : 0.2)))),
    { debias: 'cyclic', onWarning: () => {} },
  )
}

// --- Markdown: a scanner for the inline syntax that makes a link, an image or markup live.

/** The characters of `line` that are not backslash-escaped, with their positions. */
function unescaped(line: string): { c: string; at: number }[] {
  const out: { c: string; at: number }[] = []
  for (let i = 0; i < line.length; i++) {
    if (line[i] === '\\' && i + 1 < line.length && /[!-/:-@[-`{-~]/.test(line[i + 1]!)) {
      i++
      continue
    }
    out.push({ c: line[i]!, at: i })
  }
  return out
}

/** What in `markdown` is live syntax from user text: brackets, raw HTML, bare links, extra table cells. */
function liveMarkdown(markdown: string): string[] {
  const found: string[] = []
  for (const line of markdown.split('\n')) {
    if (line.startsWith('`')) continue // the file's code span: literal by construction, checked apart
    const chars = unescaped(line)
    const plain = chars.map((x) => x.c).join('')
    for (const c of ['[', ']', '`']) if (plain.includes(c)) found.push(`unescaped ${c} in: ${line}`)
    // Raw HTML and autolinks open with `<` and a name, `/`, `!` or `?`; an entity is `&name;` or `&#…;`.
    if (/<[A-Za-z/!?]/.test(plain)) found.push(`raw HTML in: ${line}`)
    if (/&#?\w+;/.test(plain)) found.push(`entity in: ${line}`)
    if (/:\/\//.test(plain) || /www\./i.test(plain) || /@/.test(plain)) found.push(`bare link in: ${line}`)
    if (line.startsWith('|') && chars.filter((x) => x.c === '|').length !== 5) found.push(`table row with ${chars.filter((x) => x.c === '|').length} cell bars: ${line}`)
  }
  return found
}

describe('job summary Markdown: user strings are inert text', () => {
  it('escapeMarkdown leaves no live syntax and renders back to the string (backslash escapes removed)', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const escaped = escapeMarkdown(text)
        expect(liveMarkdown(escaped)).toEqual([])
        expect(escaped).not.toMatch(/\n|\r/)
        expect(escaped.replace(/\\([!-/:-@[-`{-~])/g, '$1')).toBe(text.replace(/\r\n?|\n/g, ' '))
      }),
      { numRuns: 300 },
    )
  })

  it('markdownCode: a code span that no backtick in the text can close early', () => {
    fc.assert(
      fc.property(hostile, (text) => {
        const span = markdownCode(text)
        const fence = /^`+/.exec(span)![0]
        const inner = span.slice(fence.length, span.length - fence.length)
        // No run of exactly the fence's length inside: the span closes only at its end.
        expect([...inner.matchAll(/`+/g)].every((m) => m[0].length !== fence.length)).toBe(true)
        expect(span).not.toMatch(/\n|\r/)
      }),
      { numRuns: 300 },
    )
  })

  it('every field of the summary (suite, file, error, baseline, tests, class labels, keys, letters) renders inert', async () => {
    const names = fc.sample(hostile, { numRuns: 40, seed: 7 })
    for (let k = 0; k < 8; k++) {
      const picked = names.slice(k * 5, k * 5 + 5)
      const result = resultToJson(await runWith(picked))
      const text = picked[0]!
      const json = { ...result, letterDistribution: { ...result.letterDistribution, [text]: 0 }, manifest: { ...result.manifest, debias: text, tied: { decisions: 1, picks: picked[2] } } } as never
      const suites: GitHubSuite[] = [
        {
          suite: text,
          file: `evals/${picked[1]}.eval.ts`,
          thresholds: { balancedAccuracy: 0.9, [`${picked[2]}`]: 0.5 },
          maxFailureRate: 1,
          result: json,
          baseline: { pass: false, message: picked[3]! },
          tests: [{ name: picked[4]!, state: 'fail' }] as never,
        },
        { suite: picked[1]!, file: picked[2]!, error: `ScorerError: ${picked[3]}`, thresholds: {} },
      ]
      const md = githubSummary(suites)
      expect(liveMarkdown(md), md).toEqual([])
      // The file's line is one code span (its fence longer than any backtick run in it).
      for (const line of md.split('\n').filter((l) => l.startsWith('`'))) {
        const fence = /^`+/.exec(line)![0]
        expect(line.endsWith(fence), line).toBe(true)
      }
    }
  })
})

// --- HTML: a small tokenizer; the report's structure must not depend on what the strings say.

interface Tag {
  name: string
  attrs: string[]
}

/** Tags and attribute names of `html`, read as a browser's tokenizer would for this subset (comments and raw text skipped). */
function tags(html: string): Tag[] {
  const out: Tag[] = []
  let i = 0
  while (i < html.length) {
    const lt = html.indexOf('<', i)
    if (lt < 0) break
    if (html.startsWith('<!--', lt)) {
      const end = html.indexOf('-->', lt + 4)
      out.push({ name: '!--', attrs: [] })
      i = end < 0 ? html.length : end + 3
      continue
    }
    const m = /^<\/?([a-zA-Z][^\s/>]*)/.exec(html.slice(lt))
    if (!m) {
      i = lt + 1
      continue
    }
    let j = lt + m[0].length
    const attrs: string[] = []
    while (j < html.length && html[j] !== '>') {
      const a = /^[\s/]*([^\s"'>/=]+)(\s*=\s*("[^"]*"|'[^']*'|[^\s>]*))?/.exec(html.slice(j))
      if (!a || a[0].length === 0) {
        j++
        continue
      }
      if (a[1]) attrs.push(a[1].toLowerCase())
      j += a[0].length
    }
    const name = m[1]!.toLowerCase()
    out.push({ name, attrs })
    i = j + 1
    // Raw text elements: their content is not markup.
    if ((name === 'style' || name === 'script') && !m[0].startsWith('</')) {
      const end = html.toLowerCase().indexOf(`</${name}`, i)
      i = end < 0 ? html.length : end
    }
  }
  return out
}

/** Every element name and every `element@attribute` in `html`. */
function structure(html: string): Set<string> {
  return new Set(tags(html).flatMap((t) => [t.name, ...t.attrs.map((a) => `${t.name}@${a}`)]))
}

describe('HTML report: user strings are text or quoted attribute values', () => {
  it('the tokenizer sees a planted element and attribute', () => {
    expect([...structure('<p title="a">x</p><img src=x onerror=y>')]).toEqual(['p', 'p@title', 'img', 'img@src', 'img@onerror'])
    expect([...structure(`<span title="5 "><b onclick='x'>">`)]).toContain('b@onclick')
  })

  it('random hostile strings in every field add no element or attribute to the page', async () => {
    const benign = await runWith(['plain'])
    const allowed = new Set([...structure(renderHtmlReport({ result: resultToJson(benign), records: benign.records, label: 'plain' }, { title: 'plain' })), ...structure(renderHtmlReport([{ result: resultToJson(benign), records: benign.records, label: 'a' }, { result: resultToJson(benign), records: benign.records, label: 'b' }]))])
    const names = fc.sample(hostile, { numRuns: 60, seed: 11 })
    for (let k = 0; k < 12; k++) {
      const picked = names.slice(k * 5, k * 5 + 5)
      const result = await runWith(picked)
      const json = resultToJson(result)
      // Strings only a run JSON carries: the tie count's detail, a letter, the debias mode, the scorer's description.
      const tampered = { ...json, letterDistribution: { ...json.letterDistribution, [picked[1]!]: 0.1 }, manifest: { ...json.manifest, debias: picked[2]!, scorer: picked[3]!, tied: { decisions: 1, picks: picked[4]! } } } as never
      for (const html of [
        renderHtmlReport({ result: tampered, records: result.records, label: picked[0]! }, { title: picked[1]! }),
        renderHtmlReport([{ result: tampered, records: result.records, label: picked[2]! }, { result: json, records: result.records, label: picked[3]! }], { title: picked[4]! }),
      ]) {
        const extra = [...structure(html)].filter((s) => !allowed.has(s))
        expect(extra, picked.join(' · ')).toEqual([])
        expect(html).not.toMatch(/<(img|script|a|iframe|object|embed|link|base|form)\b/i)
      }
    }
  })
})
