/**
 * One statement for many subscribers, as Hasura multiplexes its live queries
 * (https://hasura.io/docs/2.0/subscriptions/postgres/livequery/execution/): the subscription's
 * root field, compiled once with parameter slots, reads its values from a row of
 * `unnest($1::text[], $2::json[]) AS _subs(id, vars)`, one row per cohort (the subscribers whose
 * values are equal), so a poll of a hundred cohorts is one statement.
 *
 * Each value the field binds becomes `(_subs.vars ->> i)::<type>`, `<type>` being the type
 * PostgreSQL itself inferred for that parameter of the field's own statement (asked once, with
 * PREPARE, from pg_prepared_statements); each cohort's values travel as their text, which
 * PostgreSQL reads back as that type, so the statement answers each cohort what the field's own
 * statement would answer its subscribers.
 */
import { type Compiled, compile, type Database, renderText, type Sql, sql } from "@platform/core";
import { statementFailure } from "../errors/postgres.js";

/** The two parameters of a multiplexed statement: the cohorts' ids and their values. */
const COHORT_IDS = Symbol("cohort ids");
const COHORT_VALUES = Symbol("cohort values");

export interface MultiplexedStatement {
  /** `SELECT _subs.id, (<field>)::text AS result FROM unnest($1::text[], $2::json[]) ...` */
  text: string;
  /** The field's own parameters (slots and constants), in the order `vars` holds them. */
  params: unknown[];
  /** The parameters PostgreSQL reads as a date or time (or whose type is not known): where a cohort may name the clock. */
  clock: number[];
}

/**
 * Whether a value read as a date or time is the clock: PostgreSQL's special inputs `now`,
 * `today`, `tomorrow` and `yesterday` (https://www.postgresql.org/docs/current/datatype-datetime.html,
 * "Special Values"; `now()` is read as `now`), alone, in an expression or in an array. Matched
 * loosely: a false match only makes the poller poll every refetch interval.
 */
export function namesClock(value: unknown): boolean {
  if (typeof value === "string") return /\b(now|today|tomorrow|yesterday)\b/i.test(value);
  return Array.isArray(value) && value.some(namesClock);
}

/** A statement's parameters as PostgreSQL infers them. */
export interface ParameterTypes {
  /** Each one's type, as format_type prints it. */
  names: string[];
  /** Whether each one is read as a date or a time (typcategory `D`, a domain's or an array's element's too). */
  dateTime: boolean[];
}

/**
 * The PostgreSQL types of a statement's parameters, as PostgreSQL infers them: PREPAREd on one
 * connection (inside a transaction, so nothing is left behind) and read from pg_prepared_statements.
 */
export async function parameterTypes(db: Database, statement: Compiled, signal?: AbortSignal): Promise<ParameterTypes> {
  if (statement.values.length === 0) return { names: [], dateTime: [] };
  const text = `PREPARE hdb_subscription_probe AS ${statement.text}`;
  try {
    return await db.transaction(
      async (tx) => {
        await tx.exec(text);
        // A domain has its base type's category; an array's element is looked at.
        const { rows } = await tx.query<{ types: string[] | string; date_time: string }>(
          sql`SELECT parameter_types::text[] AS types,
            array_to_string(ARRAY(
              SELECT CASE WHEN coalesce(CASE WHEN t.typcategory = 'A' THEN e.typcategory ELSE t.typcategory END, 'D') = 'D' THEN 't' ELSE 'f' END
              FROM unnest(parameter_types) WITH ORDINALITY AS p(oid, n)
              LEFT JOIN pg_catalog.pg_type t ON t.oid = p.oid LEFT JOIN pg_catalog.pg_type e ON e.oid = t.typelem
              ORDER BY p.n), '') AS date_time
            FROM pg_prepared_statements WHERE name = 'hdb_subscription_probe'`,
        );
        await tx.exec("DEALLOCATE hdb_subscription_probe");
        const types = rows[0]?.types ?? [];
        return {
          names: Array.isArray(types) ? types : parseTextArray(types),
          dateTime: [...(rows[0]?.date_time ?? "")].map((flag) => flag === "t"),
        };
      },
      { signal },
    );
  } catch (error) {
    throw statementFailure(error, signal, { text, values: [], prepared: false });
  }
}

/** `{integer,"timestamp with time zone"}` as PostgreSQL prints a text[] (PGlite hands it over as text). */
function parseTextArray(text: string): string[] {
  const out: string[] = [];
  const body = text.slice(1, -1);
  let i = 0;
  while (i < body.length) {
    if (body[i] === '"') {
      let item = "";
      i += 1;
      while (i < body.length && body[i] !== '"') {
        if (body[i] === "\\") i += 1;
        item += body[i];
        i += 1;
      }
      out.push(item);
      i += 2;
    } else {
      const end = body.indexOf(",", i);
      out.push(body.slice(i, end === -1 ? body.length : end));
      i = end === -1 ? body.length : end + 1;
    }
  }
  return out;
}

const COHORTS = sql`unnest(${COHORT_IDS}::text[], ${COHORT_VALUES}::json[]) AS "_subs"("id", "vars")`;

/** The multiplexed statement of a live query's root field (its JSON) whose own statement's parameters have `types`. */
export function multiplexedLive(field: Sql, types: ParameterTypes): MultiplexedStatement {
  return multiplexed(sql`SELECT "_subs"."id" AS "id", (${field})::text AS "result" FROM ${COHORTS}`, types);
}

/** The multiplexed statement of a stream's batch (a sub-select of `result` and `cursor`), joined to each cohort. */
export function multiplexedStream(batch: Sql, types: ParameterTypes): MultiplexedStatement {
  const select = sql`SELECT "_subs"."id" AS "id", ("_r"."result")::text AS "result", "_r"."cursor" AS "cursor" FROM ${COHORTS} LEFT JOIN LATERAL ${batch} AS "_r" ON true`;
  return multiplexed(select, types);
}

function multiplexed(select: Sql, types: ParameterTypes): MultiplexedStatement {
  const params: unknown[] = [];
  const clock: number[] = [];
  const text = renderText(select, (value) => {
    if (value === COHORT_IDS) return "$1";
    if (value === COHORT_VALUES) return "$2";
    const index = params.length;
    params.push(value);
    const type = types.names[index];
    // A parameter of no known type is looked at too: a false match only costs interval polling.
    if (type === undefined || types.dateTime[index] !== false) clock.push(index);
    // The type's name as PostgreSQL printed it (format_type: quoted where it must be).
    return type ? `(("_subs"."vars" ->> ${index})::${type})` : `("_subs"."vars" ->> ${index})`;
  });
  return { text, params, clock };
}

/** A live query field's own statement (what its cost and its parameter types come from). */
export function ownLive(field: Sql): Compiled {
  return compile(sql`SELECT (${field})::text AS "result"`, "postgres");
}

/** A stream's own statement: its batch for one subscriber. */
export function ownStream(batch: Sql): Compiled {
  return compile(sql`SELECT ("_r"."result")::text AS "result", "_r"."cursor" AS "cursor" FROM ${batch} AS "_r"`, "postgres");
}

/** One cohort's values as `vars` carries them: each parameter as the text PostgreSQL reads back as its type. */
export function cohortValues(values: readonly unknown[]): string {
  return JSON.stringify(values.map(paramText));
}

function paramText(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "bigint" || typeof value === "boolean") return String(value);
  if (value instanceof Date) return value.toISOString();
  if (Array.isArray(value)) return arrayLiteral(value);
  return JSON.stringify(value);
}

/** A JavaScript array as PostgreSQL's array text (`{1,"a b",NULL}`). */
function arrayLiteral(items: readonly unknown[]): string {
  const item = (v: unknown): string => {
    if (v === null || v === undefined) return "NULL";
    if (Array.isArray(v)) return arrayLiteral(v);
    const text = paramText(v) as string;
    return `"${text.replaceAll("\\", "\\\\").replaceAll('"', '\\"')}"`;
  };
  return `{${items.map(item).join(",")}}`;
}
