// End-to-end: the one gate on the built CLI. `sceptic evaluate` and `sceptic merge` gate on the
// failure-rate rule (--max-failure-rate, default 0) as the suites do, and a threshold whose
// population was not scored (a gold class, a criterion) fails as not measured; exit 1 when the
// gate fails, 2 for a bad flag.
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const dir = useTempDir('sceptic-gate-')
const OPTIONS = ['o0', 'o1', 'o2', 'o3'].map((id) => ({ id, text: `Option ${id}` }))

/** Reads the gold id from the state; a state marked `fail` fails to score (an HTTP error), as a refusal or timeout would. */
const SCORER = `export default (requests) => requests.map(({ state, criterion }) => {
  const [gold, mark] = state.split(' ')
  if (mark === 'fail') return { failure: 'http_error', message: 'HTTP 503' }
  return criterion.options.map((o) => (o.id === gold ? 3 : 1))
})
`

/** 40 decisions over four gold classes and two criteria; `fails(i)` marks the ones that fail to score. */
const decisions = (fails: (i: number, gold: string, criterion: string) => boolean) =>
  Array.from({ length: 40 }, (_, i) => {
    const gold = `o${i % 4}`
    const criterion = i % 8 < 4 ? 'even' : 'odd'
    return JSON.stringify({ id: `d${i}`, state: `${gold} ${fails(i, gold, criterion) ? 'fail' : 'ok'} ${i}`, criterion: { key: criterion, options: OPTIONS }, answer_id: gold })
  }).join('\n') + '\n'

beforeAll(async () => {
  await writeFile(join(dir, 'scorer.mjs'), SCORER)
  // 36 of 40 decisions fail to score; the 4 that score are read right.
  await writeFile(join(dir, 'mostly-failed.jsonl'), decisions((i) => i >= 4))
  // Every decision of gold class o3 fails; the others are read right.
  await writeFile(join(dir, 'class-failed.jsonl'), decisions((_, gold) => gold === 'o3'))
  // Every decision of criterion "odd" fails.
  await writeFile(join(dir, 'criterion-failed.jsonl'), decisions((_, __, criterion) => criterion === 'odd'))
})

const evaluate = (data: string, args: string[]) => sceptic(['evaluate', join(dir, data), '--scorer', join(dir, 'scorer.mjs'), '--no-cache', '--no-statistics', ...args])

describe('sceptic evaluate: the failure-rate rule', () => {
  it('--threshold accuracy=0.9 with 36 of 40 decisions failing to score exits 1, saying why', async () => {
    const { code, stdout } = await evaluate('mostly-failed.jsonl', ['--threshold', 'accuracy=0.9'])
    expect(code, stdout).toBe(1)
    expect(stdout).toMatch(/✗ failure rate ≤ 0 +".*mostly-failed\.jsonl": 36 of 40 labelled decisions failed to score \(http_error 36\); maxFailureRate is 0/)
    expect(stdout).toMatch(/✗ accuracy ≥ 0\.9 +1\.000 +accuracy: /)
  })

  it('the same with --stop-early exits 1', async () => {
    const { code, stdout } = await evaluate('mostly-failed.jsonl', ['--threshold', 'accuracy=0.9', '--stop-early'])
    expect(code, stdout).toBe(1)
    expect(stdout).toContain('36 of 40 labelled decisions failed to score')
  })

  it('--max-failure-rate 0.95 allows them: exit 0, every check ✓', async () => {
    const { code, stdout } = await evaluate('mostly-failed.jsonl', ['--threshold', 'accuracy=0.9', '--max-failure-rate', '0.95'])
    expect(code, stdout).toBe(0)
    expect(stdout).toMatch(/✓ failure rate ≤ 0\.95 +36 of 40 labelled decisions failed to score/)
    expect(stdout).toMatch(/✓ accuracy ≥ 0\.9 +1\.000/)
  })

  it('--max-failure-rate 0.9 is exceeded by 36 of 40 (0.9 exactly is allowed, 0.89 is not)', async () => {
    expect((await evaluate('mostly-failed.jsonl', ['--threshold', 'accuracy=0.9', '--max-failure-rate', '0.9'])).code).toBe(0)
    expect((await evaluate('mostly-failed.jsonl', ['--threshold', 'accuracy=0.9', '--max-failure-rate', '0.89'])).code).toBe(1)
  })

  it('--max-failure-rate alone gates: exit 1 when decisions failed to score', async () => {
    const { code, stdout } = await evaluate('mostly-failed.jsonl', ['--max-failure-rate', '0'])
    expect(code, stdout).toBe(1)
    expect(stdout).toMatch(/✗ failure rate ≤ 0 /)
  })

  it('refuses a --max-failure-rate outside [0, 1], and with --shard (exit 2)', async () => {
    for (const args of [
      ['--threshold', 'accuracy=0.5', '--max-failure-rate', '1.5'],
      ['--threshold', 'accuracy=0.5', '--max-failure-rate', ''],
      ['--threshold', 'accuracy=0.5', '--max-failure-rate', 'x'],
      ['--max-failure-rate', '0.1', '--shard', '1/2', '--records-out', join(dir, 'p.jsonl')],
    ]) {
      const { code, stderr } = await evaluate('mostly-failed.jsonl', args)
      expect(code, args.join(' ')).toBe(2)
      expect(stderr, args.join(' ')).toMatch(/max-failure-rate/)
    }
  })
})

describe('sceptic evaluate: a scorer call that throws costs that call only', () => {
  // 600 two-option decisions under cyclic: 1,200 requests, more than one call; the second call throws (a 503).
  const THROWS_ONCE = `let calls = 0
export default (requests) => {
  if (++calls === 2) throw new Error('HTTP 503 from the model server')
  return requests.map(({ state, criterion }) => criterion.options.map((o) => (state.startsWith(o.id + ' ') ? 3 : 1)))
}
`
  const TWO = OPTIONS.slice(0, 2)
  beforeAll(async () => {
    await writeFile(join(dir, 'throws-once.mjs'), THROWS_ONCE)
    const rows = Array.from({ length: 600 }, (_, i) => JSON.stringify({ id: `d${i}`, state: `o${i % 2} ${i}`, criterion: { key: 'c', options: TWO }, answer_id: `o${i % 2}` }))
    await writeFile(join(dir, 'six-hundred.jsonl'), rows.join('\n') + '\n')
  })
  const throwsOnce = (args: string[]) => sceptic(['evaluate', join(dir, 'six-hundred.jsonl'), '--scorer', join(dir, 'throws-once.mjs'), '--no-cache', '--no-statistics', ...args])

  it('--max-failure-rate 0.2: the run completes, exit 0; the failures are the decisions of that call, with its message', async () => {
    const json = join(dir, 'throws-once.json')
    const { code, stdout, stderr } = await throwsOnce(['--max-failure-rate', '0.2', '--json-out', json])
    expect(code, stdout + stderr).toBe(0)
    const result = JSON.parse(await readFile(json, 'utf8'))
    const failed: { id: string; reason: string; message: string }[] = result.failures
    expect(failed.length).toBeGreaterThan(0)
    expect(failed.length / 600).toBeLessThanOrEqual(0.2)
    expect(result.n + failed.length).toBe(600)
    // The failed decisions are one contiguous call, not decision d0; each names that call's first and last request.
    const first = Number(failed[0]!.id.slice(1))
    expect(first).toBeGreaterThan(0)
    expect(failed.map((f) => f.id)).toEqual(Array.from({ length: failed.length }, (_, i) => `d${first + i}`))
    for (const f of failed) {
      expect(f.reason).toBe('error')
      expect(f.message).toMatch(new RegExp(`^the scorer threw on request \\d+ \\(decision "d${first}".* … request \\d+ \\(decision "${failed.at(-1)!.id}".*\\): HTTP 503 from the model server$`))
    }
    expect(stdout).toMatch(new RegExp(`^failed +${failed.length} +\\(error ${failed.length}; metrics are over the ${600 - failed.length} scored\\)$`, 'm'))
    expect(stdout).toMatch(/^ {2}first: decision "d\d+": the scorer threw on .*HTTP 503 from the model server$/m)
    expect(stdout).toMatch(new RegExp(`✓ failure rate ≤ 0\\.2 +${failed.length} of 600 labelled decisions failed to score`))
  })

  it('with the default --max-failure-rate 0 the run still completes and reports, then fails the gate: exit 1', async () => {
    const { code, stdout, stderr } = await throwsOnce([])
    expect(code, stdout + stderr).toBe(1)
    expect(stdout).toMatch(/^accuracy +100\.0%/m)
    expect(stdout).toMatch(/✗ failure rate ≤ 0 +".*six-hundred\.jsonl": \d+ of 600 labelled decisions failed to score \(error \d+\); maxFailureRate is 0/)
  })
})

describe('sceptic evaluate: measured means measured', () => {
  it('balancedAccuracy ≥ 0.9 fails when every decision of one gold class failed to score', async () => {
    const { code, stdout } = await evaluate('class-failed.jsonl', ['--threshold', 'balancedAccuracy=0.9', '--max-failure-rate', '0.5'])
    expect(code, stdout).toBe(1)
    expect(stdout).toMatch(/✗ balancedAccuracy ≥ 0\.9 +1\.000 +balanced accuracy: not measured: gold class "o3" \(10 decisions\) had no scored decision/)
  })

  it('perCriterion ≥ 0.9 fails when a whole criterion failed to score', async () => {
    const { code, stdout } = await evaluate('criterion-failed.jsonl', ['--threshold', 'perCriterion=0.9', '--max-failure-rate', '0.5'])
    expect(code, stdout).toBe(1)
    expect(stdout).toMatch(/✗ perCriterion ≥ 0\.9 +1\.000 +.*not measured: criterion "odd" \(20 decisions\) had no scored decision/)
  })

  it('accuracy on the same run is measured (its population is the decisions that scored): exit 0', async () => {
    const { code, stdout } = await evaluate('class-failed.jsonl', ['--threshold', 'accuracy=0.9', '--max-failure-rate', '0.5'])
    expect(code, stdout).toBe(0)
  })

  it('the JSON names the unscored class and criterion', async () => {
    const json = join(dir, 'criterion.json')
    await evaluate('criterion-failed.jsonl', ['--json-out', json])
    const result = JSON.parse(await readFile(json, 'utf8'))
    expect(result.unscored).toEqual({ goldClasses: [], criteria: ['odd'] })
    expect(result.failures[0]).toMatchObject({ criterion: 'odd', gold: 'o0', reason: 'http_error' })
  })
})

describe('sceptic merge: the gate of the merged run', () => {
  it('--threshold on merged parts applies the failure-rate rule: exit 1, and 0 with --max-failure-rate 0.95', async () => {
    const parts = ['1/2', '2/2'].map((shard, i) => join(dir, `part${i}.records.jsonl`))
    for (const [i, shard] of ['1/2', '2/2'].entries()) {
      const { code, stderr } = await evaluate('mostly-failed.jsonl', ['--shard', shard, '--records-out', parts[i]!])
      expect(code, stderr).toBe(0)
    }
    const failed = await sceptic(['merge', ...parts, '--threshold', 'accuracy=0.9'])
    expect(failed.code, failed.stdout + failed.stderr).toBe(1)
    expect(failed.stdout).toContain('36 of 40 labelled decisions failed to score')
    const allowed = await sceptic(['merge', ...parts, '--threshold', 'accuracy=0.9', '--max-failure-rate', '0.95'])
    expect(allowed.code, allowed.stdout + allowed.stderr).toBe(0)
    expect(allowed.stdout).toMatch(/✓ accuracy ≥ 0\.9/)
  })
})
