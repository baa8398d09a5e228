/**
 * Hasura's englishList (server/src-lib/Hasura/Server/Utils.hs), which many of its messages use:
 * `a`, `a and b`, `a, b, and c` (the joiner may be "or").
 */
export function englishList(items: readonly string[], joiner: "and" | "or" = "and"): string {
  if (items.length <= 2) return items.join(` ${joiner} `);
  return `${items.slice(0, -1).join(", ")}, ${joiner} ${items[items.length - 1]}`;
}
