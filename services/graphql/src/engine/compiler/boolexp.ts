/**
 * Boolean expressions to SQL: GraphQL `where` arguments (keys are GraphQL field names) and
 * permission filters from metadata (keys are column names, values may name session
 * variables, legacy `$`-prefixed operators and column comparisons are allowed).
 */
import { and, ident, join, type Sql, sql, trusted } from "@platform/core";
import { fieldNotFound, noSuchColumn, nullComparison, patternLengthLimitExceeded, patternTooLong } from "../errors/index.js";
import { JsonNumber, jsonText, toParam } from "../json/number.js";
import { LIMIT_SETTINGS } from "../limits/statements.js";
import type { ColumnModel, RelationshipModel, TableModel } from "../model/types.js";
import { asList } from "../plan/values.js";
import { aggregatePredicateExp } from "./aggregate-predicates.js";
import { arrayParam, arrayValue } from "./arrays.js";
import { type CompileContext, isSessionVariable } from "./context.js";
import { computedFieldExp } from "./functions.js";
import { mapValue } from "./slot.js";

export type ExpSource = "graphql" | "permission";

const TRUE = sql`true`;
const FALSE = sql`false`;

const SIMPLE: Record<string, string> = {
  _eq: "=",
  _neq: "<>",
  // Permissions may spell it `_ne` / `$ne`, as Hasura's metadata parser accepts.
  _ne: "<>",
  _gt: ">",
  _lt: "<",
  _gte: ">=",
  _lte: "<=",
  _like: "LIKE",
  _nlike: "NOT LIKE",
  _ilike: "ILIKE",
  _nilike: "NOT ILIKE",
  _similar: "SIMILAR TO",
  _nsimilar: "NOT SIMILAR TO",
  _regex: "~",
  _nregex: "!~",
  _iregex: "~*",
  _niregex: "!~*",
  _contains: "@>",
  _contained_in: "<@",
  _has_key: "?",
  _has_keys_any: "?|",
  _has_keys_all: "?&",
};

/**
 * The table a permission's expression is written for: a column comparison's `["$", column]`
 * names one of its columns, even inside relationships and `_exists`.
 */
interface Root {
  table: TableModel;
  alias: string;
}

const COLUMN_COMPARE: Record<string, string> = { _ceq: "=", _cne: "<>", _cneq: "<>", _cgt: ">", _clt: "<", _cgte: ">=", _clte: "<=" };

/** Operator text from the fixed tables above, never from the request. */
function op(text: string): Sql {
  return trusted(` ${text} `);
}

function normalise(key: string): string {
  return key.startsWith("$") ? `_${key.slice(1)}` : key;
}

export function compileBoolExp(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  exp: unknown,
  source: ExpSource,
  root: Root = { table, alias },
): Sql {
  if (exp === null || exp === undefined || typeof exp !== "object" || Array.isArray(exp)) return TRUE;
  const parts: Sql[] = [];
  for (const [rawKey, value] of Object.entries(exp as Record<string, unknown>)) {
    const key = normalise(rawKey);
    if (key === "_and") parts.push(and(asList(value).map((e) => compileBoolExp(ctx, table, alias, e, source, root))));
    else if (key === "_or") {
      const list = asList(value);
      parts.push(
        list.length === 0
          ? FALSE
          : sql`(${join(
              list.map((e) => sql`(${compileBoolExp(ctx, table, alias, e, source, root)})`),
              sql` OR `,
            )})`,
      );
    } else if (key === "_not") parts.push(sql`NOT (${compileBoolExp(ctx, table, alias, value, source, root)})`);
    else if (key === "_exists") parts.push(existsExp(ctx, value, source, root));
    else {
      const column =
        source === "graphql"
          ? (table.columnByField.get(key) ?? null)
          : (table.columnByName.get(key) ?? table.columnByField.get(key) ?? null);
      if (column) parts.push(columnExp(ctx, table, alias, column, value, source, root));
      else {
        const rel = table.relationships.get(key);
        const computed = table.computedFields.get(key);
        const aggregated = key.endsWith("_aggregate") ? table.relationships.get(key.slice(0, -"_aggregate".length)) : undefined;
        if (rel) parts.push(relationshipExp(ctx, table, alias, rel, value, source, root));
        else if (computed) parts.push(computedFieldExp(ctx, table, alias, computed, value, source, root));
        else if (aggregated?.kind === "array") parts.push(aggregatePredicateExp(ctx, alias, aggregated, value, source));
        else throw fieldNotFound(key, `${table.typeName}_bool_exp`);
      }
    }
  }
  return and(parts);
}

function existsExp(ctx: CompileContext, value: unknown, source: ExpSource, root: Root): Sql {
  const spec = (value ?? {}) as { _table?: { schema: string; name: string } | string; _where?: unknown };
  const t = typeof spec._table === "string" ? { schema: "public", name: spec._table } : spec._table;
  if (!t) return TRUE;
  const table = ctx.table(`${t.schema}.${t.name}`);
  const alias = ctx.alias();
  return sql`EXISTS (SELECT 1 FROM ${ctx.relation(table)} AS ${ident(alias)} WHERE ${compileBoolExp(ctx, table, alias, spec._where, source, root)})`;
}

/** A relationship in a filter: some related row (readable by the role) matches. */
function relationshipExp(
  ctx: CompileContext,
  _table: TableModel,
  alias: string,
  rel: RelationshipModel,
  value: unknown,
  source: ExpSource,
  root: Root,
): Sql {
  const target = ctx.table(rel.target);
  const targetAlias = ctx.alias();
  const joinOn = joinCondition(rel, alias, targetAlias);
  // Permission rules are evaluated with full access to the related table; user filters see only what the role may read.
  const permission = source === "permission" ? sql`true` : permissionFilter(ctx, target, targetAlias);
  const nested = compileBoolExp(ctx, target, targetAlias, value, source, root);
  return sql`EXISTS (SELECT 1 FROM ${ctx.relation(target)} AS ${ident(targetAlias)} WHERE ${and([joinOn, permission, nested])})`;
}

export function joinCondition(rel: Pick<RelationshipModel, "mapping">, parentAlias: string, targetAlias: string): Sql {
  return and(rel.mapping.map(([local, remote]) => sql`${ident(targetAlias, remote)} = ${ident(parentAlias, local)}`));
}

/** The role's select filter on a table, or true for the admin / an unfiltered permission. */
export function permissionFilter(ctx: CompileContext, table: TableModel, alias: string): Sql {
  const filter = ctx.access(table).filter;
  return filter ? compileBoolExp(ctx, table, alias, filter, "permission") : TRUE;
}

function operand(ctx: CompileContext, column: ColumnModel, value: unknown, source: ExpSource): Sql {
  if (source === "permission" && isSessionVariable(value)) return sql`${ctx.sessionValue(value)}::${typeName(column)}`;
  // An array column's operand is a whole array (`_eq`, `_contains`, each `_in` item): one array parameter.
  if (column.elementType) return arrayValue(column, value);
  return jsonAware(column.pgType, value);
}

/** A bound value; for json/jsonb columns every GraphQL value, a string too, is JSON (`"x"` is the JSON string). */
export function jsonAware(pgType: string, value: unknown): Sql {
  const json = pgType === "json" || pgType === "jsonb";
  return sql`${mapValue(value, (v) => (json || (v !== null && typeof v === "object" && !(v instanceof JsonNumber)) ? jsonText(v) : toParam(v)))}`;
}

/** A text (or text[]) operand of the jsonb key operators; a session variable holds a Postgres array literal. */
function keyOperand(ctx: CompileContext, value: unknown, source: ExpSource, array: boolean): Sql {
  if (source === "permission" && isSessionVariable(value))
    return array ? sql`${ctx.sessionValue(value)}::text[]` : sql`${ctx.sessionValue(value)}::text`;
  return array ? sql`${asList(value).map((v) => mapValue(v, String))}::text[]` : sql`${mapValue(value, String)}::text`;
}

/** A column's type in SQL (`"int4"`). */
export function typeName(column: ColumnModel): Sql {
  return sql`${ident(column.pgType)}`;
}

/** A comparison expression (`{_gt: 1}`) applied to any SQL expression of the given column type. */
export function compareExpression(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  column: ColumnModel,
  target: Sql,
  value: unknown,
  source: ExpSource,
): Sql {
  return columnExp(ctx, table, alias, column, value, source, { table, alias }, target);
}

function columnExp(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  column: ColumnModel,
  value: unknown,
  source: ExpSource,
  root: Root,
  /** What is compared instead of the column itself (the column cast by `_cast`). */
  cast?: Sql,
): Sql {
  // Permissions may say `{col: "X-Hasura-User-Id"}` for `{col: {_eq: ...}}`, as Hasura accepts.
  if (value === null || typeof value !== "object" || Array.isArray(value))
    return columnExp(ctx, table, alias, column, { _eq: value }, source, root, cast);
  const target = cast ?? sql`${ident(alias, column.name)}`;
  const parts: Sql[] = [];
  for (const [rawKey, operandValue] of Object.entries(value as Record<string, unknown>)) {
    const key = normalise(rawKey);
    if (operandValue === null && key !== "_is_null") {
      // v1 collapsed a null operand to true; v2 refuses it unless HASURA_GRAPHQL_V1_BOOLEAN_NULL_COLLAPSE is set.
      if (ctx.options.booleanNullCollapse) continue;
      throw nullComparison(column.scalar);
    }
    if (key === "_is_null") parts.push(operandValue ? sql`${target} IS NULL` : sql`${target} IS NOT NULL`);
    else if (key === "_cast") parts.push(castExp(ctx, table, alias, column, target, operandValue, source, root));
    else if (key === "_in" || key === "_nin") parts.push(inList(ctx, target, column, key === "_nin", operandValue, source));
    else if (key === "_has_key") parts.push(sql`${target}${op("?")}${keyOperand(ctx, operandValue, source, false)}`);
    else if (key === "_has_keys_any" || key === "_has_keys_all") {
      parts.push(sql`${target}${op(SIMPLE[key] as string)}${keyOperand(ctx, operandValue, source, true)}`);
    } else if (key === "_contains" || key === "_contained_in") {
      // Arrays (operand already cast to the column's array type) or jsonb.
      const rhs = operand(ctx, column, operandValue, source);
      parts.push(sql`${target}${op(SIMPLE[key] as string)}${rhs}${column.elementType ? sql`` : sql`::jsonb`}`);
    } else if (key in COLUMN_COMPARE) {
      // `"col"` or `["col"]`: a column of the current table; `["$", "col"]`: of the permission's root table.
      const path = Array.isArray(operandValue) ? operandValue : [operandValue];
      const other = String(path[path.length - 1]);
      const { table: otherTable, alias: otherAlias } = path.length === 2 && path[0] === "$" ? root : { table, alias };
      const otherColumn = otherTable.columnByName.get(other) ?? otherTable.columnByField.get(other);
      if (!otherColumn) throw noSuchColumn(other);
      parts.push(sql`${target}${op(COLUMN_COMPARE[key] as string)}${ident(otherAlias, otherColumn.name)}`);
    } else if (key in SIMPLE) {
      const value = PATTERN_OPERATORS.has(key) ? boundedPattern(ctx, key, operandValue) : operandValue;
      parts.push(sql`${target}${op(SIMPLE[key] as string)}${operand(ctx, column, value, source)}`);
    } else throw fieldNotFound(rawKey, `${column.scalar}${column.elementType ? "_array" : ""}_comparison_exp`);
  }
  return and(parts);
}

/** Operators whose operand is a regular expression, compiled by PostgreSQL's regex engine. */
const REGEX_OPERATORS = new Set(["_regex", "_nregex", "_iregex", "_niregex", "_similar", "_nsimilar"]);
const PATTERN_OPERATORS = new Set([...REGEX_OPERATORS, "_like", "_nlike", "_ilike", "_nilike"]);

/**
 * A pattern, refused when longer than the role may send (`patternLength`, every pattern
 * operator) or, for a regular expression, than the database can compile safely (`maxPatternLength`).
 */
function boundedPattern(ctx: CompileContext, operator: string, value: unknown): unknown {
  const { patternLength } = ctx.options;
  const regexLimit = REGEX_OPERATORS.has(operator) ? ctx.options.maxPatternLength : undefined;
  if (patternLength === undefined && regexLimit === undefined) return value;
  return mapValue(value, (v) => {
    if (typeof v !== "string") return v;
    if (patternLength !== undefined && v.length > patternLength)
      throw patternLengthLimitExceeded(patternLength, { found: v.length, setting: LIMIT_SETTINGS.patternLength });
    if (regexLimit !== undefined && v.length > regexLimit) throw patternTooLong(regexLimit);
    return v;
  });
}

/** `_cast: {String: {...}}` on jsonb: the column's text compared with String's operators. */
function castExp(
  ctx: CompileContext,
  table: TableModel,
  alias: string,
  column: ColumnModel,
  target: Sql,
  value: unknown,
  source: ExpSource,
  root: Root,
): Sql {
  const parts: Sql[] = [];
  for (const [type, exp] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    if (type !== "String" || column.pgType !== "jsonb") throw fieldNotFound(type, `${column.scalar}_cast_exp`);
    const text: ColumnModel = { ...column, pgType: "text", scalar: "String", enumTable: null };
    parts.push(columnExp(ctx, table, alias, text, exp, source, root, sql`(${target})::text`));
  }
  return and(parts);
}

function inList(ctx: CompileContext, target: Sql, column: ColumnModel, negate: boolean, value: unknown, source: ExpSource): Sql {
  if (source === "permission" && isSessionVariable(value)) {
    // An array session variable is a Postgres array literal such as {1,2,3}.
    const list = sql`${ctx.sessionValue(value)}::${typeName(column)}[]`;
    return negate ? sql`NOT (${target} = ANY(${list}))` : sql`${target} = ANY(${list})`;
  }
  const items = asList(value);
  if (items.length === 0) return negate ? TRUE : FALSE;
  if (source === "graphql" && !column.elementType) {
    // The request's list is ONE array parameter: its length changes neither the SQL text (one
    // plan serves every length) nor the parameter count (PostgreSQL takes at most 65,535). It
    // is left uncast: PostgreSQL types it from the column (a domain's base type when the domain
    // has no array type, as information_schema's sql_identifier has not).
    const list = sql`${arrayParam({ ...column, elementType: column.pgType }, items)}`;
    return negate ? sql`NOT (${target} = ANY(${list}))` : sql`${target} = ANY(${list})`;
  }
  const list = join(items.map((v) => operand(ctx, column, v, source)));
  return negate ? sql`${target} NOT IN (${list})` : sql`${target} IN (${list})`;
}
