// Every fenced code block in README.md and docs/**/*.md is run. The
// convention is documented in docs/README.md, "Every code block is run": the info string
// says what a block is, and each page runs in a scratch project of its own where
// `vitest-sceptic` is the built package.
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import ts from 'typescript'
import { afterAll, beforeAll, describe, expect, test } from 'vitest'
import { validateDecision } from '../../src/core/index.ts'
import { AI_SDK, NO_AI_SDK } from '../helpers/ai-sdk.ts'
import { startFakeOpenAI } from '../helpers/fake-openai.ts'
import { run } from '../helpers/run.ts'
import { useTempDir, useTempDirs } from '../helpers/temp.ts'
import { REPO, useDistSnapshot, vitest } from '../helpers/vitest.ts'

// ─── Blocks ──────────────────────────────────────────────────────────────────

type Kind = 'code' | 'sh' | 'json' | 'jsonl' | 'yaml' | 'text'
const LANGS: Record<string, Kind> = {
  ts: 'code', typescript: 'code', js: 'code', javascript: 'code', mjs: 'code',
  sh: 'sh', bash: 'sh', shell: 'sh',
  json: 'json', jsonl: 'jsonl', yaml: 'yaml', yml: 'yaml', text: 'text',
}

interface Block {
  page: string
  /** 1-based line of the opening fence. */
  line: number
  lang: string
  kind: Kind | undefined
  /** `no-run(reason)`: the reason ('' when the marker has none). */
  noRun: string | undefined
  /** `exit=N`: the exit code the block's commands (or its Vitest run) must give. */
  exit: number
  body: string
  /** Problems with the info string itself. */
  errors: string[]
}

export function extractBlocks(page: string, markdown: string): Block[] {
  const blocks: Block[] = []
  const lines = markdown.split('\n')
  for (let i = 0; i < lines.length; i++) {
    const open = /^(`{3,}|~{3,})(.*)$/.exec(lines[i]!)
    if (!open) continue
    const fence = open[1]!
    const info = open[2]!.trim()
    const body: string[] = []
    let j = i + 1
    while (j < lines.length && !(lines[j]!.startsWith(fence) && lines[j]!.trim() === fence)) body.push(lines[j++]!)
    const errors: string[] = []
    const lang = info.split(/\s+/)[0] ?? ''
    let rest = info.slice(lang.length).trim()
    let noRun: string | undefined
    let exit = 0
    const marker = /no-run(?:\(([^)]*)\))?/.exec(rest)
    if (marker) {
      noRun = (marker[1] ?? '').trim()
      rest = rest.replace(marker[0], '').trim()
    }
    const code = /exit=(\d+)/.exec(rest)
    if (code) {
      exit = Number(code[1])
      rest = rest.replace(code[0], '').trim()
    }
    if (rest) errors.push(`unknown info string attribute(s) "${rest}"`)
    if (!lang) errors.push('no info string: mark output, usage lines and layouts as ```text')
    else if (!LANGS[lang]) errors.push(`unknown language "${lang}" (known: ${Object.keys(LANGS).join(', ')})`)
    if (noRun === '') errors.push('no-run without a reason: write no-run(why it cannot run)')
    blocks.push({ page, line: i + 1, lang, kind: LANGS[lang], noRun, exit, body: body.join('\n'), errors })
    i = j
  }
  return blocks
}

function pages(): string[] {
  const docs = (readdirSync(join(REPO, 'docs'), { recursive: true }) as string[]).filter((f) => f.endsWith('.md')).map((f) => join('docs', f))
  return ['README.md', ...docs.sort()]
}

// ─── Shell commands (a small, strict subset of sh) ───────────────────────────

interface Command {
  env: Record<string, string>
  argv: string[]
  /** `> file`: where stdout goes. */
  stdout?: string
  /** The source text, for messages. */
  text: string
}

/** Split a block into commands: quotes, `\`-newlines, comments, `&&`, `;`, `>` and `$VAR` are understood; pipes are refused. */
export function parseShell(source: string, vars: Record<string, string | undefined>): Command[] {
  const commands: Command[] = []
  let words: string[] = []
  let word: string | null = null
  let redirect = false
  let stdout: string | undefined
  const endWord = () => {
    if (word === null) return
    if (redirect) (stdout = word), (redirect = false)
    else words.push(word)
    word = null
  }
  const endCommand = () => {
    endWord()
    if (words.length > 0) {
      const env: Record<string, string> = {}
      while (words.length > 0 && /^[A-Za-z_][A-Za-z0-9_]*=/.test(words[0]!)) {
        const [name, ...value] = words.shift()!.split('=')
        env[name!] = value.join('=')
      }
      const text = [...Object.entries(env).map(([k, v]) => `${k}=${v}`), ...words, ...(stdout !== undefined ? ['>', stdout] : [])].join(' ')
      commands.push({ env, argv: words, ...(stdout !== undefined ? { stdout } : {}), text })
    }
    words = []
    stdout = undefined
  }
  const expand = (i: number): [string, number] => {
    const braced = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}/.exec(source.slice(i)) ?? /^\$([A-Za-z_][A-Za-z0-9_]*)/.exec(source.slice(i))
    if (!braced) return ['$', i + 1]
    return [vars[braced[1]!] ?? '', i + braced[0].length]
  }
  for (let i = 0; i < source.length; ) {
    const c = source[i]!
    if (c === '\\' && source[i + 1] === '\n') i += 2
    else if (c === "'") {
      const end = source.indexOf("'", i + 1)
      if (end < 0) throw new Error('unterminated single quote')
      word = (word ?? '') + source.slice(i + 1, end)
      i = end + 1
    } else if (c === '"') {
      word ??= ''
      i++
      while (i < source.length && source[i] !== '"') {
        if (source[i] === '\\' && '"\\$`'.includes(source[i + 1]!)) (word += source[i + 1]), (i += 2)
        else if (source[i] === '$') {
          const [value, next] = expand(i)
          ;(word += value), (i = next)
        } else word += source[i++]
      }
      if (i >= source.length) throw new Error('unterminated double quote')
      i++
    } else if (c === '$') {
      const [value, next] = expand(i)
      word = (word ?? '') + value
      i = next
    } else if (c === '#' && word === null) {
      while (i < source.length && source[i] !== '\n') i++
    } else if (c === '\n' || c === ';') endCommand(), i++
    else if (c === '&' && source[i + 1] === '&') endCommand(), (i += 2)
    else if (c === '|' || c === '<' || c === '`' || c === '&') throw new Error(`"${c}" is not supported in a docs sh block`)
    else if (c === '>') endWord(), (redirect = true), i++
    else if (c === ' ' || c === '\t') endWord(), i++
    else (word = (word ?? '') + c), i++
  }
  endCommand()
  return commands
}

/** Why an npm command is not run, or undefined when it is not one of the skipped kinds. */
function npmSkip(argv: string[]): string | undefined {
  if (argv[0] !== 'npm') return undefined
  const sub = argv[1]
  if (sub === 'ci' || sub === 'install' || sub === 'i') return 'installs packages'
  if (sub === 'test' || sub === 'run') return "what CI's .ci/run runs"
  return undefined
}

const CLI_COMMANDS = readdirSync(join(REPO, 'src/cli/commands')).map((f) => f.replace(/\.ts$/, ''))

// ─── YAML (structure only; no dependency) ────────────────────────────────────

/** Check indentation and keys, and return the `run:` commands. */
export function checkYaml(source: string): { errors: string[]; runs: string[]; topKeys: string[] } {
  const errors: string[] = []
  const runs: string[] = []
  const topKeys: string[] = []
  const lines = source.split('\n')
  const stack: number[] = [0]
  let scalarIndent: number | null = null // inside a `|` or `>` block scalar
  let scalarOwner: number | null = null
  let pendingRun: string[] | null = null
  let opened = false // the previous line opened a nested block (ends with ':' or is '- key:')
  lines.forEach((raw, index) => {
    const where = `yaml line ${index + 1}`
    if (/^\s*\t/.test(raw)) errors.push(`${where}: tab in indentation`)
    if (!raw.trim() || /^\s*#/.test(raw)) return
    const indent = raw.length - raw.trimStart().length
    if (scalarOwner !== null) {
      if (indent > scalarOwner) {
        scalarIndent ??= indent
        pendingRun?.push(raw.slice(scalarIndent))
        return
      }
      if (pendingRun) runs.push(pendingRun.join('\n'))
      scalarOwner = scalarIndent = null
      pendingRun = null
    }
    let text = raw.trim()
    if (opened) {
      if (indent <= stack[stack.length - 1]! && !(text.startsWith('- ') && indent === stack[stack.length - 1]!))
        errors.push(`${where}: expected a nested block after the previous line`)
      else if (indent > stack[stack.length - 1]!) stack.push(indent)
    } else if (indent > stack[stack.length - 1]!) errors.push(`${where}: unexpected indentation`)
    while (indent < stack[stack.length - 1]!) stack.pop()
    if (indent !== stack[stack.length - 1]!) errors.push(`${where}: indentation matches no enclosing block`)
    let itemIndent = indent
    while (text.startsWith('- ')) {
      text = text.slice(2).trimStart()
      itemIndent += 2
    }
    opened = false
    const pair = /^("[^"]*"|'[^']*'|[^\s:#][^:#]*?):(?:\s+(.*))?$/.exec(text)
    if (!pair) {
      if (text === '-') opened = true
      else if (indent === 0) errors.push(`${where}: a top-level line must be "key: value"`)
      return
    }
    const [, key, value = ''] = pair
    if (indent === 0) topKeys.push(key!)
    if (itemIndent > indent) stack.push(itemIndent) // `- key: v` opens the item's mapping
    let depth = 0
    for (const ch of value) {
      if (ch === '[' || ch === '{') depth++
      if (ch === ']' || ch === '}') depth--
      if (depth < 0) break
    }
    if (depth !== 0) errors.push(`${where}: unbalanced brackets in "${value}"`)
    if (value === '' ) opened = true
    else if (value === '|' || value === '>' || value === '|-' || value === '>-') {
      scalarOwner = itemIndent
      if (key === 'run') pendingRun = []
    } else if (key === 'run') runs.push(value)
  })
  if (pendingRun) runs.push((pendingRun as string[]).join('\n'))
  return { errors, runs, topKeys }
}

/** A `run:` command of a workflow must be npm ci, a real npm script, npx vitest or a real sceptic subcommand. */
function checkRunCommand(command: string, scripts: Set<string>): string[] {
  const errors: string[] = []
  for (const line of command.split(/\n|&&/).map((l) => l.trim()).filter(Boolean)) {
    const argv = line.split(/\s+/).filter((w) => !/^[A-Za-z_][A-Za-z0-9_]*=/.test(w))
    const [tool, sub, third] = argv
    if (tool === 'npm' && (sub === 'ci' || sub === 'install')) continue
    if (tool === 'npm' && sub === 'test') {
      if (!scripts.has('test')) errors.push(`"${line}": no "test" script`)
      continue
    }
    if (tool === 'npm' && sub === 'run') {
      if (!third || !scripts.has(third)) errors.push(`"${line}": no npm script "${third}" (known: ${[...scripts].join(', ')})`)
      continue
    }
    if (tool === 'npx' && sub === 'vitest') continue
    if (tool === 'npx' && sub === 'sceptic') {
      if (!third || !CLI_COMMANDS.includes(third)) errors.push(`"${line}": sceptic has no command "${third}" (it has ${CLI_COMMANDS.join(', ')})`)
      continue
    }
    errors.push(`"${line}": a workflow step must run npm ci, an npm script, npx vitest or npx sceptic`)
  }
  return errors
}

// ─── The scratch project ──────────────────────────────────────────────────────

let packageDir = ''
let cli = ''
/** Records files the README's `sceptic compare` line names, made once by the built CLI. */
const seed = useTempDir('sceptic-docs-seed-')
let fake: Awaited<ReturnType<typeof startFakeOpenAI>> | undefined
const scratchDir = useTempDirs('sceptic-docs-')
const dist = useDistSnapshot()

beforeAll(async () => {
  // A private copy of dist/ (others may rebuild it meanwhile), made a package: package.json
  // beside it, so `vitest-sceptic/...` resolves through the exports map as when installed.
  packageDir = dirname(dist())
  cpSync(join(REPO, 'package.json'), join(packageDir, 'package.json'))
  cli = join(dist(), 'cli/main.js')
  fake = await startFakeOpenAI()
  // The trained example models README's sample scores, as `npm run eval` writes them (a no-op when current).
  const models = await run(process.execPath, [join(REPO, 'scripts/make-trained-models.mjs')], { timeoutMs: NODE_TIMEOUT })
  if (models.code !== 0) throw new Error(`could not write the trained example models:\n${models.stderr}`)
  for (const [name, scorer] of [['base', 'always-first'], ['tuned', 'keyword-reader']]) {
    const args = ['evaluate', 'examples/data/tickets.jsonl', '--scorer', `examples/scorers/${scorer}.mjs`, '--debias', 'cyclic']
    const made = await run(process.execPath, [cli, ...args, '--records-out', join(seed, `${name}.records.jsonl`)], { timeoutMs: NODE_TIMEOUT })
    if (made.code !== 0) throw new Error(`could not make the docs' ${name}.records.jsonl:\n${made.stderr}`)
  }
}, 120_000)

afterAll(async () => {
  await fake?.close()
})

function scratchProject(): string {
  const dir = scratchDir()
  const link = (target: string, path: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true })
    symlinkSync(target, join(dir, path), 'dir')
  }
  link(packageDir, 'node_modules/vitest-sceptic')
  link(join(REPO, 'node_modules/vitest'), 'node_modules/vitest')
  // The AI SDK, for the decision-model pages (`ai/test`'s mock decision model runs offline).
  link(join(REPO, 'node_modules/ai'), 'node_modules/ai')
  link(join(REPO, 'node_modules/@ai-sdk'), 'node_modules/@ai-sdk')
  // Babel's presets, for the Jest page's TypeScript transform (Jest itself runs from the repository).
  link(join(REPO, 'node_modules/@babel'), 'node_modules/@babel')
  link(join(REPO, 'examples'), 'examples')
  for (const path of ['models/tiny', 'models/my-export', 'models/qwen2.5-0.5b', 'out']) link(join(REPO, 'examples/models/tiny'), path)
  mkdirSync(join(dir, 'data'))
  for (const file of ['tickets.jsonl', 'judge.jsonl', 'pairs.jsonl']) cpSync(join(REPO, 'examples/data', file), join(dir, 'data', file))
  for (const copy of ['data/eval.jsonl', 'data/all.jsonl', 'data.jsonl']) cpSync(join(REPO, 'examples/data/tickets.jsonl'), join(dir, copy))
  for (const file of ['base.records.jsonl', 'tuned.records.jsonl']) cpSync(join(seed, file), join(dir, file))
  cpSync(join(REPO, 'examples/scorers'), join(dir, 'scorers'), { recursive: true })
  writeFileSync(join(dir, 'my-scorer.mjs'), "// The keyword reader, as the docs' my-scorer.mjs.\nexport { default } from './scorers/keyword-reader.mjs'\n")
  mkdirSync(join(dir, 'evals'))
  writeFileSync(join(dir, 'evals/my-scorer.ts'), "import keywordReader from '../scorers/keyword-reader.mjs'\n\nexport const myScoreFn = keywordReader\n")
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'docs-scratch', private: true, type: 'module' }, null, 2))
  return dir
}

const DEFAULT_CONFIG = "import { defineConfig } from 'vitest/config'\nimport { sceptic } from 'vitest-sceptic/plugin'\n\nexport default defineConfig({ plugins: [sceptic()] })\n"
const VITEST_TIMEOUT = 150_000
const NODE_TIMEOUT = 90_000
/** A report's `model` line with the ONNX pool's size (`2 workers × 1 thread`) left out: it follows the cores. */
export const withoutPoolSize = (line: string): string => (line.startsWith('model ') ? line.replace(/\d+ workers? × \d+ threads?, /, '') : line)
const tail = (text: string, lines = 40) => text.trim().split('\n').slice(-lines).join('\n')

// ─── Running one page ──────────────────────────────────────────────────────────

interface PageOutcome {
  failures: string[]
  ran: number
  skipped: string[]
}

async function runPage(page: string): Promise<PageOutcome> {
  const blocks = extractBlocks(page, readFileSync(join(REPO, page), 'utf8'))
  const failures: string[] = []
  const skipped: string[] = []
  let ran = 0
  const dir = scratchProject()
  const env = { OPENAI_BASE_URL: fake!.baseURL, OPENAI_API_KEY: 'sk-docs-test-not-a-key' }
  const at = (b: Block) => `${page}:${b.line}`
  const scripts = new Set(Object.keys(JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).scripts))

  // Node blocks waiting to run (one process for consecutive ones).
  let nodeBatch: { block: Block; file: string }[] = []
  // The Vitest group: the config block in force and the eval files written since.
  let configWritten = false
  let group: { config?: Block; evals: { block: Block; file: string }[] } = { evals: [] }

  const flushNode = async () => {
    if (nodeBatch.length === 0) return
    const batch = nodeBatch
    nodeBatch = []
    const runner = join(dir, `.docs-run-${batch[0]!.block.line}.mjs`)
    const list = JSON.stringify(batch.map(({ block, file }) => [block.line, './' + relative(dir, file)]))
    writeFileSync(
      runner,
      `for (const [line, file] of ${list}) {\n  process.stdout.write('::block ' + line + '\\n')\n  try { await import(file) } catch (error) { console.error('::failed ' + line); console.error(error); process.exit(1) }\n}\n`,
    )
    let result
    try {
      result = await run(process.execPath, [runner], { cwd: dir, env, timeoutMs: NODE_TIMEOUT })
    } catch (error) {
      failures.push(`${page}: node blocks at lines ${batch.map((b) => b.block.line).join(', ')}: ${(error as Error).message}`)
      return
    }
    ran += batch.length
    if (result.code !== 0) {
      const line = /::failed (\d+)/.exec(result.stderr)?.[1] ?? batch.map((b) => b.block.line).join('/')
      failures.push(`${page}:${line}: the block threw (exit ${result.code}):\n${tail(result.stdout + '\n' + result.stderr)}`)
    }
  }

  const ensureConfig = () => {
    if (!configWritten) writeFileSync(join(dir, 'vitest.config.ts'), DEFAULT_CONFIG)
    configWritten = true
  }

  const flushGroup = async () => {
    const { config, evals } = group
    group = { evals: [] }
    if (!config && evals.length === 0) return
    ensureConfig()
    const expected = config?.exit || Math.max(0, ...evals.map((e) => e.block.exit))
    const label = [config, ...evals.map((e) => e.block)].filter(Boolean).map((b) => b!.line).join(', ')
    const result = await vitest(['run', '--root', dir, ...evals.map((e) => e.file)], {}, VITEST_TIMEOUT)
    ran += (config ? 1 : 0) + evals.length
    if (result.code !== expected) failures.push(`${page} (blocks at lines ${label}): vitest run exited ${result.code}, expected ${expected}:\n${tail(result.output)}`)
    // An eval file marked exit=N must fail by its tests, not by a config or import error.
    else if (expected !== 0 && !config?.exit && !/Tests\s+\d+ failed/.test(result.output))
      failures.push(`${page} (blocks at lines ${label}): expected failing tests, but the run failed otherwise:\n${tail(result.output)}`)
  }

  const runShell = async (block: Block) => {
    let commands: Command[]
    try {
      commands = parseShell(block.body, { ...process.env, ...env })
    } catch (error) {
      failures.push(`${at(block)}: ${(error as Error).message}`)
      return
    }
    if (commands.some((c) => /^(npx )?vitest$/.test(c.argv.slice(0, c.argv[0] === 'npx' ? 2 : 1).join(' ')))) {
      ensureConfig()
      group = { evals: [] } // this block's vitest commands run the eval files written so far
    }
    let ranOne = false
    for (const command of commands) {
      const skip = npmSkip(command.argv)
      if (skip) {
        skipped.push(`${at(block)} \`${command.text}\`: ${skip}`)
        continue
      }
      const [tool, ...rest] = command.argv[0] === 'npx' ? command.argv.slice(1) : command.argv
      const commandEnv = { ...env, ...command.env }
      let code: number | null
      let output: string
      let stdout = ''
      try {
        if (tool === 'sceptic') {
          const r = await run(process.execPath, [cli, ...rest], { cwd: dir, env: commandEnv, timeoutMs: NODE_TIMEOUT })
          ;({ code, stdout } = r)
          output = r.stdout + r.stderr
        } else if (tool === 'vitest') {
          // `--merge-reports=DIR` reads DIR relative to the current directory: the scratch project's.
          const args = rest.map((a) => a.replace(/^--merge-reports=(?!\/)/, `--merge-reports=${dir}/`))
          const r = await vitest([...args, '--root', dir], command.env, VITEST_TIMEOUT)
          ;({ code, output } = r)
        } else if (tool === 'jest') {
          const r = await run(process.execPath, [join(REPO, 'node_modules/jest/bin/jest.js'), '--ci=false', ...rest], { cwd: dir, env: { ...commandEnv, NO_COLOR: '1' }, timeoutMs: VITEST_TIMEOUT })
          ;({ code, stdout } = r)
          output = r.stdout + r.stderr
          // A Jest run expected to fail must fail by its tests (and print the report), not by a config or import error.
          if (block.exit !== 0 && code === block.exit && !(/Tests:\s+\d+ failed/.test(output) && output.includes('SCEPTIC REPORT'))) {
            failures.push(`${at(block)}: \`${command.text}\` was expected to fail by its tests:\n${tail(output)}`)
            return
          }
        } else if (tool === 'node') {
          const r = await run(process.execPath, rest, { cwd: dir, env: commandEnv, timeoutMs: NODE_TIMEOUT })
          ;({ code, stdout } = r)
          output = r.stdout + r.stderr
        } else if (tool && ['ln', 'mkdir', 'cat', 'ls', 'cp', 'rm', 'echo', 'printf'].includes(tool)) {
          const r = await run(tool, rest, { cwd: dir, env: commandEnv, timeoutMs: NODE_TIMEOUT })
          ;({ code, stdout } = r)
          output = r.stdout + r.stderr
        } else {
          failures.push(`${at(block)}: cannot run \`${command.text}\`: mark the block no-run(reason) if it cannot run here`)
          return
        }
      } catch (error) {
        failures.push(`${at(block)}: \`${command.text}\`: ${(error as Error).message}`)
        return
      }
      ranOne = true
      if (command.stdout) writeFileSync(join(dir, command.stdout), stdout)
      if (code !== block.exit) {
        failures.push(`${at(block)}: \`${command.text}\` exited ${code}, expected ${block.exit}:\n${tail(output)}`)
        return
      }
    }
    if (ranOne) ran++
  }

  const checkJson = (block: Block) => {
    const texts = block.kind === 'jsonl' ? block.body.split('\n').filter((l) => l.trim()) : [block.body]
    for (const text of texts) {
      let value: unknown
      try {
        // A block starting with `"key":` is an object member (a package.json excerpt).
        value = JSON.parse(text.trim().startsWith('"') ? `{${text}}` : text)
      } catch (error) {
        failures.push(`${at(block)}: not JSON: ${(error as Error).message}`)
        return
      }
      if (value && typeof value === 'object' && 'state' in value && 'criterion' in value) {
        try {
          validateDecision(value, { file: page, line: block.line })
        } catch (error) {
          failures.push(`${at(block)}: not a valid decision: ${(error as Error).message}`)
        }
      }
      const found = (value as { scripts?: Record<string, string> } | null)?.scripts
      if (found && typeof found === 'object') for (const name of Object.keys(found)) scripts.add(name)
    }
    ran++
  }

  const checkWorkflow = (block: Block) => {
    const { errors, runs, topKeys } = checkYaml(block.body)
    for (const error of errors) failures.push(`${at(block)}: ${error}`)
    if (/^# \.github\/workflows\//.test(block.body))
      for (const key of ['name', 'on', 'jobs']) if (!topKeys.includes(key)) failures.push(`${at(block)}: a workflow needs a top-level "${key}"`)
    for (const command of runs) for (const error of checkRunCommand(command, scripts)) failures.push(`${at(block)}: ${error}`)
    ran++
  }

  // A `text` block opening with `$ sceptic …` is a sample of the CLI's output: run it from the
  // repository root (its paths are the repo's) and the block must be exactly what it prints, stderr
  // first, but for the ONNX pool's size, which is the machine's core count.
  const checkSample = async (block: Block) => {
    const [first, ...documented] = block.body.trimEnd().split('\n')
    const [command] = parseShell(first!.slice(2), {})
    const args = command!.argv[0] === 'npx' ? command!.argv.slice(2) : command!.argv.slice(1)
    const r = await run(process.execPath, [cli, ...args], { cwd: REPO, env: { ...env, SCEPTIC_CACHE_DIR: join(dir, '.sample-cache') }, timeoutMs: NODE_TIMEOUT })
    const expected = documented.map(withoutPoolSize)
    const printed = (r.stderr + r.stdout).trimEnd().split('\n').map(withoutPoolSize)
    const line = printed.findIndex((text, i) => text !== expected[i])
    if (r.code !== block.exit) failures.push(`${at(block)}: \`${first!.slice(2)}\` exited ${r.code}, not ${block.exit}:\n${tail(r.stdout + r.stderr)}`)
    else if (line !== -1 || printed.length !== expected.length)
      failures.push(`${at(block)}: the sample is not what \`${first!.slice(2)}\` prints; line ${(line === -1 ? printed.length : line) + 2} of the block:\n  documented: ${expected[line === -1 ? printed.length : line] ?? '(nothing)'}\n  printed:    ${printed[line] ?? '(nothing)'}`)
    ran++
  }

  for (const block of blocks) {
    for (const error of block.errors) failures.push(`${at(block)}: ${error}`)
    if (block.errors.length === 0 && block.kind === 'text' && /^\$ (npx )?sceptic /.test(block.body)) await checkSample(block)
    if (block.errors.length > 0 || block.kind === 'text') continue
    if (block.noRun !== undefined) {
      skipped.push(`${at(block)} (${block.lang}): no-run(${block.noRun})`)
      continue
    }
    if (block.kind === 'json' || block.kind === 'jsonl') checkJson(block)
    else if (block.kind === 'yaml') checkWorkflow(block)
    else if (block.kind === 'sh') {
      await flushNode()
      await flushGroup()
      await runShell(block)
    } else if (block.kind === 'code') {
      const name = /^\/\/\s*([\w./-]+\.(?:ts|mts|js|mjs|cjs))\s*$/.exec(block.body.split('\n')[0]!)?.[1]
      const isConfig = name ? /(^|\/)vitest\.config\.[mc]?[jt]s$/.test(name) : /\bdefineConfig\(/.test(block.body)
      // A Jest eval file (it imports vitest-sceptic/jest) is written and run by the page's `npx jest`.
      const isJest = /['"]vitest-sceptic\/jest['"]/.test(block.body)
      const isEval = !isConfig && !isJest && /\bdescribeDecisions\(/.test(block.body.replace(/(^|\s)\/\/.*$/gm, ''))
      if (isConfig) {
        await flushNode()
        await flushGroup()
        writeFileSync(join(dir, 'vitest.config.ts'), block.body + '\n')
        configWritten = true
        group = { config: block, evals: [] }
      } else if (isEval) {
        const file = join(dir, name ?? `evals/doc-${block.line}.eval.ts`)
        mkdirSync(dirname(file), { recursive: true })
        writeFileSync(file, block.body + '\n')
        group.evals.push({ block, file })
      } else {
        // A named module is written where it says (and loaded, to check it does); others run as scripts.
        const output = ts.transpileModule(block.body, {
          compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022, verbatimModuleSyntax: false },
          reportDiagnostics: true,
        })
        if (output.diagnostics?.length) {
          failures.push(`${at(block)}: ${ts.flattenDiagnosticMessageText(output.diagnostics[0]!.messageText, '\n')}`)
          continue
        }
        if (name) {
          const file = join(dir, name)
          mkdirSync(dirname(file), { recursive: true })
          writeFileSync(file, block.body + '\n')
          if (/\.m?js$/.test(name)) nodeBatch.push({ block, file })
          else ran++
        } else {
          const file = join(dir, `.docs-block-${block.line}.mjs`)
          writeFileSync(file, output.outputText)
          nodeBatch.push({ block, file })
        }
      }
    }
  }
  await flushNode()
  await flushGroup()
  return { failures, ran, skipped }
}

// ─── The tests ─────────────────────────────────────────────────────────────────

describe('docs code blocks', () => {
  const skippedAll: string[] = []
  const counts: string[] = []
  afterAll(() => {
    // What ran, and what did not with its reason, for whoever reads the log.
    console.log(`docs blocks:\n  ${counts.join('\n  ')}\nnot run:\n  ${skippedAll.join('\n  ')}`)
  })

  for (const page of pages()) {
    // A page whose code imports the AI SDK cannot run where npm did not install it (Node 20).
    const needsAiSdk = /from ['"](ai|ai\/test|@ai-sdk\/[\w-]+|vitest-sceptic\/ai)['"]/.test(readFileSync(join(REPO, page), 'utf8'))
    if (needsAiSdk && !AI_SDK) skippedAll.push(`${page}: the whole page: ${NO_AI_SDK}`)
    test.skipIf(needsAiSdk && !AI_SDK)(`${page}: every block runs`, async () => {
      const { failures, ran, skipped } = await runPage(page)
      skippedAll.push(...skipped)
      counts.push(`${page}: ${ran} run, ${skipped.length} not run`)
      expect(failures, failures.join('\n\n')).toEqual([])
    }, 600_000)
  }
})

describe('the docs test itself', () => {
  test('samples: only the model line\'s pool size is the machine\'s; every other figure is compared', () => {
    const line = 'model              onnx examples/models/biased (2 workers × 1 thread, batch ≤ 4, shared prefixes batched)'
    expect(withoutPoolSize(line)).toBe(withoutPoolSize(line.replace('2 workers × 1 thread', '1 worker × 4 threads')))
    expect(withoutPoolSize(line)).not.toBe(withoutPoolSize(line.replace('batch ≤ 4', 'batch ≤ 8')))
    const verdict = 'verdict            answers by position: order consistency 59%, 2 workers × 1 thread, '
    expect(withoutPoolSize(verdict)).toBe(verdict)
  })

  test('info strings: no-run needs a reason, a bare fence is refused, exit=N is read', () => {
    const [bare, noReason, marked, failing] = extractBlocks('x.md', '```\na\n```\n```sh no-run\nb\n```\n```ts no-run(needs a key)\nc\n```\n```sh exit=2\nd\n```\n')
    expect(bare!.errors[0]).toMatch(/no info string/)
    expect(noReason!.errors[0]).toMatch(/without a reason/)
    expect(marked).toMatchObject({ lang: 'ts', noRun: 'needs a key', errors: [] })
    expect(failing).toMatchObject({ exit: 2, errors: [] })
  })

  test('shell subset: continuations, quotes, comments, &&, env prefixes, redirects and $VAR', () => {
    const commands = parseShell("A=1 npx sceptic x \\\n  --y 'a b' # note\nnpm ci && npm run eval\nnode -e 'one\ntwo' > out.txt \"$HOME\"", { HOME: '/h' })
    expect(commands.map((c) => [c.env, c.argv, c.stdout])).toEqual([
      [{ A: '1' }, ['npx', 'sceptic', 'x', '--y', 'a b'], undefined],
      [{}, ['npm', 'ci'], undefined],
      [{}, ['npm', 'run', 'eval'], undefined],
      [{}, ['node', '-e', 'one\ntwo', '/h'], 'out.txt'],
    ])
    expect(() => parseShell('cat x | grep y', {})).toThrow(/not supported/)
  })

  test('yaml check: run commands are found, bad indentation and unknown commands are reported', () => {
    const good = checkYaml('on: [push]\njobs:\n  a:\n    steps:\n      - run: npm ci\n        env:\n          X: 1\n      - run: |\n          npx vitest run\n          npx sceptic report a.json -o a.html\n')
    expect(good).toEqual({ errors: [], runs: ['npm ci', 'npx vitest run\nnpx sceptic report a.json -o a.html'], topKeys: ['on', 'jobs'] })
    expect(checkYaml('jobs:\n  a:\n     b: 1\n   c: 2\n').errors.length).toBeGreaterThan(0)
    expect(checkRunCommand('npx sceptic frobnicate', new Set())).toHaveLength(1)
    expect(checkRunCommand('npm run nope', new Set(['eval']))).toHaveLength(1)
  })
})
