/**
 * User strings on a terminal: every control character written as a visible escape, since
 * an ESC sequence, OSC-8 link, bare CR or forged LF in a key or server message could make a failing report look green.
 */

/**
 * C0 controls (U+0000–U+001F, tab and newline included), DEL, C1 controls
 * (U+0080–U+009F, among them the one-byte CSI and OSC), and the bidirectional
 * overrides and isolates (U+202A–U+202E, U+2066–U+2069) that reorder what is shown.
 */
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

/** `text` with every control character shown as `\xNN` (or `\uNNNN`): `"a\u001b[31mb"` → `"a\x1b[31mb"`. */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (c) => {
    const code = c.charCodeAt(0)
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`
  })
}
