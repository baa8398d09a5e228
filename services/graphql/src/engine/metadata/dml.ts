/**
 * The legacy `/v1/query` data operations (https://hasura.io/docs/1.0/graphql/core/api-reference/schema-metadata-api/query.html),
 * which Hasura's own test fixtures and older clients use: `insert` (with `returning` and
 * `on_conflict`), `update` (`$set`, `$inc`, `$default`), `delete`, `select` and `count`, on a
 * tracked table, as the admin. Each runs in one transaction that carries the request's session
 * variables in `hasura.user`, as Hasura's mutations do, so event triggers record them.
 */

import { type Database, ident, join, type Queryable, type Sql, sql, trusted } from "@platform/core";
import { binaryNumericText } from "../compiler/numeric-text.js";
import { rowNotAnObject } from "../errors/index.js";
import { fromPostgres } from "../errors/postgres.js";
import { JsonNumber } from "../json/number.js";
import { parseJsonBody } from "../json/parse.js";
import { asArray, asObject, at, isObject, type Json, parseFailed } from "./args.js";
import { boolExp, bound, unknownColumn } from "./legacy-bool-exp.js";
import type { QualifiedTable } from "./types.js";

export const LEGACY_DML = new Set(["insert", "update", "delete", "select", "count"]);

interface TableColumns {
  all: Set<string>;
  numeric: Set<string>;
}

async function columnsOf(tx: Queryable, table: QualifiedTable): Promise<TableColumns> {
  const { rows } = await tx.query<{ name: string; numeric: boolean }>(
    sql`SELECT a.attname AS name, a.atttypid = 'numeric'::regtype AS numeric
        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = ${table.schema} AND c.relname = ${table.name} AND a.attnum > 0 AND NOT a.attisdropped`,
  );
  return { all: new Set(rows.map((r) => r.name)), numeric: new Set(rows.filter((r) => r.numeric).map((r) => r.name)) };
}

/** A column's value: numbers for numeric columns in PostgreSQL's binary format, which fixes their display scale, as Hasura sends them. */
function value(columns: TableColumns, column: string, v: unknown): Sql {
  if (columns.numeric.has(column) && typeof v === "number") return sql`${binaryNumericText(v) ?? v}`;
  if (v instanceof JsonNumber) return sql`${v.text}`;
  return bound(v);
}

/** The columns named (`*` for all, or for none given; `[]` reads none: `*` is sent and `emptyRows` empties the rows). */
function columnList(columns: TableColumns, raw: unknown, path: string): Sql {
  if (raw === undefined || raw === null || (Array.isArray(raw) && raw.length === 0)) return sql`*`;
  const names = asArray(raw, path).map((c, i) => {
    if (c === "*") return "*";
    if (typeof c !== "string") throw parseFailed("expected String", at(path, i));
    if (!columns.all.has(c)) throw unknownColumn(c, at(path, i));
    return c;
  });
  return names.includes("*") ? sql`*` : join(names.map((c) => sql`${ident(c)}`));
}

/** Runs `statement` (a data-changing statement with RETURNING) and answers `{affected_rows, returning?}`. */
async function changed(tx: Queryable, statement: Sql, returning: boolean): Promise<unknown> {
  // The rows as JSON text, read with the parser that keeps long numbers' digits (bigint past 2^53).
  const { rows } = await tx.query<{ affected_rows: number; returning: string }>(
    sql`WITH r AS (${statement}) SELECT count(*)::int AS affected_rows, coalesce(json_agg(r), '[]')::text AS returning FROM r`,
  );
  const row = rows[0] ?? { affected_rows: 0, returning: "[]" };
  return returning ? { affected_rows: row.affected_rows, returning: parseJsonBody(row.returning) } : { affected_rows: row.affected_rows };
}

function insertStatement(target: Sql, columns: TableColumns, args: Json, path: string, returningList: Sql): Sql[] {
  const objects = Array.isArray(args.objects) ? args.objects : [args.objects];
  const conflict = isObject(args.on_conflict) ? args.on_conflict : undefined;
  let onConflict = sql``;
  if (conflict) {
    const constraint = typeof conflict.constraint === "string" ? conflict.constraint : undefined;
    if (!constraint) throw parseFailed('key "constraint" not found', at(path, "on_conflict"));
    const update = asArray(conflict.update_columns ?? [], at(at(path, "on_conflict"), "update_columns")).map(String);
    for (const c of update) if (!columns.all.has(c)) throw unknownColumn(c, at(path, "on_conflict"));
    onConflict =
      update.length === 0 || conflict.action === "ignore"
        ? sql` ON CONFLICT ON CONSTRAINT ${ident(constraint)} DO NOTHING`
        : sql` ON CONFLICT ON CONSTRAINT ${ident(constraint)} DO UPDATE SET ${join(update.map((c) => sql`${ident(c)} = EXCLUDED.${ident(c)}`))}`;
  }
  return objects.map((row, i) => {
    if (!isObject(row)) throw rowNotAnObject();
    const entries = Object.entries(row);
    for (const [c] of entries) if (!columns.all.has(c)) throw unknownColumn(c, at(at(path, "objects"), i));
    const body =
      entries.length === 0
        ? sql`DEFAULT VALUES`
        : sql`(${join(entries.map(([c]) => sql`${ident(c)}`))}) VALUES (${join(entries.map(([c, v]) => value(columns, c, v)))})`;
    return sql`INSERT INTO ${target} ${body}${onConflict} RETURNING ${returningList}`;
  });
}

function updateSet(columns: TableColumns, args: Json, path: string): Sql[] {
  const parts: Sql[] = [];
  const each = (key: string, make: (column: string, v: unknown) => Sql) => {
    if (args[key] === undefined || args[key] === null) return;
    for (const [c, v] of Object.entries(asObject(args[key], at(path, key)))) {
      if (!columns.all.has(c)) throw unknownColumn(c, at(at(path, key), c));
      parts.push(make(c, v));
    }
  };
  each("$set", (c, v) => sql`${ident(c)} = ${value(columns, c, v)}`);
  each("$inc", (c, v) => sql`${ident(c)} = ${ident(c)} + ${value(columns, c, v)}`);
  each("$mul", (c, v) => sql`${ident(c)} = ${ident(c)} * ${value(columns, c, v)}`);
  if (Array.isArray(args.$default))
    for (const c of args.$default.map(String)) {
      if (!columns.all.has(c)) throw unknownColumn(c, at(path, "$default"));
      parts.push(sql`${ident(c)} = DEFAULT`);
    }
  for (const key of ["$append", "$prepend", "$delete_key", "$delete_elem", "$delete_at_path"])
    if (args[key] !== undefined)
      throw parseFailed(`"${key}" is not supported by this engine's legacy update; use /v1/graphql`, at(path, key));
  if (parts.length === 0) throw parseFailed("atleast one of $set, $inc, $mul or $default has to be present", path);
  return parts;
}

function orderBy(columns: TableColumns, raw: unknown, path: string): Sql {
  if (raw === undefined || raw === null) return sql``;
  const items = (Array.isArray(raw) ? raw : [raw]).map((item, i) => {
    const here = at(path, i);
    let column: string;
    let descending = false;
    let nulls: string | undefined;
    if (typeof item === "string") {
      descending = item.startsWith("-");
      column = item.replace(/^[+-]/, "");
    } else if (isObject(item) && typeof item.column === "string") {
      column = item.column;
      descending = item.type === "desc";
      nulls = typeof item.nulls === "string" ? item.nulls : undefined;
    } else throw parseFailed("expected a column name or {column, type, nulls}", here);
    if (!columns.all.has(column)) throw unknownColumn(column, here);
    const direction = trusted(descending ? " DESC" : " ASC");
    const nullsOrder = nulls === "first" ? trusted(" NULLS FIRST") : nulls === "last" ? trusted(" NULLS LAST") : sql``;
    return sql`${ident(column)}${direction}${nullsOrder}`;
  });
  return sql` ORDER BY ${join(items)}`;
}

function count(raw: unknown, path: string): number | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== "number" || !Number.isInteger(raw) || raw < 0) throw parseFailed("expected a non-negative integer", path);
  return raw;
}

/** Runs a legacy data operation on `table` with the request's `session` variables. */
export async function runLegacyDml(
  db: Database,
  type: string,
  table: QualifiedTable,
  args: Json,
  path: string,
  session: Record<string, string>,
): Promise<unknown> {
  try {
    return await runInTransaction(db, type, table, args, path, session);
  } catch (error) {
    // A value the column refuses, a violated constraint: Hasura's error shape, the database's text only in `internal`.
    throw fromPostgres(error);
  }
}

function runInTransaction(
  db: Database,
  type: string,
  table: QualifiedTable,
  args: Json,
  path: string,
  session: Record<string, string>,
): Promise<unknown> {
  return db.transaction(async (tx) => {
    await tx.query(sql`SELECT set_config('hasura.user', ${JSON.stringify(session)}, true)`);
    const columns = await columnsOf(tx, table);
    const target = sql`${ident(table.schema, table.name)}`;
    const where = () => {
      if (args.where === undefined) throw parseFailed('key "where" not found', path);
      return boolExp(args.where, columns.all, at(path, "where"));
    };
    const returning = args.returning !== undefined && args.returning !== null;
    const returningList = columnList(columns, args.returning, at(path, "returning"));
    const noColumns = Array.isArray(args.returning) && args.returning.length === 0;
    const shaped = (result: unknown) =>
      noColumns && isObject(result) && Array.isArray(result.returning)
        ? { ...result, returning: result.returning.map(() => ({})) }
        : result;
    switch (type) {
      case "insert": {
        let affected = 0;
        const rows: unknown[] = [];
        for (const statement of insertStatement(target, columns, args, path, returningList)) {
          const result = (await changed(tx, statement, true)) as { affected_rows: number; returning: unknown[] };
          affected += result.affected_rows;
          rows.push(...result.returning);
        }
        return shaped(returning ? { affected_rows: affected, returning: rows } : { affected_rows: affected });
      }
      case "update":
        return shaped(
          await changed(
            tx,
            sql`UPDATE ${target} SET ${join(updateSet(columns, args, path))} WHERE ${where()} RETURNING ${returningList}`,
            returning,
          ),
        );
      case "delete":
        return shaped(await changed(tx, sql`DELETE FROM ${target} WHERE ${where()} RETURNING ${returningList}`, returning));
      case "count": {
        const condition = args.where === undefined ? sql`true` : where();
        const { rows } = await tx.query<{ count: number }>(sql`SELECT count(*)::int AS count FROM ${target} WHERE ${condition}`);
        return { count: rows[0]?.count ?? 0 };
      }
      default: {
        const condition = args.where === undefined ? sql`true` : where();
        const limit = count(args.limit, at(path, "limit"));
        const offset = count(args.offset, at(path, "offset"));
        const { rows } = await tx.query<{ rows: string }>(
          sql`SELECT coalesce(json_agg(t), '[]')::text AS rows FROM (SELECT ${columnList(columns, args.columns, at(path, "columns"))}
            FROM ${target} WHERE ${condition}${orderBy(columns, args.order_by, at(path, "order_by"))}
            ${limit === undefined ? sql`` : sql`LIMIT ${limit}`} ${offset === undefined ? sql`` : sql`OFFSET ${offset}`}) t`,
        );
        return parseJsonBody(rows[0]?.rows ?? "[]");
      }
    }
  });
}

/** Inserts plain rows as the admin (test set-ups). */
export async function insertRows(db: Database, table: QualifiedTable | string, objects: unknown): Promise<{ affected_rows: number }> {
  const target = typeof table === "string" ? { schema: "public", name: table } : table;
  return (await runLegacyDml(db, "insert", target, { objects }, "$.args", { "x-hasura-role": "admin" })) as { affected_rows: number };
}
