/** How the query modules turn domain values into bound SQL values. */
import { type Sql, sql } from "@platform/core";

/** Stands for the database's clock (`now()`) in inserts and updates. */
export const NOW = Symbol("now");
export type Now = typeof NOW;

/** A bound value, `now()` for NOW, or a jsonb value for objects and arrays. */
export function value(v: unknown): Sql {
  if (v === NOW) return sql`now()`;
  if (v !== null && typeof v === "object" && !(v instanceof Date)) return sql`${JSON.stringify(v)}::jsonb`;
  return sql`${v}`;
}
