/**
 * Reads SQL function signatures from pg_catalog in one statement: input arguments (name, type,
 * default), return type (SETOF, the relation a composite return type belongs to), volatility and
 * comment. Hasura uses these to validate computed fields and tracked functions and to build the
 * `args` input types.
 */
import { type Queryable, type Sql, sql } from "@platform/core";
import type { TableName } from "./introspect.js";

export interface PgFunctionArg {
  /** Null for an unnamed argument. */
  name: string | null;
  /** pg_type.typname (`text`, `int4`, `author` for a row type). */
  type: string;
  typeSchema: string;
  /** pg_type.typtype: `b` base, `c` composite, `d` domain, `e` enum, `p` pseudo. */
  typeKind: string;
  /** The table or view whose row type this is, if any. */
  table: TableName | null;
  hasDefault: boolean;
}

export interface PgFunction {
  schema: string;
  name: string;
  /** Input arguments in order. */
  args: PgFunctionArg[];
  /** False when the function has OUT, INOUT, VARIADIC or TABLE arguments. */
  inputOnly: boolean;
  returnType: string;
  returnTypeSchema: string;
  returnTypeKind: string;
  /** The table or view whose row type is returned, if any. */
  returnTable: TableName | null;
  returnsSet: boolean;
  volatility: "immutable" | "stable" | "volatile";
  comment: string | null;
}

interface FunctionRow {
  schema: string;
  name: string;
  volatility: string;
  returns_set: boolean;
  return_type: string;
  return_type_schema: string;
  return_type_kind: string;
  return_table: string | null;
  return_table_schema: string | null;
  defaults: number;
  modes: string[] | null;
  comment: string | null;
  args: Array<{
    name: string | null;
    type: string;
    type_schema: string;
    type_kind: string;
    table: string | null;
    table_schema: string | null;
  }> | null;
}

const VOLATILITY: Record<string, PgFunction["volatility"]> = { i: "immutable", s: "stable", v: "volatile" };

export function functionKey(schema: string, name: string): string {
  return `${schema}.${name}`;
}

function functionFilter(names?: readonly TableName[]): Sql {
  if (!names) {
    // Every user function but those an extension installed (PostGIS alone brings hundreds).
    return sql`n.nspname NOT LIKE 'pg\\_%' AND n.nspname NOT IN ('information_schema', 'hdb_catalog', 'hdb_lib', '_timescaledb_internal')
      AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_depend dep
        WHERE dep.classid = 'pg_catalog.pg_proc'::regclass AND dep.objid = p.oid AND dep.deptype = 'e')`;
  }
  return sql`(n.nspname, p.proname) IN (SELECT s, f FROM unnest(${names.map((f) => f.schema)}::text[], ${names.map((f) => f.name)}::text[]) AS w(s, f))`;
}

function functionsQuery(names?: readonly TableName[]): Sql {
  return sql`
    SELECT n.nspname AS schema, p.proname AS name, p.provolatile::text AS volatility, p.proretset AS returns_set,
      rt.typname AS return_type, rtn.nspname AS return_type_schema, rt.typtype::text AS return_type_kind,
      rc.relname AS return_table, rcn.nspname AS return_table_schema,
      p.pronargdefaults AS defaults, p.proargmodes::text[] AS modes, d.description AS comment,
      (SELECT json_agg(json_build_object(
          'name', nullif(p.proargnames[u.ord], ''), 'type', t.typname, 'type_schema', tn.nspname,
          'type_kind', t.typtype, 'table', tc.relname, 'table_schema', tcn.nspname) ORDER BY u.ord)
        FROM unnest(p.proargtypes::oid[]) WITH ORDINALITY AS u(oid, ord)
        JOIN pg_catalog.pg_type t ON t.oid = u.oid
        JOIN pg_catalog.pg_namespace tn ON tn.oid = t.typnamespace
        LEFT JOIN pg_catalog.pg_class tc ON tc.oid = t.typrelid AND tc.relkind IN ('r', 'p', 'v', 'm', 'f')
        LEFT JOIN pg_catalog.pg_namespace tcn ON tcn.oid = tc.relnamespace) AS args
    FROM pg_catalog.pg_proc p
    JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
    JOIN pg_catalog.pg_type rt ON rt.oid = p.prorettype
    JOIN pg_catalog.pg_namespace rtn ON rtn.oid = rt.typnamespace
    LEFT JOIN pg_catalog.pg_class rc ON rc.oid = rt.typrelid AND rc.relkind IN ('r', 'p', 'v', 'm', 'f')
    LEFT JOIN pg_catalog.pg_namespace rcn ON rcn.oid = rc.relnamespace
    LEFT JOIN pg_catalog.pg_description d
      ON d.classoid = 'pg_catalog.pg_proc'::regclass AND d.objoid = p.oid AND d.objsubid = 0
    WHERE p.prokind = 'f' AND ${functionFilter(names)}
    ORDER BY n.nspname, p.proname, p.oid`;
}

function toFunction(row: FunctionRow): PgFunction {
  const raw = row.args ?? [];
  const firstDefault = raw.length - row.defaults;
  return {
    schema: row.schema,
    name: row.name,
    args: raw.map((a, i) => ({
      name: a.name,
      type: a.type,
      typeSchema: a.type_schema,
      typeKind: a.type_kind,
      table: a.table !== null && a.table_schema !== null ? { schema: a.table_schema, name: a.table } : null,
      hasDefault: i >= firstDefault,
    })),
    // proargnames lines up with proargtypes only when every argument is IN.
    inputOnly: row.modes === null || row.modes.every((m) => m === "i"),
    returnType: row.return_type,
    returnTypeSchema: row.return_type_schema,
    returnTypeKind: row.return_type_kind,
    returnTable:
      row.return_table !== null && row.return_table_schema !== null ? { schema: row.return_table_schema, name: row.return_table } : null,
    returnsSet: row.returns_set,
    volatility: VOLATILITY[row.volatility] ?? "volatile",
    comment: row.comment,
  };
}

/**
 * Functions by `schema.name` (overloads share a key): the named ones, or every user function
 * (extension members excepted) when `names` is omitted.
 */
export async function introspectFunctions(db: Queryable, names?: readonly TableName[]): Promise<Map<string, PgFunction[]>> {
  const functions = new Map<string, PgFunction[]>();
  if (names && names.length === 0) return functions;
  const { rows } = await db.query<FunctionRow>(functionsQuery(names));
  for (const row of rows) {
    const fn = toFunction(row);
    const key = functionKey(fn.schema, fn.name);
    functions.set(key, [...(functions.get(key) ?? []), fn]);
  }
  return functions;
}
