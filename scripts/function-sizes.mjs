// Lengths of every function and file in src/, read with the TypeScript compiler API.
// `node scripts/function-sizes.mjs [N]` prints the N longest functions (default 20) and
// the files over 400 lines; test/structure/sizes.test.ts holds src/ to those limits.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import ts from 'typescript'

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..')

/** Every .ts file below `dir`. */
function tsFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return tsFiles(path)
    return entry.name.endsWith('.ts') ? [path] : []
  })
}

/** A function's name as a reader would search for it: its own, its variable's or property's, else `<anonymous>`. */
function ownName(node) {
  if (node.name && ts.isIdentifier(node.name)) return node.name.text
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  const parent = node.parent
  if (parent && (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && ts.isIdentifier(parent.name))
    return parent.name.text
  return '<anonymous>'
}

/**
 * `{ name, line, lines }` for each function, method, accessor and arrow in `source`, nested
 * ones included; a nested anonymous function is named after its enclosing one (`outer/<anonymous>`).
 * @param {string} source
 * @returns {{ name: string, line: number, lines: number }[]}
 */
export function functionSizes(source, fileName = 'file.ts') {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true)
  /** @type {{ name: string, line: number, lines: number }[]} */
  const out = []
  const visit = (node, enclosing) => {
    let inner = enclosing
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const own = ownName(node)
      inner = own === '<anonymous>' && enclosing ? `${enclosing}/${own}` : own
      const start = file.getLineAndCharacterOfPosition(node.getStart(file)).line
      const end = file.getLineAndCharacterOfPosition(node.getEnd()).line
      out.push({ name: inner, line: start + 1, lines: end - start + 1 })
    }
    ts.forEachChild(node, (child) => visit(child, inner))
  }
  visit(file, undefined)
  return out
}

/**
 * Every function of every file below `dir` (`src/` by default), longest first; `file` is relative to the repository.
 * @returns {{ files: { file: string, lines: number }[], functions: { file: string, name: string, line: number, lines: number }[] }}
 */
export function sourceSizes(dir = join(ROOT, 'src')) {
  const files = tsFiles(dir).map((path) => {
    const text = readFileSync(path, 'utf8')
    return { file: relative(ROOT, path), lines: text.split('\n').length - (text.endsWith('\n') ? 1 : 0), text }
  })
  const functions = files.flatMap(({ file, text }) => functionSizes(text, file).map((f) => ({ file, ...f })))
  return {
    files: files.map(({ file, lines }) => ({ file, lines })).sort((a, b) => b.lines - a.lines),
    functions: functions.sort((a, b) => b.lines - a.lines),
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const most = Number(process.argv[2] ?? 20)
  const { files, functions } = sourceSizes()
  for (const f of functions.slice(0, most)) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`)
  const large = files.filter((f) => f.lines > 400)
  console.log(`files over 400 lines: ${large.length === 0 ? 'none' : large.map((f) => `${f.file} (${f.lines})`).join(', ')}`)
}
