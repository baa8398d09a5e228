/** What one role may read of a table: the select permission resolved against the model (admin reads all). */
import type { BoolExp } from "../metadata/types.js";
import { ADMIN_ROLE } from "../request/session.js";
import type { ColumnModel, Model, RelationshipModel, TableModel } from "./types.js";

export interface SelectAccess {
  columns: ColumnModel[];
  columnNames: Set<string>;
  /** Row filter (metadata bool exp, may reference session variables); null = all rows. */
  filter: BoolExp | null;
  limit: number | null;
  aggregations: boolean;
  rootFields: { select: boolean; byPk: boolean; aggregate: boolean; stream: boolean };
  subscriptionFields: { select: boolean; byPk: boolean; aggregate: boolean; stream: boolean };
}

function allowed(list: string[] | undefined, name: string): boolean {
  return list === undefined || list.includes(name);
}

export function selectAccess(table: TableModel, role: string): SelectAccess | null {
  if (role === ADMIN_ROLE) {
    const all = { select: true, byPk: table.primaryKey !== null, aggregate: true, stream: true };
    return {
      columns: table.columns,
      columnNames: new Set(table.columns.map((c) => c.name)),
      filter: null,
      limit: null,
      aggregations: true,
      rootFields: all,
      subscriptionFields: all,
    };
  }
  const perm = table.permissions.select.get(role);
  if (!perm) return null;
  const columns = perm.columns === "*" ? table.columns : table.columns.filter((c) => (perm.columns as string[]).includes(c.name));
  const names = new Set(columns.map((c) => c.name));
  const byPk = table.primaryKey?.every((c) => names.has(c)) ?? false;
  const fields = (list: string[] | undefined) => ({
    select: allowed(list, "select"),
    byPk: byPk && allowed(list, "select_by_pk"),
    aggregate: perm.allow_aggregations === true && allowed(list, "select_aggregate"),
    stream: allowed(list, "select_stream"),
  });
  return {
    columns,
    columnNames: names,
    filter: perm.filter && Object.keys(perm.filter).length > 0 ? perm.filter : null,
    limit: typeof perm.limit === "number" ? perm.limit : null,
    aggregations: perm.allow_aggregations === true,
    rootFields: fields(perm.query_root_fields),
    subscriptionFields: fields(perm.subscription_root_fields),
  };
}

/** Relationships a role can follow: the target table is readable by the role. */
export function visibleRelationships(model: Model, table: TableModel, role: string): RelationshipModel[] {
  return [...table.relationships.values()].filter((rel) => {
    const target = model.tables.get(rel.target);
    return target !== undefined && selectAccess(target, role) !== null;
  });
}

export interface WriteAccess {
  /** Columns the role may set (preset columns excluded). */
  columns: ColumnModel[];
  /** Row filter (update, delete) or null. */
  filter: BoolExp | null;
  /** Post-write check (insert, update) or null. */
  check: BoolExp | null;
  /** Column presets: values or session variable names. */
  presets: Record<string, unknown>;
  backendOnly: boolean;
}

function writable(table: TableModel, columns: string[] | "*" | undefined, presets: Record<string, unknown>): ColumnModel[] {
  const chosen = columns === undefined || columns === "*" ? table.columns : table.columns.filter((c) => columns.includes(c.name));
  return chosen.filter((c) => !c.generated && !(c.name in presets));
}

const nonEmpty = (exp: BoolExp | null | undefined): BoolExp | null => (exp && Object.keys(exp).length > 0 ? exp : null);

export function insertAccess(table: TableModel, role: string): WriteAccess | null {
  if (role === ADMIN_ROLE) return { columns: writable(table, "*", {}), filter: null, check: null, presets: {}, backendOnly: false };
  const perm = table.permissions.insert.get(role);
  if (!perm) return null;
  const presets = perm.set ?? {};
  return {
    columns: writable(table, perm.columns, presets),
    filter: null,
    check: nonEmpty(perm.check),
    presets,
    backendOnly: perm.backend_only === true,
  };
}

export function updateAccess(table: TableModel, role: string): WriteAccess | null {
  if (role === ADMIN_ROLE) return { columns: writable(table, "*", {}), filter: null, check: null, presets: {}, backendOnly: false };
  const perm = table.permissions.update.get(role);
  if (!perm) return null;
  const presets = perm.set ?? {};
  return {
    columns: writable(table, perm.columns, presets),
    filter: nonEmpty(perm.filter),
    check: nonEmpty(perm.check),
    presets,
    backendOnly: perm.backend_only === true,
  };
}

export function deleteAccess(table: TableModel, role: string): WriteAccess | null {
  if (role === ADMIN_ROLE) return { columns: [], filter: null, check: null, presets: {}, backendOnly: false };
  const perm = table.permissions.delete.get(role);
  if (!perm) return null;
  return { columns: [], filter: nonEmpty(perm.filter), check: null, presets: {}, backendOnly: perm.backend_only === true };
}
