/**
 * Faults of the engine itself: states the schema and the compiler should never let a request
 * reach. Hasura answers its own such faults with `unexpected`.
 */
import { HasuraError } from "./hasura-error.js";

export function untrackedTable(key: string): HasuraError {
  return new HasuraError("unexpected", `table ${key} is not tracked`);
}

export function noSelectionSet(field: string): HasuraError {
  return new HasuraError("unexpected", `"${field}" has no selection set`);
}

export function relationshipMissing(name: string): HasuraError {
  return new HasuraError("unexpected", `relationship ${name} missing`);
}

export function computedFieldMissing(name: string): HasuraError {
  return new HasuraError("unexpected", `computed field ${name} missing`);
}

export function unexpectedField(field: string, type: string): HasuraError {
  return new HasuraError("unexpected", `unexpected field "${field}" in type '${type}'`);
}

export function actionMissing(name: string): HasuraError {
  return new HasuraError("unexpected", `action ${name} missing`);
}
