/** `order_by` arguments to ORDER BY terms: columns, object relationships, array aggregates. */
import { and, ident, type Sql, sql, trusted } from "@platform/core";
import { fieldNotFound, unexpectedOrderBy } from "../errors/index.js";
import type { TableModel } from "../model/types.js";
import { asList } from "../plan/values.js";
import { aggregateCall } from "./aggregate-call.js";
import { joinCondition, permissionFilter } from "./boolexp.js";
import type { CompileContext } from "./context.js";
import { functionCall, rowValue } from "./functions.js";

export interface OrderTerm {
  expr: Sql;
  direction: Sql;
  /** The column when the term is a plain column of the table itself (for the distinct_on rule). */
  column: string | null;
}

const DIRECTIONS: Record<string, string> = {
  asc: "ASC NULLS LAST",
  asc_nulls_last: "ASC NULLS LAST",
  asc_nulls_first: "ASC NULLS FIRST",
  desc: "DESC NULLS FIRST",
  desc_nulls_first: "DESC NULLS FIRST",
  desc_nulls_last: "DESC NULLS LAST",
};

const AGGREGATES = new Set(["avg", "max", "min", "stddev", "stddev_pop", "stddev_samp", "sum", "var_pop", "var_samp", "variance"]);

function direction(value: unknown): Sql {
  const text = DIRECTIONS[String(value)];
  if (!text) throw unexpectedOrderBy(String(value));
  return trusted(text);
}

/** The rows an order_by key reads: an object relationship, or an array relationship's or table computed field's rows (`<name>_aggregate`). */
function relatedRows(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  key: string,
): { target: TableModel; targetAlias: string; from: Sql; object: boolean } | null {
  const base = key.endsWith("_aggregate") ? key.slice(0, -"_aggregate".length) : null;
  const rel = table.relationships.get(key) ?? (base !== null ? table.relationships.get(base) : undefined);
  const computed = rel || base === null ? undefined : table.computedFields.get(base);
  if (rel) {
    const target = ctx.table(rel.target);
    const targetAlias = ctx.alias();
    const where = and([joinCondition(rel, alias, targetAlias), permissionFilter(ctx, target, targetAlias)]);
    return {
      target,
      targetAlias,
      from: sql`FROM ${ctx.relation(target)} AS ${ident(targetAlias)} WHERE ${where}`,
      object: rel.kind === "object",
    };
  }
  if (computed?.returns.kind !== "table") return null;
  const target = ctx.table(computed.returns.target);
  const targetAlias = ctx.alias();
  const call = functionCall(ctx, computed.call, rowValue(table, alias), {}, []);
  return {
    target,
    targetAlias,
    from: sql`FROM ${call} AS ${ident(targetAlias)} WHERE ${permissionFilter(ctx, target, targetAlias)}`,
    object: false,
  };
}

export function orderTerms(ctx: CompileContext, table: TableModel, alias: string, orderBy: unknown): OrderTerm[] {
  const terms: OrderTerm[] = [];
  for (const item of asList(orderBy)) {
    for (const [key, value] of Object.entries((item ?? {}) as Record<string, unknown>)) {
      if (value === null || value === undefined) continue;
      const column = table.columnByField.get(key);
      if (column) {
        terms.push({ expr: sql`${ident(alias, column.name)}`, direction: direction(value), column: column.name });
        continue;
      }
      const computed = table.computedFields.get(key);
      if (computed?.returns.kind === "scalar") {
        const expr = functionCall(ctx, computed.call, rowValue(table, alias), {}, []);
        terms.push({ expr, direction: direction(value), column: null });
        continue;
      }
      const found = relatedRows(ctx, table, alias, key);
      if (!found) throw fieldNotFound(key, `${table.typeName}_order_by`);
      const { target, targetAlias, from } = found;
      if (found.object) {
        for (const nested of orderTerms(ctx, target, targetAlias, value)) {
          terms.push({ expr: sql`(SELECT ${nested.expr} ${from} LIMIT 1)`, direction: nested.direction, column: null });
        }
        continue;
      }
      for (const [fn, spec] of Object.entries(value as Record<string, unknown>)) {
        // A null stands for no ordering, as it does on a plain column.
        if (spec === null || spec === undefined) continue;
        if (fn === "count") {
          terms.push({ expr: sql`(SELECT count(*) ${from})`, direction: direction(spec), column: null });
          continue;
        }
        if (!AGGREGATES.has(fn)) throw fieldNotFound(fn, `${target.typeName}_aggregate_order_by`);
        for (const [field, dir] of Object.entries(spec as Record<string, unknown>)) {
          if (dir === null || dir === undefined) continue;
          const col = target.columnByField.get(field);
          if (!col) throw fieldNotFound(field, `${target.typeName}_${fn}_order_by`);
          terms.push({
            expr: sql`(SELECT ${aggregateCall(fn, sql`${ident(targetAlias, col.name)}`, col.pgType)} ${from})`,
            direction: direction(dir),
            column: null,
          });
        }
      }
    }
  }
  return terms;
}
