/**
 * Secret scrubbing for every message an HTTP scorer produces. Scrub first, cut
 * second: cutting first could leave a prefix of a key that no longer matches it. A
 * server that echoes only part of a key (some proxies shorten it) is covered too:
 * after the cut, any run of {@link MIN_FRAGMENT} or more characters that also occurs
 * in a secret is redacted (a masked echo such as `sk-ab...xyz9` keeps no part of the key).
 * Credentials written into any URL (`https://user:pass@host`) are stripped whatever they are.
 */

/** What replaces a secret. */
export const REDACTED = '[redacted]'

/** Shortest piece of a secret that is redacted on its own, in characters. */
export const MIN_FRAGMENT = 4

/** Shortest secret scrubbed at all: a shorter one would blank out ordinary words. */
export const MIN_SECRET = 6

/** The user:password part of any URL in a text. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/)[^\s/@"'<>]+@/gi

/** `Bearer <token>` anywhere (any case), whatever the token. */
const BEARER = /\bBearer\s+[^\s"',;]+/gi

/** Texts longer than this are cut before fragments are searched (fragment search is quadratic). */
const FRAGMENT_SCAN_LIMIT = 4096

/** Scrubs one scorer's secrets out of texts. */
export interface Scrubber {
  /** The text without any secret, `Bearer <token>` or secret fragment. */
  scrub(text: string): string
  /** The first `max` characters of the scrubbed text, `…` when cut; no fragment survives at the cut. */
  clip(text: string, max: number): string
}

/**
 * A {@link Scrubber} for these secrets (missing ones and ones shorter than
 * {@link MIN_SECRET} characters are ignored: they would blank out ordinary words).
 */
export function secretScrubber(secrets: readonly (string | undefined)[]): Scrubber {
  const words = secrets.filter((secret): secret is string => typeof secret === 'string' && secret.length >= MIN_SECRET).sort((a, b) => b.length - a.length)
  const whole = (text: string): string => {
    let out = text
    for (const secret of words) out = out.split(secret).join(REDACTED)
    return out.replace(BEARER, `Bearer ${REDACTED}`).replace(URL_CREDENTIALS, `$1${REDACTED}@`)
  }
  const fragments = (text: string): string => {
    if (words.length === 0) return text
    let out = ''
    for (let i = 0; i < text.length; ) {
      let longest = 0
      for (const secret of words) {
        let length = longest
        while (i + length < text.length && secret.includes(text.slice(i, i + length + 1))) length++
        longest = Math.max(longest, length)
      }
      if (longest >= MIN_FRAGMENT) {
        out += REDACTED
        i += longest
      } else out += text[i++]
    }
    return out
  }
  const cut = (text: string, max: number): string => (text.length > max ? text.slice(0, max) + '…' : text)
  return {
    scrub: (text) => fragments(cut(whole(text), FRAGMENT_SCAN_LIMIT)),
    clip: (text, max) => fragments(cut(whole(text), max)),
  }
}
