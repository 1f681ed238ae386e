/**
 * User and server strings (suite names, class labels, failure messages, server errors) as
 * inert text: one escaper per target format, so no string from a run JSON or a server can
 * become a link, an image, markup, a table cell or a workflow command.
 */

import { escapeControl } from '../core/support/escape.ts'

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }

/** HTML and SVG, text and quoted attribute values alike: `& < > " '` as entities. */
export function escapeXml(text: string): string {
  return String(text).replace(/[&<>"']/g, (ch) => XML_ENTITIES[ch]!)
}

/**
 * Markdown (the job summary, GitHub-flavoured): every character that can start inline
 * syntax is backslash-escaped (CommonMark renders `\` + any ASCII punctuation as that
 * character): links and images `[ ] ( ) !`, raw HTML and autolinks `< >`, entities `&`,
 * emphasis `* _ ~`, code `` ` ``, table cells `|`, headings' closing `#`, the escape `\`.
 * GFM's bare-link literals are broken at `://`, `www.` and `@`; a line break is a space.
 */
export function escapeMarkdown(text: string): string {
  return String(text)
    .replace(/[\\`*_~[\]()!<>&|#@]/g, (c) => `\\${c}`)
    .replace(/:\/\//g, '\\://')
    .replace(/(w)(ww\.)/gi, (_, w: string, rest: string) => `${w}${rest.slice(0, 2)}\\.`)
    .replace(/\r\n?|\n/g, ' ')
}

/** A Markdown code span of `text` as it is: fenced by one more backtick than its longest run, one line. */
export function markdownCode(text: string): string {
  const line = String(text).replace(/\r\n?|\n/g, ' ')
  const longest = (line.match(/`+/g) ?? []).reduce((most, run) => Math.max(most, run.length), 0)
  const fence = '`'.repeat(longest + 1)
  const pad = /^[` ]|[` ]$/.test(line) ? ' ' : ''
  return `${fence}${pad}${line}${pad}${fence}`
}

/** Workflow command data: `%`, CR and LF escaped (GitHub's toolkit `escapeData`), then every other control character shown as text (the log is a terminal). */
export function escapeData(text: string): string {
  return escapeControl(text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A'))
}

/** Workflow command property: as data, plus `:` and `,` (GitHub's toolkit `escapeProperty`). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C')
}
