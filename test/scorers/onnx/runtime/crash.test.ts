// Worker failures and process lifecycle: a crashed worker is replaced and its batch
// retried once; a second crash is a ScorerError naming the requests; nothing hangs.
import { execFile } from 'node:child_process'
import { cpSync, mkdirSync, readdirSync, symlinkSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { ScorerError } from '../../../../dist/onnx/index.js'
import { onnxScorer, type OnnxScorer } from '../internal.ts'
import { loadTokenizer } from '../../../../src/scorers/onnx/prompt/tokenizer.ts'
import { cleanupTemp, makeModel, maxAbsDiff, request, sampleRequests, tempDir } from '../helpers.ts'

const run = promisify(execFile)
const root = join(import.meta.dirname, '../../../..')
const open: OnnxScorer[] = []
afterAll(async () => {
  await Promise.all(open.map((s) => s.close()))
  cleanupTemp()
})

const dir = makeModel({ tokenizer: 'bpe' })
// A token that only the "poison" prompt contains: the worker's fault hook fires on it.
const POISON = '<|endoftext|>'
async function poisonId(): Promise<number> {
  const tokenizer = await loadTokenizer(dir)
  return tokenizer.encode(POISON).at(-1)!
}
function withPoison() {
  const requests = sampleRequests()
  requests[7] = request(`Please help ${POISON} now.`)
  return requests
}

describe('a worker that crashes mid-batch', () => {
  it('is replaced and its batch retried once: every result arrives and matches a clean run', async () => {
    const clean = onnxScorer({ model: dir, batchSize: 4 })
    const crashing = onnxScorer({ model: dir, batchSize: 4, faults: { tokenId: await poisonId(), times: 1 } })
    open.push(clean, crashing)
    const requests = withPoison()
    const expected = await clean(requests)
    const got = await crashing(requests)
    expect(maxAbsDiff(got, expected)).toBe(0)
    expect(crashing.pool!.spawned).toBe(3) // 2 workers + 1 replacement
    expect(crashing.pool!.workers).toHaveLength(2)
    // The pool keeps working afterwards.
    expect(maxAbsDiff(await crashing(requests), expected)).toBe(0)
  })

  it('crashing again on the retry is a ScorerError naming the requests; the pool survives', async () => {
    const crashing = onnxScorer({ model: dir, batchSize: 1, workers: 2, faults: { tokenId: await poisonId(), times: 2 } })
    open.push(crashing)
    const requests = withPoison()
    const failure = crashing(requests)
    await expect(failure).rejects.toThrow(ScorerError)
    await expect(failure).rejects.toThrow(/the ONNX worker crashed twice \(exit code 70\) on request #7 \(criterion "queue", state "Please help <\|endoftext\|> now\."\)/)
    // Replacements are up and the next call succeeds.
    const vectors = await crashing(sampleRequests())
    expect(vectors).toHaveLength(sampleRequests().length)
    expect(crashing.pool!.workers).toHaveLength(2)
  })

  it('a worker killed while idle is replaced and scoring continues', async () => {
    const s = onnxScorer({ model: dir })
    open.push(s)
    const before = await s(sampleRequests())
    const [victim] = s.pool!.workers
    await victim!.terminate() // idle: terminating is safe (inside session.run it would abort the process)
    const after = await s(sampleRequests())
    expect(maxAbsDiff(after, before)).toBe(0)
    expect(s.pool!.spawned).toBe(3)
  })
})

describe('process exit', () => {
  const script = (body: string) => `
    import { onnxScorer } from ${JSON.stringify(join(root, 'dist/onnx/index.js'))}
    const state = 'The invoice was charged twice.'
    const criterion = { key: 'q', options: [{ id: 'a', text: 'Billing' }, { id: 'b', text: 'Tech' }] }
    const requests = Array.from({ length: 12 }, (_, i) => ({ state, criterion, prompt: state + ' ' + i + '\\nA. Billing\\nB. Tech\\nAnswer:' }))
    ${body}`

  it('exits by itself when the scorer is never closed (idle workers do not hold the process)', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(`
      const s = onnxScorer({ model: ${JSON.stringify(dir)} })
      const v = await s(requests)
      console.log('scored', v.length)`)], { timeout: 30_000 })
    expect(stdout.trim()).toBe('scored 12')
  })

  it('close() while batches are queued and running drains them and exits with code 0', async () => {
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script(`
      const s = onnxScorer({ model: ${JSON.stringify(dir)}, batchSize: 1 })
      await s.ready()
      const pending = s(requests)
      await s.close()
      console.log('scored', (await pending).length)`)], { timeout: 30_000 })
    expect(stdout.trim()).toBe('scored 12')
  })
})

describe('without onnxruntime-node', () => {
  it('onnxScorer throws one ConfigError line saying what to install', async () => {
    // A copy of dist/ whose node_modules has everything except onnxruntime-node.
    const sandbox = tempDir('sceptic-no-ort-')
    cpSync(join(root, 'dist'), join(sandbox, 'dist'), { recursive: true })
    mkdirSync(join(sandbox, 'node_modules'))
    for (const name of readdirSync(join(root, 'node_modules')))
      if (!name.startsWith('onnxruntime') && !name.startsWith('.')) symlinkSync(join(root, 'node_modules', name), join(sandbox, 'node_modules', name))
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', `
      const { onnxScorer } = await import(${JSON.stringify(join(sandbox, 'dist/onnx/index.js'))})
      try { onnxScorer({ model: ${JSON.stringify(dir)} }); console.log('no error') }
      catch (e) { console.log(JSON.stringify({ name: e.name, message: e.message })) }`], { cwd: sandbox, timeout: 30_000 })
    const error = JSON.parse(stdout)
    expect(error.name).toBe('ConfigError')
    expect(error.message).not.toContain('\n')
    expect(error.message).toContain('ONNXRUNTIME_NODE_INSTALL=skip npm i -D onnxruntime-node')
  })
})
