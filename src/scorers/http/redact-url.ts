/** Endpoint URLs as they may be shown: in messages, the manifest and the cache key, never with credentials. */

/** A URL without user:password and query string, for messages and the manifest. */
export function redactUrl(href: string): string {
  try {
    const url = new URL(href)
    url.username = ''
    url.password = ''
    url.search = ''
    return url.href
  } catch {
    return href.replace(/\/\/[^@/]*@/, '//').replace(/\?.*$/, '')
  }
}
