/**
 * The path prefix a proxy stripped before forwarding, from `X-Forwarded-Prefix` (the gateway
 * serves the catalog under `/catalog`). Several proxies in a row each add theirs, comma-separated,
 * outermost first (as Spring's ForwardedHeaderFilter reads them). Only plain path segments are
 * accepted (no `.` or `..`); anything else is ignored, so the header cannot inject text into the
 * documents.
 */
const SEGMENTS = /^(\/[\w.~%-]+)+$/;

export function forwardedPrefix(header: string | string[] | undefined): string {
  const raw = Array.isArray(header) ? header.join(",") : header;
  if (!raw) return "";
  let prefix = "";
  for (const part of raw.split(",")) {
    const trimmed = part.trim().replace(/\/+$/, "");
    if (trimmed === "") continue;
    if (!SEGMENTS.test(trimmed) || /\/\.\.?(\/|$)/.test(trimmed)) return "";
    prefix += trimmed;
  }
  return prefix;
}
