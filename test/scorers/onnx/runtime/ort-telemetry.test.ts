// onnxruntime-node 1.30 (Linux) keeps a telemetry queue under ~/.cache/Microsoft and writes
// /tmp/mat-debug-<pid>.log in every process that creates a session, unless
// ORT_DISABLE_TELEMETRY is set in the process environment before it starts. The scorer sets
// it: a run writes nothing outside what it owns. Each case is a fresh process with its own
// HOME, so what ORT would have written is seen.
import { execFile } from 'node:child_process'
import { existsSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupTemp, makeModel, tempDir } from '../helpers.ts'

const run = promisify(execFile)
/** The variables ORT 1.30's telemetry looks for to stay off in CI (named in its library). */
const CI_VARIABLES = ['CI', 'GITHUB_ACTIONS', 'GITLAB_CI', 'JENKINS_URL', 'TF_BUILD']
const root = join(import.meta.dirname, '../../../..')
afterAll(cleanupTemp)
const dir = makeModel({ tokenizer: 'bpe' })

/** Run `body` in a fresh Node with HOME a new folder and the switch unset or set to `value`; what it left behind. */
async function leftBehind(body: string, value?: string): Promise<{ home: string[]; debugLog: boolean; stdout: string }> {
  const home = tempDir()
  // ORT's telemetry stays off by itself where it sees a CI variable: the probe runs as on a developer's machine.
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !['ORT_DISABLE_TELEMETRY', 'XDG_CACHE_HOME', ...CI_VARIABLES].includes(key)))
  const script = `
    import { onnxScorer } from ${JSON.stringify(join(root, 'dist/onnx/index.js'))}
    const criterion = { key: 'q', options: [{ id: 'a', text: 'Billing' }, { id: 'b', text: 'Tech' }] }
    const requests = [{ state: 's', criterion, prompt: 'The invoice was charged twice.\\nA. Billing\\nB. Tech\\nAnswer:' }]
    ${body}
    console.log(process.pid)`
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { env: { ...env, HOME: home, ...(value === undefined ? {} : { ORT_DISABLE_TELEMETRY: value }) }, timeout: 60_000 })
  const pid = stdout.trim().split('\n').at(-1)!
  const debugLog = `/tmp/mat-debug-${pid}.log`
  const written = existsSync(debugLog)
  // The probe cases make ORT write it on purpose: it is this test's to remove.
  rmSync(debugLog, { force: true })
  return { home: readdirSync(home, { recursive: true }).map(String), debugLog: written, stdout }
}

describe('ORT telemetry', () => {
  it('a scorer run leaves nothing under HOME and no /tmp/mat-debug log', async () => {
    const after = await leftBehind(`const s = onnxScorer({ model: ${JSON.stringify(dir)} }); console.log((await s(requests)).length); await s.close()`)
    expect(after.stdout.split('\n')[0]).toBe('1')
    expect(after.home).toEqual([])
    expect(after.debugLog).toBe(false)
  })

  it('the probe is real: ORT loaded without the scorer writes both (so the case above can fail)', async () => {
    const after = await leftBehind(`const ort = await import('onnxruntime-node'); await ort.InferenceSession.create(${JSON.stringify(join(dir, 'model.onnx'))})`)
    expect(after.home.some((path) => path.includes('Microsoft'))).toBe(true)
    expect(after.debugLog).toBe(true)
  })

  it('a value the user set is kept (0 keeps ORT telemetry on, their call)', async () => {
    const after = await leftBehind(`const s = onnxScorer({ model: ${JSON.stringify(dir)} }); await s(requests); await s.close()`, '0')
    expect(after.home.some((path) => path.includes('Microsoft'))).toBe(true)
  })
})
