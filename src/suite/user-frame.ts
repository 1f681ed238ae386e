/**
 * Errors at the user's line, under Vitest and Jest alike: a failing check, a scoring error or a
 * bad option must point at the user's `describeDecisions(...)` call, never inside this package
 * (whose dist/ and source-mapped src/ frames name files a user cannot open or did not write). The
 * call site is captured when the suite is declared; an error leaving one of the suite's tests or
 * hooks loses the package's frames and, when no frame of the user's own code is left, gets the
 * call site in their place. Jest and Vitest show the code frame of the first such frame.
 */
import { basename, dirname, join, sep } from 'node:path'
import { fileURLToPath } from 'node:url'

const FRAME = /^\s+at /

/** This module's own file, from its stack frame (the CommonJS build has no `import.meta.url`). */
function ownFile(): string | undefined {
  const frame = new Error().stack?.split('\n').find((line) => FRAME.test(line))
  const location = frame && /(?:\(|at )([^()]+?):\d+:\d+\)?$/.exec(frame)?.[1]
  return location?.startsWith('file://') ? fileURLToPath(location) : location
}

/**
 * The package's own code: `<root>/dist/` (what users run) and `<root>/src/` (where source maps
 * point, and what the repository's own tests run), found from this module's own path.
 */
function packageDirs(file: string | undefined = ownFile()): string[] {
  if (file === undefined) return []
  let dir = dirname(file)
  while (basename(dir) !== 'dist' && basename(dir) !== 'src') {
    const parent = dirname(dir)
    if (parent === dir) return []
    dir = parent
  }
  const root = dirname(dir)
  return [join(root, 'dist') + sep, join(root, 'src') + sep]
}

const PACKAGE_DIRS = packageDirs()
/** Frames that are nobody's code: Node's internals, native ones and the test runner's (Vitest's or Jest's). */
const RUNTIME = /\(node:|^\s+at node:|[\\/]node_modules[\\/](?:vitest|@vitest|tinypool|chai|tinyspy|jest-[\w-]+|@jest|expect|babel-jest)[\\/]|^\s+at (?:async )?Promise|\(<anonymous>\)$/

/** Whether a stack line is a frame of this package's code. */
export function inPackage(frame: string, dirs: readonly string[] = PACKAGE_DIRS): boolean {
  return dirs.some((dir) => frame.includes(dir) || frame.includes(`file://${dir}`))
}

/** The first stack frame outside this package and the runtime: the user's call of the function calling this. */
export function callSite(stack: string | undefined = new Error().stack, dirs: readonly string[] = PACKAGE_DIRS): string | undefined {
  return stack?.split('\n').find((line) => FRAME.test(line) && !inPackage(line, dirs) && !RUNTIME.test(line))
}

/**
 * `error` with the package's frames removed from its stack and, when no frame of user code is
 * left, `site` (the user's `describeDecisions` call) first; the message is kept as is.
 * Anything that is not an error with a string stack is returned untouched.
 */
export function atCallSite<T>(error: T, site: string | undefined, dirs: readonly string[] = PACKAGE_DIRS): T {
  // The causes Vitest prints under the error ("Caused by:") lose the package's frames too.
  let cause = (error as { cause?: unknown } | null)?.cause
  for (let depth = 0; cause instanceof Object && cause !== error && depth < 8; depth++) {
    rewrite(cause, undefined, dirs)
    cause = (cause as { cause?: unknown }).cause
  }
  return rewrite(error, site, dirs)
}

function rewrite<T>(error: T, site: string | undefined, dirs: readonly string[]): T {
  const stack = (error as { stack?: unknown } | null)?.stack
  if (typeof stack !== 'string' || !(error instanceof Object)) return error
  const lines = stack.split('\n')
  const first = lines.findIndex((line) => FRAME.test(line))
  if (first === -1) return error
  const frames = lines.slice(first).filter((line) => !inPackage(line, dirs))
  const userFrame = frames.some((line) => FRAME.test(line) && !RUNTIME.test(line))
  const rewritten = [...lines.slice(0, first), ...(userFrame || site === undefined ? [] : [site]), ...frames].join('\n')
  try {
    Object.defineProperty(error, 'stack', { value: rewritten, writable: true, configurable: true, enumerable: false })
  } catch {
    // A frozen error keeps its stack.
  }
  return error
}

/** Run `fn` now; an error it throws (or rejects with) points at `site` rather than inside the package. */
export async function atUserLine<R>(site: string | undefined, fn: () => R | Promise<R>): Promise<R> {
  try {
    return await fn()
  } catch (error) {
    throw atCallSite(error, site)
  }
}
