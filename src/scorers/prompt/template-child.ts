/**
 * The chat template's renderer process. A template is untrusted input (a model
 * directory's `tokenizer_config.json`): it can loop for ever or allocate without bound.
 * Rendered here, a deadline can kill it, and an allocation past its heap limit
 * (`--max-old-space-size`) aborts this process, never the run's (a worker thread's
 * `resourceLimits` do not hold: a large allocation in a worker aborts the whole process).
 *
 * Built to dist/onnx/template-child.js (chat-template.ts forks it).
 */
import { Worker } from 'node:worker_threads'
import { Template } from '@huggingface/jinja'
import { firstLineOf } from '../../core/support/errors.ts'
import type { TemplateMessage, TemplateReady, TemplateReply, TemplateWorkerInit } from './template-protocol.ts'

let init: TemplateWorkerInit | undefined
let template: Template | undefined

process.on('message', (message: TemplateMessage) => {
  if (message.kind === 'init') {
    init = message.init
    return
  }
  const { id, texts } = message
  let reply: TemplateReply
  try {
    template ??= compile(init!.source)
    const compiled = template
    const { system, context } = init!
    reply = {
      id,
      rendered: texts.map((userText) => {
        const messages = [...(system !== undefined ? [{ role: 'system', content: system }] : []), { role: 'user', content: userText }]
        try {
          return compiled.render({ messages, add_generation_prompt: true, tools: null, documents: null, ...context })
        } catch (error) {
          throw Object.assign(new Error(firstLineOf(error)), { stage: 'render' })
        }
      }),
    }
  } catch (error) {
    reply = { id, error: firstLineOf(error), stage: (error as { stage?: 'compile' | 'render' }).stage ?? 'render' }
  }
  process.send!(reply)
})
// The parent gone (its channel closed): nothing left to render for.
process.on('disconnect', () => process.exit(0))
// A template stuck in a loop never reads 'disconnect': a watchdog thread ends this process
// once its parent is gone (killed, or exited without killing it first).
new Worker(
  "const { workerData: parent } = require('node:worker_threads'); setInterval(() => { try { process.kill(parent, 0) } catch { process.kill(process.pid, 'SIGKILL') } }, 500)",
  { eval: true, workerData: process.ppid },
).unref()

process.send!({ kind: 'ready' } satisfies TemplateReady)

function compile(source: string): Template {
  try {
    return new Template(source)
  } catch (error) {
    throw Object.assign(new Error(firstLineOf(error)), { stage: 'compile' })
  }
}
