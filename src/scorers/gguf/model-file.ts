/**
 * Checks made before anything loads: the model path is a regular file that starts like a
 * GGUF file, and node-llama-cpp is installed; and what the cache key needs of
 * node-llama-cpp (its version, the llama.cpp release it carries), read from its files.
 */
import { closeSync, existsSync, openSync, readFileSync, readSync, statSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError } from '../../core/support/errors.ts'

/** The node-llama-cpp release the scorer is built and tested against (an optional peer, pinned exactly). */
export const NODE_LLAMA_CPP_VERSION = '3.22.1'

/** The npm package holding node-llama-cpp's prebuilt CPU binary for this machine, e.g. `@node-llama-cpp/linux-x64`. */
export function binaryPackage(platform: string = process.platform, arch: string = process.arch): string {
  const os = platform === 'darwin' ? 'mac' : platform === 'win32' ? 'win' : platform
  const cpu = arch === 'arm' ? 'armv7l' : arch
  return `@node-llama-cpp/${os}-${cpu}${os === 'mac' && cpu === 'arm64' ? '-metal' : ''}`
}

/** The install command for node-llama-cpp and its CPU binary, both pinned. */
export const LLAMA_INSTALL = `npm i -E node-llama-cpp@${NODE_LLAMA_CPP_VERSION} ${binaryPackage()}@${NODE_LLAMA_CPP_VERSION}`

/** The one line a user without node-llama-cpp reads. */
export const LLAMA_MISSING = `ggufScorer needs node-llama-cpp: ${LLAMA_INSTALL} (the second package is its prebuilt CPU binary; nothing is downloaded or built)`

/** Whether a model path names a GGUF file (a file other than `*.onnx`, or a name ending in `.gguf`) rather than an ONNX model directory. */
export function isGgufModel(path: string): boolean {
  if (/\.gguf$/i.test(path)) return true
  // An ONNX graph's own file is the ONNX mistake "a file, not the model's directory", said by the ONNX checks.
  if (/\.onnx$/i.test(path)) return false
  try {
    return statSync(path).isFile()
  } catch {
    return false
  }
}

/** A {@link ConfigError} unless `path` is a regular file starting with the GGUF magic. */
export function checkGgufFile(path: string): void {
  let size: number
  try {
    const stat = statSync(path)
    if (stat.isDirectory()) throw new ConfigError(`${path}: a directory, not a GGUF file (for an ONNX model directory use the ONNX scorer)`)
    if (!stat.isFile()) throw new ConfigError(`${path}: not a regular file`)
    size = stat.size
  } catch (error) {
    if (error instanceof ConfigError) throw error
    throw new ConfigError(`${path}: cannot read the model (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`)
  }
  const head = Buffer.alloc(8)
  const fd = openSync(path, 'r')
  try {
    readSync(fd, head, 0, 8, 0)
  } finally {
    closeSync(fd)
  }
  if (size < 24 || head.toString('latin1', 0, 4) !== 'GGUF') throw new ConfigError(`${path}: not a GGUF file (it does not start with "GGUF")`)
}

/** node-llama-cpp's folder, found the way Node resolves a package from here (its `exports` hide package.json from `require.resolve`). */
export function nodeLlamaCppDir(): string | undefined {
  let dir = dirname(fileURLToPath(import.meta.url))
  for (;;) {
    const candidate = join(dir, 'node_modules', 'node-llama-cpp')
    if (existsSync(join(candidate, 'package.json'))) return candidate
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
}

/** A {@link ConfigError} with {@link LLAMA_MISSING} when node-llama-cpp is not installed. */
export function assertLlamaInstalled(): string {
  const dir = nodeLlamaCppDir()
  if (!dir) throw new ConfigError(LLAMA_MISSING)
  return dir
}

/** node-llama-cpp's version and the llama.cpp release it binds (for the cache key and the manifest). */
export function llamaBuild(dir: string): { nodeLlamaCpp: string; llamaCpp: string } {
  const read = (file: string): Record<string, unknown> => {
    try {
      return JSON.parse(readFileSync(join(dir, file), 'utf8')) as Record<string, unknown>
    } catch {
      return {}
    }
  }
  return { nodeLlamaCpp: String(read('package.json').version ?? 'unknown'), llamaCpp: String(read('llama/llama.cpp.info.json').tag ?? 'unknown') }
}
