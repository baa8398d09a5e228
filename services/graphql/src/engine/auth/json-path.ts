/**
 * The small JSON path language of Hasura's JWT config (`claims_namespace_path`, `claims_map`
 * paths): `$`, `.key`, `key`, `[0]`, `['key']`, `["key"]`.
 */
import { jsonPath } from "../errors/index.js";

export type JsonPath = ReadonlyArray<string | number>;

const NAME = /^[A-Za-z0-9_-]+/;

/** Parses a path; throws Error with Hasura's wording when it is not one. */
export function parseJsonPath(text: string): JsonPath {
  const invalid = (): Error =>
    new Error(
      `${text}. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any other character`,
    );
  let rest = text.startsWith("$") ? text.slice(1) : text;
  const path: Array<string | number> = [];
  if (rest === "" && text !== "$") throw invalid();
  while (rest.length > 0) {
    if (rest.startsWith("[")) {
      const index = /^\[(\d+)\]/.exec(rest);
      const quoted = /^\[(?:'((?:[^'\\]|\\.)*)'|"((?:[^"\\]|\\.)*)")\]/.exec(rest);
      if (index) {
        path.push(Number(index[1]));
        rest = rest.slice(index[0].length);
      } else if (quoted) {
        path.push((quoted[1] ?? quoted[2] ?? "").replace(/\\(.)/g, "$1"));
        rest = rest.slice(quoted[0].length);
      } else throw invalid();
      continue;
    }
    const name = NAME.exec(rest.startsWith(".") ? rest.slice(1) : rest);
    if (!name) throw invalid();
    path.push(name[0]);
    rest = rest.slice((rest.startsWith(".") ? 1 : 0) + name[0].length);
  }
  return path;
}

/** Hasura's rendering of a path (`$.a['b c'][0]`), as in its error messages. */
export function encodeJsonPath(path: JsonPath): string {
  return jsonPath(path);
}

/** The value at `path`, or undefined when any step is missing. */
export function readJsonPath(value: unknown, path: JsonPath): unknown {
  let current = value;
  for (const step of path) {
    if (typeof step === "number") {
      if (!Array.isArray(current)) return undefined;
      current = current[step];
    } else {
      if (typeof current !== "object" || current === null || Array.isArray(current)) return undefined;
      if (!Object.hasOwn(current, step)) return undefined;
      current = (current as Record<string, unknown>)[step];
    }
  }
  return current;
}
