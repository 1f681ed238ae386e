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
    // Loops for ever on the first prompt it renders (10^15 iterations) in bounded memory: each
    // range holds 10^5 numbers, so the renderer's 256 MB limit is never what ends it. (Ranges of
    // 10^9 ran out of memory within 1.5 s on an AVX2 CPU, before the 3 s timeout.)
    const loop = '{% for i in range(100000) %}{% for j in range(100000) %}{% for k in range(100000) %}{% endfor %}{% endfor %}{% endfor %}{{ messages[0].content }}'
    writeFileSync(join(model, 'tokenizer_config.json'), JSON.stringify({ chat_template: loop }))
    const started = performance.now()
    const { code, stderr } = await sceptic(['evaluate', TICKETS, '--model', model, '--chat-template', '--no-cache', '--timeout', '3'], { timeoutMs: 60_000 })
    const seconds = (performance.now() - started) / 1000
    expect(code).toBe(4)
    expect(stderr).toMatch(/the run timed out after 3 s \(--timeout\)/)
    expect(seconds).toBeLessThan(5)
  }, 90_000)
})
