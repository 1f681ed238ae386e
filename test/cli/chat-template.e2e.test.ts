// `sceptic evaluate --model DIR --chat-template [--system TEXT] [--chat-template-kwargs JSON]`
// end to end on a copy of the example model given a chat template, plus the flags' errors.
import { cpSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ROOT, sceptic } from '../helpers/run.ts'
import { useTempDir } from '../helpers/temp.ts'

const DATA = 'examples/data/tickets.jsonl'
const dir = useTempDir('sceptic-chat-cli-')
const model = join(dir, 'model')
cpSync(join(ROOT, 'examples/models/tiny'), model, { recursive: true })
writeFileSync(
  join(model, 'tokenizer_config.json'),
  JSON.stringify({ chat_template: "{% for m in messages %}{{ m.role }}: {{ m.content }}\n{% endfor %}{% if mood is defined %}({{ mood }})\n{% endif %}assistant:\n" }),
)

describe('sceptic evaluate --chat-template', () => {
  it('scores through the template and records it in the manifest and the model line', async () => {
    const json = join(dir, 'chat.json')
    const plainJson = join(dir, 'plain.json')
    const args = ['evaluate', DATA, '--model', model, '--workers', '1', '--no-cache']
    const chat = await sceptic([...args, '--chat-template', '--system', 'Route tickets.', '--chat-template-kwargs', '{"mood": "calm"}', '--json-out', json])
    expect(chat.stderr).not.toMatch(/Error/)
    expect(chat.code).toBe(0)
    expect(chat.stdout).toMatch(/^model {14}onnx .*\(the model's chat template; 1 worker/m)
    const result = JSON.parse(readFileSync(json, 'utf8'))
    expect(result.manifest).toMatchObject({ chatTemplate: true, system: 'Route tickets.', chatTemplateKwargs: { mood: 'calm' } })
    expect((await sceptic([...args, '--json-out', plainJson])).code).toBe(0)
    const plain = JSON.parse(readFileSync(plainJson, 'utf8'))
    expect(plain.manifest.chatTemplate).toBeUndefined()
    // The template changes what the model reads, so the numbers differ.
    expect(plain.balancedAccuracy === result.balancedAccuracy && plain.orderConsistency === result.orderConsistency && JSON.stringify(plain.letters) === JSON.stringify(result.letters)).toBe(false)
  })

  it('bad flags are one line and exit 2', async () => {
    const cases: [string[], RegExp][] = [
      [['--model', model, '--chat-template', '--chat-template-kwargs', '{nope'], /--chat-template-kwargs must be a JSON object/],
      [['--model', model, '--chat-template', '--chat-template-kwargs', '[1]'], /--chat-template-kwargs must be a JSON object.*got an array/],
      [['--model', model, '--system', 'x'], /--system and --chat-template-kwargs need --chat-template/],
      [['--model', model, '--dtype', 'fp8'], /--dtype must be one of fp32, fp16, q8, int8, uint8, q4, q4f16, got "fp8"/],
      [['--model', model, '--dtype', 'q4', '--workers', '1'], /no q4 variant \(model_q4\.onnx in the directory or onnx\/\); variants found: fp32 \(model\.onnx\)/],
      [['--scorer', 'examples/scorers/always-first.mjs', '--chat-template'], /--chat-template applies only to --model DIR/],
      [['--model', 'examples/models/tiny', '--chat-template', '--workers', '1'], /tokenizer_config\.json: no chat_template/],
    ]
    for (const [flags, message] of cases) {
      const { code, stderr } = await sceptic(['evaluate', DATA, '--no-cache', ...flags])
      expect(code, flags.join(' ')).toBe(2)
      expect(stderr).toMatch(message)
      // One error line (beside the data's note about unlabelled decisions).
      expect(stderr.trim().split('\n').filter((line) => !line.includes('unlabelled'))).toHaveLength(1)
    }
  })
})
