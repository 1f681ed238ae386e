// A reporter's output that cannot be written after planning fails the run on both runners, with
// one line naming it: the Vitest reporter's HTML page on a full device (/dev/full, ENOSPC) or under
// a name too long for the file system (ENAMETOOLONG), and the GitHub job summary of either
// reporter on a full device. Before the fix each logged its line and the run exited 0.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { jest, jestProject } from '../../helpers/jest.ts'
import { useTempDir, useTempDirs } from '../../helpers/temp.ts'
import { FIXTURES, useDistSnapshot, vitest } from '../../helpers/vitest.ts'

const E2E_TIMEOUT = 180_000
const temp = useTempDirs('sceptic-reporter-writes-')
const work = useTempDir('sceptic-reporter-writes-jest-')
const dist = useDistSnapshot()
const OPTIONS = ['a', 'b'].map((id) => ({ id, text: id }))
const DATA = Array.from({ length: 8 }, (_, i) => JSON.stringify({ id: `d${i}`, state: OPTIONS[i % 2]!.id, criterion: { key: 'k', options: OPTIONS }, answer_id: OPTIONS[i % 2]!.id }) + '\n').join('')

/** The lines of `output` that carry the reporter's message. */
const lines = (output: string, pattern: RegExp) => output.split('\n').filter((line) => pattern.test(line))

describe('Vitest reporter: a write failing after planning fails `vitest run`', () => {
  const run = (html: string, env: Record<string, string> = {}) => {
    const out = temp()
    writeFileSync(join(out, 'data.jsonl'), DATA)
    return vitest(['run', '--root', join(FIXTURES, 'report-outputs'), '-t', '^Triage A'], { SCEPTIC_E2E_DIST: dist(), SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_HTML: html.replace('$OUT', out), ...env })
  }

  it.each([
    ['a full device (ENOSPC)', '/dev/full', /ENOSPC/],
    ['a file name past NAME_MAX (ENAMETOOLONG)', `$OUT/${'r'.repeat(300)}.html`, /ENAMETOOLONG/],
  ])('the HTML page on %s: exit 1, one line', async (_, html, code) => {
    const result = await run(html)
    expect(result.code, result.output).toBe(1)
    const said = lines(result.output, /cannot write the HTML report/)
    expect(said, result.output).toHaveLength(1)
    expect(said[0]).toMatch(code)
    // The suite's own tests passed: only the write failed the run.
    expect(result.output).toMatch(/Tests +\d+ passed/)
  }, E2E_TIMEOUT)

  it('the job summary on a full device: exit 1, one line', async () => {
    const result = await run('$OUT/report.html', { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/dev/full' })
    expect(result.code, result.output).toBe(1)
    expect(lines(result.output, /cannot write the job summary to \/dev\/full.*ENOSPC/), result.output).toHaveLength(1)
  }, E2E_TIMEOUT)

  it('a page and a summary that can be written: exit 0 (control)', async () => {
    const summary = join(temp(), 'summary.md')
    const result = await run('$OUT/report.html', { GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
    expect(result.code, result.output).toBe(0)
    expect(readFileSync(summary, 'utf8')).toContain('Triage A')
  }, E2E_TIMEOUT)
})

describe('Jest reporter: the job summary failing fails `jest`', () => {
  let project = ''
  const out = join(work, 'out')
  const run = (env: Record<string, string>) => jest((project ||= jestProject(join(work, 'jest'), 'cjs', dist())), ['evals/triage'], { SCEPTIC_FIXTURE_OUT: out, SCEPTIC_FIXTURE_FACE: 'jest-cjs', ...env })

  it('on a full device: exit 1, one line', async () => {
    // The baseline and letter snapshot written first, so the suite's own tests pass.
    const local = await run({})
    expect(local.code, local.output).toBe(0)
    const result = await run({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: '/dev/full' })
    expect(result.code, result.output).toBe(1)
    expect(lines(result.output, /cannot write the job summary to \/dev\/full.*ENOSPC/), result.output).toHaveLength(1)
    expect(result.output).toMatch(/Tests: +\d+ passed, \d+ total/)
  }, E2E_TIMEOUT)

  it('a summary that can be written: exit 0 (control)', async () => {
    const summary = join(work, 'summary.md')
    const result = await run({ GITHUB_ACTIONS: 'true', GITHUB_STEP_SUMMARY: summary })
    expect(result.code, result.output).toBe(0)
    expect(readFileSync(summary, 'utf8')).toContain('triage')
  }, E2E_TIMEOUT)
})
