/**
 * A small parameterised SQL fragment builder. Values never become SQL text: they are
 * collected and rendered as placeholders (`$1` for PostgreSQL, `?` for SQLite) when a
 * fragment is compiled. Identifiers are quoted. Fragments nest.
 */

export type Dialect = "postgres" | "sqlite";

type Part = { kind: "text"; text: string } | { kind: "value"; value: unknown } | { kind: "ident"; names: string[] };

export class Sql {
  /** @internal */
  constructor(readonly parts: readonly Part[]) {}

  /** True when the fragment renders no text at all. */
  get isEmpty(): boolean {
    return this.parts.every((p) => p.kind === "text" && p.text.trim() === "");
  }
}

export interface Compiled {
  text: string;
  values: unknown[];
}

class Identifier {
  constructor(readonly names: string[]) {}
}

/** A quoted identifier, optionally schema-qualified: `ident("auth", "users")`. */
export function ident(...names: string[]): Identifier {
  if (names.length === 0) throw new TypeError("ident() needs at least one name");
  return new Identifier(names);
}

/** Tagged template: interpolated `Sql` fragments are inlined, identifiers quoted, anything else bound. */
export function sql(strings: TemplateStringsArray, ...args: unknown[]): Sql {
  const parts: Part[] = [];
  strings.forEach((text, i) => {
    if (text) parts.push({ kind: "text", text });
    if (i < args.length) pushArg(parts, args[i]);
  });
  return new Sql(parts);
}

/** Appends one by one: spreading a fragment of 100,000+ parts into push() overflows the call stack. */
function append(parts: Part[], more: readonly Part[]): void {
  for (const part of more) parts.push(part);
}

function pushArg(parts: Part[], arg: unknown): void {
  if (arg instanceof Sql) append(parts, arg.parts);
  else if (arg instanceof Identifier) parts.push({ kind: "ident", names: arg.names });
  else parts.push({ kind: "value", value: arg });
}

/** Joins fragments with a separator fragment (default `, `). */
export function join(fragments: readonly Sql[], separator: Sql = sql`, `): Sql {
  const parts: Part[] = [];
  fragments.forEach((f, i) => {
    if (i > 0) append(parts, separator.parts);
    append(parts, f.parts);
  });
  return new Sql(parts);
}

/** `a AND b AND c`, or `TRUE` when there are no conditions. Empty fragments are skipped. */
export function and(conditions: readonly Sql[]): Sql {
  const present = conditions.filter((c) => !c.isEmpty);
  if (present.length === 0) return sql`1 = 1`;
  return join(
    present.map((c) => sql`(${c})`),
    sql` AND `,
  );
}

/** A parenthesised list of bound values for `IN (...)`. An empty list is a caller error. */
export function list(values: readonly unknown[]): Sql {
  if (values.length === 0) throw new TypeError("list() needs at least one value");
  return sql`(${join(values.map((v) => sql`${v}`))})`;
}

export const empty: Sql = new Sql([]);

/**
 * Trusted SQL text written in code (an operator or keyword picked from a fixed table). Never
 * pass anything that came from a request: values go through `sql` placeholders, names through `ident`.
 */
export function trusted(text: string): Sql {
  return new Sql([{ kind: "text", text }]);
}

function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * Renders a fragment's text with each bound value written as `param` renders it (for a statement
 * that reads its values from elsewhere than its own parameters, such as a row of an `unnest`).
 */
export function renderText(fragment: Sql, param: (value: unknown) => string): string {
  let text = "";
  for (const part of fragment.parts) {
    if (part.kind === "text") text += part.text;
    else if (part.kind === "ident") text += part.names.map(quoteIdent).join(".");
    else text += param(part.value);
  }
  return text;
}

/** Renders a fragment for a dialect. */
export function compile(fragment: Sql, dialect: Dialect): Compiled {
  let text = "";
  const values: unknown[] = [];
  for (const part of fragment.parts) {
    if (part.kind === "text") text += part.text;
    else if (part.kind === "ident") text += part.names.map(quoteIdent).join(".");
    else {
      values.push(part.value);
      text += dialect === "postgres" ? `$${values.length}` : "?";
    }
  }
  return { text, values };
}
