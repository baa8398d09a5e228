/**
 * Where a flow may send the browser (GoTrue's IsRedirectURLValid / GetReferrer): a URL with the
 * scheme, host and port of SITE_URL (any port on a loopback host), a loopback IP, or a match of
 * one of the URI_ALLOW_LIST globs. The globs use `.` and `/` as separators, as GoTrue's do:
 * `*` and `?` stay within one host label or path segment, `**` crosses them; `[...]`, `{a,b}`
 * and `\` escapes work too. Fragments are ignored when matching. Anything else falls back to
 * the Referer header when that is valid, then to SITE_URL.
 */
import { isIP } from "node:net";

const DECIMAL_HOST = /^[0-9]+$/;
const REGULAR_HOST = /^[a-zA-Z0-9]([a-zA-Z0-9.-]*[a-zA-Z0-9])?$/;
const LOCALHOSTS = new Set(["localhost", "127.0.0.1", "::1", "0.0.0.0", "::"]);

export interface RedirectSettings {
  siteUrl: string;
  uriAllowList: readonly string[];
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&");

/** Translates one gobwas-style glob (separators `.` and `/`) into a regular expression body. */
function globBody(pattern: string, start: number, inBraces: boolean): { body: string; end: number } {
  let body = "";
  let i = start;
  while (i < pattern.length) {
    const char = pattern[i] as string;
    if (inBraces && (char === "," || char === "}")) return { body, end: i };
    if (char === "\\" && i + 1 < pattern.length) {
      body += escapeRegExp(pattern[i + 1] as string);
      i += 2;
    } else if (char === "*") {
      if (pattern[i + 1] === "*") {
        body += "[\\s\\S]*";
        i += 2;
      } else {
        body += "[^./]*";
        i++;
      }
    } else if (char === "?") {
      body += "[^./]";
      i++;
    } else if (char === "[") {
      const close = pattern.indexOf("]", i + 2);
      if (close < 0) throw new Error("unclosed [");
      let inner = pattern.slice(i + 1, close);
      const negated = inner.startsWith("!");
      if (negated) inner = inner.slice(1);
      const members = inner.replace(/[\\\]^]/g, "\\$&");
      body += `[${negated ? "^" : ""}${members}]`;
      i = close + 1;
    } else if (char === "{") {
      const alternatives: string[] = [];
      let j = i + 1;
      for (;;) {
        const part = globBody(pattern, j, true);
        alternatives.push(part.body);
        if (part.end >= pattern.length) throw new Error("unclosed {");
        j = part.end + 1;
        if (pattern[part.end] === "}") break;
      }
      body += `(?:${alternatives.join("|")})`;
      i = j;
    } else {
      body += escapeRegExp(char);
      i++;
    }
  }
  if (inBraces) return { body, end: pattern.length };
  return { body, end: i };
}

export function compileGlob(pattern: string): RegExp {
  try {
    return new RegExp(`^${globBody(pattern, 0, false).body}$`);
  } catch {
    // A pattern that is not a valid glob matches only itself.
    return new RegExp(`^${escapeRegExp(pattern)}$`);
  }
}

const compiled = new WeakMap<readonly string[], RegExp[]>();

function allowList(settings: RedirectSettings): RegExp[] {
  let patterns = compiled.get(settings.uriAllowList);
  if (!patterns) {
    patterns = settings.uriAllowList.map(compileGlob);
    compiled.set(settings.uriAllowList, patterns);
  }
  return patterns;
}

/** The host exactly as written in the URL (before WHATWG normalisation turns `2130706433` into an IP). */
function rawHostname(url: string): string {
  const authority = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/([^/?#]*)/.exec(url)?.[1] ?? "";
  const host = authority.slice(authority.lastIndexOf("@") + 1);
  if (host.startsWith("[")) return host.slice(1, host.indexOf("]") > 0 ? host.indexOf("]") : undefined);
  const colon = host.lastIndexOf(":");
  return colon >= 0 ? host.slice(0, colon) : host;
}

const stripBrackets = (hostname: string) => hostname.replace(/^\[(.*)\]$/, "$1");

function isLoopbackIp(ip: string): boolean {
  if (isIP(ip) === 4) return ip.startsWith("127.");
  const lower = ip.toLowerCase();
  return lower === "::1" || lower === "0:0:0:0:0:0:0:1" || /^::ffff:127\./.test(lower);
}

function parse(url: string): URL | undefined {
  try {
    return new URL(url);
  } catch {
    return undefined;
  }
}

export function isRedirectUrlValid(settings: RedirectSettings, redirectUrl: string | undefined): boolean {
  if (!redirectUrl) return false;
  const base = parse(settings.siteUrl);
  const target = parse(redirectUrl);
  if (!base || !target) return false;
  const hostname = stripBrackets(target.hostname).toLowerCase();
  const sameSite =
    stripBrackets(base.hostname).toLowerCase() === hostname &&
    base.protocol === target.protocol &&
    (base.port === target.port || LOCALHOSTS.has(hostname) || hostname.endsWith(".localhost"));
  if (sameSite) return true;
  const written = rawHostname(redirectUrl);
  const isHttp = target.protocol === "http:" || target.protocol === "https:";
  if (DECIMAL_HOST.test(written)) return false;
  if (isIP(written)) return isLoopbackIp(written);
  if (isHttp && !REGULAR_HOST.test(written)) return false;
  const withoutFragment = redirectUrl.split("#")[0] as string;
  return allowList(settings).some((pattern) => pattern.test(withoutFragment));
}

/**
 * GoTrue's GetReferrer: the first valid one of the candidates (the `redirect_to` of the request,
 * then the Referer header), else SITE_URL.
 */
export function referrer(settings: RedirectSettings, ...candidates: (string | undefined)[]): string {
  return candidates.find((candidate) => isRedirectUrlValid(settings, candidate)) ?? settings.siteUrl;
}
