/**
 * What one role may use of computed fields and tracked functions (admin uses all). A scalar
 * computed field needs the table's select permission to list it in `computed_fields`; a table
 * computed field and a tracked function follow the select permission of the table they return
 * (Hasura's inferred function permissions). Functions exposed as mutations also need a
 * function permission for the role.
 */
import { ADMIN_ROLE } from "../request/session.js";
import { selectAccess } from "./access.js";
import type { ComputedFieldModel, FunctionModel, Model, TableModel } from "./types.js";

export function visibleComputedFields(model: Model, table: TableModel, role: string): ComputedFieldModel[] {
  if (table.computedFields.size === 0 || !selectAccess(table, role)) return [];
  const listed = role === ADMIN_ROLE ? null : (table.permissions.select.get(role)?.computed_fields ?? []);
  return [...table.computedFields.values()].filter((cf) => {
    if (cf.returns.kind === "scalar") return listed === null || listed.includes(cf.name);
    const target = model.tables.get(cf.returns.target);
    return target !== undefined && selectAccess(target, role) !== null;
  });
}

/** Computed fields usable in `where` and `order_by`: those without arguments of their own. */
export function argumentFree(cf: ComputedFieldModel): boolean {
  return cf.call.args.every((a) => a.kind !== "input");
}

export function functionVisible(model: Model, fn: FunctionModel, role: string): boolean {
  const table = model.tables.get(fn.returnTable);
  if (!table || !selectAccess(table, role)) return false;
  return role === ADMIN_ROLE || fn.exposedAs === "query" || fn.permissions.has(role);
}
