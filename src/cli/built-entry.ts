/** Where a built entry of dist/ is, from wherever the CLI's code was bundled. */
import { existsSync } from 'node:fs'

/**
 * The URL of a built entry of dist/ (`onnx/index.js`), found from this module's place: dist/cli/
 * when bundled into the CLI's main file, dist/ when bundled into a shared chunk (commands are
 * loaded lazily, so tsup splits them into chunks there). Not found: the first place, whose
 * import error then names it.
 */
export function builtEntry(path: string): string {
  const places = [`../${path}`, `./${path}`].map((relative) => new URL(relative, import.meta.url))
  return (places.find((url) => existsSync(url)) ?? places[0]!).href
}
