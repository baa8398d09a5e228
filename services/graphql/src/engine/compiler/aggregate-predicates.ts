/**
 * Aggregation predicates in a bool exp: `{articles_aggregate: {count: {predicate: {_gt: 1},
 * filter, distinct, arguments}}}` compares one aggregate over the related rows (those the
 * role may read, narrowed by `filter`) with the predicate's comparison.
 */
import { and, ident, type Sql, sql, trusted } from "@platform/core";
import { notOnePredicate, unexpectedPredicateArguments } from "../errors/index.js";
import type { RelationshipModel } from "../model/types.js";
import { PREDICATE_FUNCTIONS, type PredicateFunction, scalarColumn } from "../schema/aggregate-predicates.js";
import { compareExpression, compileBoolExp, type ExpSource, joinCondition, permissionFilter } from "./boolexp.js";
import type { CompileContext } from "./context.js";
import { countExpression } from "./select.js";

interface PredicateInput {
  arguments?: unknown;
  distinct?: unknown;
  filter?: unknown;
  predicate?: unknown;
}

export function aggregatePredicateExp(ctx: CompileContext, alias: string, rel: RelationshipModel, value: unknown, source: ExpSource): Sql {
  const entries = Object.entries((value ?? {}) as Record<string, PredicateInput | null>).filter(([, v]) => v !== null && v !== undefined);
  const [entry] = entries;
  if (entries.length !== 1 || !entry || !PREDICATE_FUNCTIONS.includes(entry[0] as PredicateFunction)) throw notOnePredicate();
  const fn = entry[0] as PredicateFunction;
  const input = entry[1] as PredicateInput;
  const target = ctx.table(rel.target);
  const targetAlias = ctx.alias();
  const distinct = input.distinct === true;
  let aggregate: Sql;
  if (fn === "count") aggregate = countExpression(target, targetAlias, input.arguments, distinct);
  else {
    const column = target.columnByField.get(String(input.arguments));
    if (!column) throw unexpectedPredicateArguments(String(input.arguments), fn);
    aggregate = sql`${trusted(fn)}(${distinct ? sql`DISTINCT ` : sql``}${ident(targetAlias, column.name)})`;
  }
  const where = and([
    joinCondition(rel, alias, targetAlias),
    // As relationship filters: a user's predicate counts only rows the role may read.
    source === "permission" ? sql`true` : permissionFilter(ctx, target, targetAlias),
    compileBoolExp(ctx, target, targetAlias, input.filter, source),
  ]);
  const subquery = sql`(SELECT ${aggregate} FROM ${ctx.relation(target)} AS ${ident(targetAlias)} WHERE ${where})`;
  return compareExpression(ctx, target, targetAlias, scalarColumn(fn === "count" ? "int4" : "bool"), subquery, input.predicate, source);
}
