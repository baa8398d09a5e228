/**
 * The `path: String` argument of json/jsonb column fields (`c32_json(path: "$.a[0]")`), read
 * with Hasura's JSON path grammar: an optional `$`, then keys (`a`, `.a`) and bracketed
 * elements (`[0]`, `['a b']`, `["你好"]`, also after a dot). The column's value becomes
 * `column #> '{a,0}'`, the path bound as one text[] parameter so any path fits one plan.
 */
import { type Sql, sql } from "@platform/core";
import { jsonPath, jsonPathParseError } from "../errors/index.js";
import { mapValue } from "./slot.js";

const NAME = /[\p{L}_][\p{L}0-9_-]*/uy;
const INDEX = /\d+/y;

/** A quoted key up to its closing quote, decoded as a JSON string (single quotes may be escaped as \'). */
function quoted(text: string, start: number): { key: string; end: number } | null {
  const quote = text[start];
  let i = start + 1;
  let body = "";
  while (i < text.length && text[i] !== quote) {
    if (text[i] === "\\") {
      if (quote === "'" && text[i + 1] === "'") body += "'";
      else body += text.slice(i, i + 2);
      i += 2;
    } else {
      body += quote === "'" && text[i] === '"' ? '\\"' : (text[i] as string);
      i += 1;
    }
  }
  if (i >= text.length) return null;
  try {
    return { key: JSON.parse(`"${body}"`) as string, end: i + 1 };
  } catch {
    return null;
  }
}

/** The path's elements (keys, and indices as digits), or null when Hasura would refuse it. */
export function parseJsonPath(text: string): string[] | null {
  if (text === "$") return [];
  const out: string[] = [];
  let i = text.startsWith("$") ? 1 : 0;
  while (i < text.length) {
    const dot = text[i] === "." ? 1 : 0;
    NAME.lastIndex = i + dot;
    const name = NAME.exec(text);
    if (name) {
      out.push(name[0]);
      i = NAME.lastIndex;
      continue;
    }
    if (text[i + dot] !== "[") return null;
    const at = i + dot + 1;
    INDEX.lastIndex = at;
    const index = INDEX.exec(text);
    let element: { key: string; end: number } | null = null;
    if (index) element = { key: index[0], end: INDEX.lastIndex };
    else if (text[at] === '"' || text[at] === "'") element = quoted(text, at);
    if (!element || text[element.end] !== "]") return null;
    out.push(element.key);
    i = element.end + 1;
  }
  return out.length > 0 ? out : null;
}

/** The column's value at the field's `path` argument (`arg`), or the value itself when there is none. */
export function atJsonPath(value: Sql, arg: unknown, path: ReadonlyArray<string | number>): Sql {
  if (arg === undefined || arg === null) return value;
  const elements = mapValue(arg, (text) => {
    const parsed = typeof text === "string" ? parseJsonPath(text) : null;
    if (!parsed) throw jsonPathParseError(String(text), jsonPath([...path, "args", "path"]));
    return parsed;
  });
  return sql`(${value} #> ${elements}::text[])`;
}
