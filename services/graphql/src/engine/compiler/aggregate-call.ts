/** One aggregate function over one column, as `max`/`min`/`sum`/... of aggregate fields and aggregate order_by. */
import { type Sql, sql, trusted } from "@platform/core";

/**
 * `op(column)`. PostgreSQL has no max(uuid)/min(uuid), yet Hasura offers uuid columns in
 * `<table>_max_fields`/`_min_fields` (uuid is one of its comparable types). A uuid's text is 32
 * lower-case hex digits with dashes at fixed places, so under the "C" collation it orders exactly
 * as uuid's own byte order does: the aggregate runs over the text and is cast back.
 */
export function aggregateCall(op: string, column: Sql, pgType: string): Sql {
  if (pgType === "uuid" && (op === "max" || op === "min")) return sql`${trusted(op)}(${column}::text COLLATE "C")::uuid`;
  return sql`${trusted(op)}(${column})`;
}
