/**
 * The cost limit, the second defence after the statement size bounds (statements.ts): PostgreSQL's
 * own estimate of what a query's statements cost (EXPLAIN's total cost, in the planner's units:
 * https://www.postgresql.org/docs/current/using-explain.html), taken before they run, and the
 * query refused above HASURA_GRAPHQL_COST_LIMIT. It catches what the size bounds cannot see: a
 * small operation over large tables whose nesting multiplies rows (`users { posts { author { posts
 * ... } } }`).
 *
 * PostgreSQL 15 has no `EXPLAIN (GENERIC_PLAN)`, and a generic plan would not do anyway: it
 * estimates `LIMIT $1` as a tenth of the rows whatever the limit, which refuses a page of ten rows
 * from a large table. So the statement is explained with the request's own values. EXPLAIN plans
 * without running, and the statements it plans are already within the size bounds. The estimate
 * is kept with the compiled query, keyed by the size class of each value bound to it (the
 * power of two of a number, of a list's length): requests of one shape whose limits, offsets and
 * lists are of the same order reuse it, and a larger limit is estimated again. Strings do not
 * change the key: a different user id or search text costs about the same.
 */
import type { Compiled, Database } from "@platform/core";
import { costLimitExceeded } from "../errors/index.js";
import { statementFailure } from "../errors/postgres.js";
import { LIMIT_SETTINGS } from "./statements.js";

/** Estimates kept per compiled query; past this many size classes, the oldest go. */
const MAX_ESTIMATES = 64;

/** The estimates of one compiled query, by size class. */
export type CostEstimates = Map<string, number>;

function sizeClass(value: unknown): string {
  if (typeof value === "number") return String(Math.ceil(Math.log2(Math.abs(value) + 1)));
  if (Array.isArray(value)) return `[${Math.ceil(Math.log2(value.length + 1))}]`;
  return "";
}

/** The key of the request's values: their size classes, in order. */
function classesOf(statements: ReadonlyArray<{ values: readonly unknown[] }>): string {
  return statements.map((s) => s.values.map(sizeClass).join(",")).join(";");
}

interface PlanJson {
  Plan?: { "Total Cost"?: number };
}

/** PostgreSQL's estimate of one statement's total cost, with these values. */
async function explain(db: Database, statement: Compiled, signal: AbortSignal | undefined): Promise<number> {
  const text = `EXPLAIN (FORMAT JSON) ${statement.text}`;
  const { rows } = await db.query<{ "QUERY PLAN": unknown }>({ text, values: statement.values }, { signal }).catch((error: unknown) => {
    throw statementFailure(error, signal, { text, values: statement.values, prepared: false });
  });
  const raw = rows[0]?.["QUERY PLAN"];
  const plans = (typeof raw === "string" ? JSON.parse(raw) : raw) as PlanJson[] | undefined;
  return plans?.[0]?.Plan?.["Total Cost"] ?? 0;
}

/**
 * Refuses the statements when PostgreSQL estimates their total cost over `limit`; `estimates`
 * keeps what was learnt for the next request of the same compiled query (none: estimated each time).
 */
export async function checkCost(
  db: Database,
  statements: readonly Compiled[],
  limit: number,
  estimates: CostEstimates | undefined,
  signal: AbortSignal | undefined,
): Promise<void> {
  const key = classesOf(statements);
  let cost = estimates?.get(key);
  if (cost === undefined) {
    cost = 0;
    for (const statement of statements) cost += await explain(db, statement, signal);
    if (estimates) {
      if (estimates.size >= MAX_ESTIMATES) estimates.delete(estimates.keys().next().value as string);
      estimates.set(key, cost);
    }
  }
  if (cost > limit) throw costLimitExceeded(limit, { found: Math.round(cost), setting: LIMIT_SETTINGS.cost });
}
