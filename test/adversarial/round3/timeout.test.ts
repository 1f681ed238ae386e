// `sceptic evaluate --timeout N` ends the process within 2 s of N even when the model's chat
// template runs away (it loops for ever rendering the first prompt, in its own process): the
// scorer's close stops the template, and N counts from the process's start.
import { cpSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../../helpers/run.ts'
import { cleanup, temp } from '../helpers.ts'

afterAll(cleanup)

const TINY = join(ROOT, 'examples/models/tiny')
const TICKETS = join(ROOT, 'examples/data/tickets.jsonl')

describe('--timeout N with a chat template that runs away', () => {
  it('sceptic evaluate --timeout 3: exits 4 within 5 s, naming the timeout', async () => {
    const model = temp()
    cpSync(TINY, model, { recursive: true })
    // Loops for ever on the first prompt it renders (10^18 iterations).
    const loop = '{% for i in range(1000000000) %}{% for j in range(1000000000) %}{% endfor %}{% endfor %}{{ messages[0].content }}'
    writeFileSync(join(model, 'tokenizer_config.json'), JSON.stringify({ chat_template: loop }))
    const started = performance.now()
    const { code, stderr } = await sceptic(['evaluate', TICKETS, '--model', model, '--chat-template', '--no-cache', '--timeout', '3'], { timeoutMs: 60_000 })
    const seconds = (performance.now() - started) / 1000
    expect(code).toBe(4)
    expect(stderr).toMatch(/the run timed out after 3 s \(--timeout\)/)
    expect(seconds).toBeLessThan(5)
  }, 90_000)
})
