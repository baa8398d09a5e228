/**
 * Errors of the values a query or mutation passes: literals and variables checked against their
 * input types (as Hasura's parsers in server/src-lib/Hasura/GraphQL/Parser/Internal/Scalars.hs,
 * TypeChecking.hs and Parser.hs, and Aeson for column values), then what the schema's argument
 * parsers refuse (server/src-lib/Hasura/GraphQL/Schema/: Select.hs, OrderBy.hs, BoolExp.hs,
 * Update.hs, Mutation.hs) and what Hasura's insert refuses (server/src-lib/Hasura/GraphQL/Execute/Insert.hs).
 */
import { type HasuraCode, HasuraError } from "./hasura-error.js";

/**
 * A value's fault, before it has a path: the coercion code finds it both in literals (reported
 * through graphql-js validation) and in variables (thrown as a HasuraError by `problemError`).
 */
export interface Problem {
  code: HasuraCode;
  message: string;
}

export function problemError(problem: Problem, path: string): HasuraError {
  return new HasuraError(problem.code, problem.message, path);
}

// --- Problems of one value.

/** `found` as Hasura describes it: `an integer`, `a string`, `the string "abc"`... */
export function typeMismatch(type: string, expected: string, found: string): Problem {
  return { code: "validation-failed", message: `expected ${expected} for type '${type}', but found ${found}` };
}

export function unexpectedNull(type: string): Problem {
  return { code: "validation-failed", message: `unexpected null value for type '${type}'` };
}

export function nullForList(): Problem {
  return { code: "validation-failed", message: "expected a list, but found null" };
}

export function notAnEnumValue(type: string, values: readonly string[], found: string): Problem {
  return {
    code: "validation-failed",
    message: `expected one of the values [${values.map((v) => `'${v}'`).join(", ")}] for type '${type}', but found '${found}'`,
  };
}

/** `value` as Hasura's message quotes it (JSON, cut at 40 characters). */
export function integerOutOfRange(type: string, bits: number, value: string): Problem {
  return { code: "validation-failed", message: `the value ${value} is out of range for type '${type}' (a ${bits}-bit integer)` };
}

/** Aeson's failure for a column value of the wrong JSON type: `parsing Bool failed, expected Boolean, but encountered String`. */
export function jsonTypeMismatch(what: string, expected: string, encountered: string): Problem {
  return { code: "parse-failed", message: `parsing ${what} failed, expected ${expected}, but encountered ${encountered}` };
}

/** `value` as Haskell's `show` prints a Scientific (`2.147483648e9`). */
export function integerOutOfBounds(value: string): Problem {
  return {
    code: "parse-failed",
    message: `The value ${value} lies outside the bounds or is not an integer. Maybe it is a float, or is there integer overflow?`,
  };
}

export function floatOutOfBounds(value: string): Problem {
  return { code: "parse-failed", message: `The value ${value} lies outside the bounds. Is it overflowing the float bounds?` };
}

// --- Arguments of selections (Select.hs, OrderBy.hs, BoolExp.hs and its AggregationPredicates.hs).

/** A name that is not a value of the enum (`author_select_column`, `author_constraint`). */
export function unexpectedEnumValue(value: string, type: string, path = "$"): HasuraError {
  return new HasuraError("validation-failed", `unexpected value "${value}" for enum: '${type}'`, path);
}

export function distinctOnNotOrderBy(path: string): HasuraError {
  return new HasuraError("validation-failed", `"distinct_on" columns must match initial "order_by" columns`, path);
}

export function unexpectedOrderBy(value: string): HasuraError {
  return new HasuraError("validation-failed", `unexpected order_by value "${value}"`);
}

/** A null operand of a comparison other than `_is_null` (double quotes here, unlike `unexpectedNull`). */
export function nullComparison(type: string): HasuraError {
  return new HasuraError("validation-failed", `unexpected null value for type "${type}"`);
}

/** A column comparison (`_ceq`...) naming a column the table does not have. */
export function noSuchColumn(name: string): HasuraError {
  return new HasuraError("validation-failed", `no such column: "${name}"`);
}

export function notOnePredicate(): HasuraError {
  return new HasuraError("validation-failed", "exactly one predicate should be specified");
}

export function unexpectedPredicateArguments(value: string, fn: string): HasuraError {
  return new HasuraError("validation-failed", `unexpected value "${value}" for the ${fn} arguments`);
}

/** The `path` argument of a json/jsonb column field that Hasura's JSON path parser refuses. */
export function jsonPathParseError(text: string, path: string): HasuraError {
  return new HasuraError(
    "validation-failed",
    `parse json path error: ${text}. Accept letters, digits, underscore (_) or hyphen (-) only. Use quotes enclosed in bracket (["..."]) if there is any special character`,
    path,
  );
}

/** Function arguments (`mkFunctionArgs`): `path` is the field's `args.args`. */
export function requiredArgumentOmitted(path: string): HasuraError {
  return new HasuraError("not-supported", "Non default arguments cannot be omitted", path);
}

export function positionalArgumentOmitted(path: string): HasuraError {
  return new HasuraError("not-supported", "Only last set of positional arguments can be omitted", path);
}

// --- Mutations (Insert.hs; Update.hs; on_conflict in Mutation.hs).

export function objectRelationshipDetermined(relationship: string, column: string, path: string): HasuraError {
  return new HasuraError(
    "validation-failed",
    `cannot insert object relationship "${relationship}" as "${column}" column values are already determined`,
    path,
  );
}

export function columnsDeterminedByParent(field: string, path: string): HasuraError {
  return new HasuraError(
    "validation-failed",
    `cannot insert "${field}" columns as their values are already being determined by parent insert`,
    path,
  );
}

/** on_conflict's `update_columns` naming a column the role may not update. */
export function erroneousColumnName(path: string): HasuraError {
  return new HasuraError("validation-failed", "erroneous column name", path);
}

export function columnInSeveralOperators(columns: readonly string[], path: string): HasuraError {
  return new HasuraError("validation-failed", `Column found in multiple operators: [${columns.join(", ")}].`, path);
}

/** The legacy `insert` query (server/src-lib/Hasura/RQL/DML/Insert.hs) with a row that is not an object. */
export function rowNotAnObject(): HasuraError {
  return new HasuraError("parse-failed", "expecting an object for each row", "$.args.objects");
}
