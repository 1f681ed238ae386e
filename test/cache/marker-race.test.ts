// Two processes claim one new cache folder at once: the one that looks while the other renames
// its marker into place must see a cache, not "a file the cache did not write".
import * as fs from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { useTempDir } from '../helpers/temp.ts'

// The other process, simulated: it finishes writing its marker just before this one lists the folder.
const beforeList = vi.hoisted(() => ({ hook: undefined as ((path: string) => void) | undefined }))
vi.mock('node:fs', async (original) => {
  const real = await original<typeof import('node:fs')>()
  const readdirSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    beforeList.hook?.(String(path))
    return (real.readdirSync as (...args: unknown[]) => unknown)(path, ...rest)
  }) as typeof real.readdirSync
  return { ...real, default: { ...real, readdirSync }, readdirSync }
})

const { claimCacheDir, MARKER, MARKER_SIGNATURE, hasMarker } = await import('../../src/cache/marker.ts')

describe('claiming a cache folder another process is claiming', () => {
  const root = useTempDir('sceptic-marker-race-')

  it('a marker that appears between the two looks makes the folder a cache', () => {
    const dir = join(root, 'cache')
    fs.mkdirSync(dir)
    beforeList.hook = (path) => {
      if (path !== dir || fs.existsSync(join(dir, MARKER))) return
      fs.writeFileSync(join(dir, MARKER), `${MARKER_SIGNATURE}\n# written by the other process\n`)
    }
    try {
      expect(() => claimCacheDir(dir)).not.toThrow()
      expect(hasMarker(dir)).toBe(true)
    } finally {
      beforeList.hook = undefined
    }
  })

  it('a foreign file is still refused', () => {
    const dir = join(root, 'user')
    fs.mkdirSync(dir)
    fs.writeFileSync(join(dir, 'notes.txt'), 'mine')
    expect(() => claimCacheDir(dir)).toThrow(/holds notes\.txt, which the cache did not write/)
  })
})
