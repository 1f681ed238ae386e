/**
 * An integer with its thousands separated by commas (`100,000`), locale-independent. Not
 * `toLocaleString('en')`: its first call loads ICU's number data, tens of ms in every
 * process that imports the settings (each CLI run), for two constant error texts.
 */
export function thousands(value: number): string {
  return String(value).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
}
