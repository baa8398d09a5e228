/**
 * SQL functions against Hasura's rules: which functions can be computed fields of a table and
 * which can be tracked, and how their arguments map to GraphQL (reference: Hasura's computed
 * fields and custom functions docs). Pure functions of the catalog's signatures, shared by the
 * metadata operations (to refuse bad definitions) and the model build (to expose good ones).
 */
import type { PgFunction, PgFunctionArg } from "../catalog/functions.js";
import type { QualifiedTable } from "../metadata/types.js";
import { scalarName } from "./scalars.js";
import type { FunctionArgModel } from "./types.js";

export interface ComputedFieldDefinition {
  function: QualifiedTable;
  table_argument?: string | null;
  session_argument?: string | null;
}

export interface FunctionConfiguration {
  custom_name?: string;
  custom_root_fields?: { function?: string | null; function_aggregate?: string | null };
  session_argument?: string;
  exposed_as?: "query" | "mutation";
}

export type Resolution<T> = { kind: "missing" } | { kind: "overloaded" } | { kind: "invalid"; reasons: string[] } | ({ kind: "ok" } & T);

export interface ComputedFieldShape {
  fn: PgFunction;
  args: FunctionArgModel[];
  returns: { kind: "scalar"; pgType: string } | { kind: "table"; target: QualifiedTable };
}

export interface TrackedFunctionShape {
  fn: PgFunction;
  args: FunctionArgModel[];
  returnTable: QualifiedTable;
  exposedAs: "query" | "mutation";
}

/** Hasura's `<<>` of a qualified name: bare in public, `schema.name` elsewhere, in double quotes. */
export function label(name: QualifiedTable): string {
  return `"${name.schema === "public" ? name.name : `${name.schema}.${name.name}`}"`;
}

function single(overloads: PgFunction[] | undefined): Resolution<{ fn: PgFunction }> {
  if (!overloads || overloads.length === 0) return { kind: "missing" };
  if (overloads.length > 1) return { kind: "overloaded" };
  return { kind: "ok", fn: overloads[0] as PgFunction };
}

const JSON_TYPES = new Set(["json", "jsonb"]);
const SCALAR_KINDS = new Set(["b", "d", "e", "r", "m"]);

/**
 * The GraphQL scalar of a function argument: Hasura's column scalars, and `<type>_scalar` for a
 * row type (a table's own name is its object type).
 */
export function argumentScalar(arg: Pick<PgFunctionArg, "type" | "typeKind">): string {
  return arg.typeKind === "c" ? `${arg.type}_scalar` : scalarName(arg.type);
}

/** The user-provided arguments and the implicit ones, in SQL order; unnamed ones become `arg_<n>`. */
function argumentModels(fn: PgFunction, tableIndex: number | null, sessionIndex: number | null): FunctionArgModel[] {
  let positional = 0;
  return fn.args.map((arg, i): FunctionArgModel => {
    if (i === tableIndex) return { kind: "table", sqlName: arg.name };
    if (i === sessionIndex) return { kind: "session", sqlName: arg.name, pgType: arg.type, typeSchema: arg.typeSchema };
    const name = arg.name ?? `arg_${++positional}`;
    return {
      kind: "input",
      name,
      sqlName: arg.name,
      pgType: arg.type,
      typeSchema: arg.typeSchema,
      scalar: argumentScalar(arg),
      hasDefault: arg.hasDefault,
    };
  });
}

function typeLabel(arg: PgFunctionArg): string {
  return `"${arg.typeSchema}.${arg.type}"`;
}

/** Whether `fn` can be the computed field `name` of `table`, and how it is called. */
export function resolveComputedField(
  overloads: PgFunction[] | undefined,
  table: QualifiedTable,
  definition: ComputedFieldDefinition,
  isTracked: (table: QualifiedTable) => boolean,
): Resolution<ComputedFieldShape> {
  const found = single(overloads);
  if (found.kind !== "ok") return found;
  const fn = found.fn;
  const fnLabel = label(fn);
  const reasons: string[] = [];
  if (fn.volatility === "volatile") reasons.push(`the function ${fnLabel} is of type VOLATILE; cannot be added as a computed field`);
  if (!fn.inputOnly) reasons.push(`the function ${fnLabel} has arguments that are not IN arguments`);

  let tableIndex: number | null = null;
  const tableArgument = definition.table_argument ?? null;
  if (tableArgument !== null) {
    const index = fn.args.findIndex((a) => a.name === tableArgument);
    if (index < 0) reasons.push(`"${tableArgument}" is not an input argument of ${fnLabel} function`);
    else tableIndex = index;
  } else if (fn.args.length === 0) reasons.push(`the function ${fnLabel} has no input arguments`);
  else tableIndex = 0;
  if (tableIndex !== null) {
    const arg = fn.args[tableIndex] as PgFunctionArg;
    const which = tableArgument === null ? "first argument" : `"${tableArgument}" argument`;
    if (arg.typeKind !== "c") reasons.push(`${which} of the function ${fnLabel} is not COMPOSITE type`);
    if (arg.table?.schema !== table.schema || arg.table?.name !== table.name) {
      reasons.push(
        `${which} of the function ${fnLabel} of type ${typeLabel(arg)} is not the table to which the computed field is being added`,
      );
    }
  }

  let sessionIndex: number | null = null;
  const sessionArgument = definition.session_argument ?? null;
  if (sessionArgument !== null) {
    const index = fn.args.findIndex((a) => a.name === sessionArgument);
    if (index < 0) reasons.push(`"${sessionArgument}" is not an input argument of ${fnLabel} function`);
    else if (index === tableIndex) reasons.push(`"${sessionArgument}" can not be used as both table and session argument`);
    else if (!JSON_TYPES.has(fn.args[index]?.type ?? ""))
      reasons.push(`"${sessionArgument}" argument of the function ${fnLabel} is not of type json`);
    else sessionIndex = index;
  }

  let returns: ComputedFieldShape["returns"] | null = null;
  if (fn.returnsSet && fn.returnTable) {
    if (isTracked(fn.returnTable)) returns = { kind: "table", target: fn.returnTable };
    else reasons.push(`the function ${fnLabel} returning set of table ${label(fn.returnTable)} is not tracked or not found in database`);
  } else if (!fn.returnsSet && SCALAR_KINDS.has(fn.returnTypeKind) && fn.returnType !== "void") {
    returns = { kind: "scalar", pgType: fn.returnType };
  } else {
    reasons.push(`the function ${fnLabel} does not return a "BASE" type or a "SETOF" table`);
  }
  if (reasons.length > 0 || returns === null) return { kind: "invalid", reasons };
  return { kind: "ok", fn, args: argumentModels(fn, tableIndex, sessionIndex), returns };
}

/** Whether `fn` can be tracked with this configuration, and how it is called. */
export function resolveTrackedFunction(
  overloads: PgFunction[] | undefined,
  configuration: FunctionConfiguration,
  isTracked: (table: QualifiedTable) => boolean,
): Resolution<TrackedFunctionShape> {
  const found = single(overloads);
  if (found.kind !== "ok") return found;
  const fn = found.fn;
  const reasons: string[] = [];
  if (!fn.inputOnly) reasons.push("the function has arguments that are not IN arguments");
  if (fn.returnTypeKind !== "c") reasons.push(`the function does not return a "COMPOSITE" type`);
  if (!fn.returnTable) reasons.push("the function does not return a table");
  else if (!isTracked(fn.returnTable)) reasons.push(`the function returns a table ${label(fn.returnTable)} that is not tracked`);
  let sessionIndex: number | null = null;
  const session = configuration.session_argument;
  if (session !== undefined) {
    const index = fn.args.findIndex((a) => a.name === session);
    if (index < 0) reasons.push(`given session argument "${session}" not the input argument of the function`);
    else if (!JSON_TYPES.has(fn.args[index]?.type ?? "")) reasons.push(`given session argument "${session}" is not of type json`);
    else sessionIndex = index;
  }
  const exposedAs = configuration.exposed_as ?? (fn.volatility === "volatile" ? "mutation" : "query");
  if (exposedAs === "mutation" && fn.volatility !== "volatile") reasons.push(`only "VOLATILE" functions can be tracked as mutations`);
  if (reasons.length > 0 || !fn.returnTable) return { kind: "invalid", reasons };
  return { kind: "ok", fn, args: argumentModels(fn, null, sessionIndex), returnTable: fn.returnTable, exposedAs };
}

/** Hasura's wording for a list of reasons: one after "because", several as bullets. */
export function becauseOf(prefix: string, reasons: readonly string[]): string {
  if (reasons.length === 1) return `${prefix} because ${reasons[0]}`;
  return `${prefix} for the following reasons:\n${reasons.map((r) => `  • ${r}\n`).join("")}`;
}
