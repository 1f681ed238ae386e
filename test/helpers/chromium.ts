/** A real headless Chromium for the HTML report's tests: found on PATH, run with a hard time limit. */
import { spawn } from 'node:child_process'
import { accessSync, constants } from 'node:fs'
import { delimiter, join } from 'node:path'

/** The first Chromium on PATH (or `$CHROMIUM`), or null. */
function findChromium(): string | null {
  const candidates = process.env.CHROMIUM ? [process.env.CHROMIUM] : []
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean))
    for (const name of ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable']) candidates.push(join(dir, name))
  for (const path of candidates) {
    try {
      accessSync(path, constants.X_OK)
      return path
    } catch {
      // not here
    }
  }
  return null
}

export const CHROMIUM = findChromium()
export const TIMEOUT_MS = 60_000

/** Run Chromium headless with a hard time limit; the whole process group is killed on timeout. */
export function chromium(args: readonly string[], profile: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      CHROMIUM!,
      ['--headless', '--disable-gpu', '--no-sandbox', '--no-first-run', '--hide-scrollbars', `--user-data-dir=${profile}`, ...args],
      { stdio: ['ignore', 'pipe', 'pipe'], detached: true },
    )
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk) => (stdout += chunk))
    child.stderr.on('data', (chunk) => (stderr += chunk))
    const timer = setTimeout(() => {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        child.kill('SIGKILL')
      }
      reject(new Error(`chromium did not finish in ${TIMEOUT_MS} ms\n${stderr.slice(-2000)}`))
    }, TIMEOUT_MS)
    child.on('error', (error) => {
      clearTimeout(timer)
      reject(error)
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ code, stdout, stderr })
    })
  })
}

/** The visible text of a page from Chromium's --dump-dom: tags dropped, entities decoded, spaces collapsed. */
export function pageText(dom: string): string {
  return dom
    .replace(/<(script|style)[\s\S]*?<\/\1>/g, ' ')
    .replace(/<[^>]+>/g, ' ')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&')
    .replace(/\s+/g, ' ')
}
