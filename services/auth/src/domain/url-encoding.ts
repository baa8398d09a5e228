/** Go's url.QueryEscape and url.Values.Encode, so links and redirects read as GoTrue writes them. */

/** Escapes everything but A-Z a-z 0-9 - _ . ~; a space becomes `+`. */
export function queryEscape(text: string): string {
  return encodeURIComponent(text)
    .replace(/[!'()*]/g, (char) => `%${char.charCodeAt(0).toString(16).toUpperCase()}`)
    .replace(/%20/g, "+");
}

/** `key=value&...` sorted by key (values of one key in order), as url.Values.Encode writes it. */
export function encodeValues(values: Iterable<readonly [string, string]>): string {
  const entries = [...values];
  const keys = [...new Set(entries.map(([key]) => key))].sort();
  return keys
    .flatMap((key) => entries.filter(([k]) => k === key).map(([, value]) => `${queryEscape(key)}=${queryEscape(value)}`))
    .join("&");
}

/** The `redirect_to` value of a link: left as it is unless it holds `&`, `=` or `#` (GoTrue's encodeRedirectURL). */
const encodeRedirect = (url: string) => (/[&=#]/.test(url) ? queryEscape(url) : url);

/** An email link: `path` (MAILER_URLPATHS_<kind>) resolved against API_EXTERNAL_URL, with GoTrue's query (token, type, redirect_to). */
export function verificationLink(externalUrl: string, path: string, token: string, type: string, redirectTo: string): string {
  const base = new URL(path, externalUrl);
  const existing = base.search ? `${base.search.slice(1)}&` : "";
  return `${base.origin}${base.pathname}?${existing}token=${queryEscape(token)}&type=${queryEscape(type)}&redirect_to=${encodeRedirect(redirectTo)}`;
}
