/**
 * Runs an insert's plan: each object's object-relationship parents first (their keys fill its
 * columns), then the object itself, then its array-relationship children (its keys fill theirs),
 * one INSERT per object in the request's transaction.
 */
import type { Queryable } from "@platform/core";
import type { CompileContext } from "../compiler/context.js";
import { checked, insertStatement, type WrittenRow } from "../compiler/mutation.js";
import { jsonPath } from "../errors/index.js";
import type { InsertObject } from "../plan/types.js";

export interface Inserted {
  /** The object's own row (absent when an upsert's conflict left it untouched). */
  row: WrittenRow | null;
  /** Rows written for it: itself, its parents and its children. */
  affected: number;
}

export async function insertObject(
  ctx: CompileContext,
  tx: Queryable,
  object: InsertObject,
  forced: ReadonlyMap<string, unknown> = new Map(),
): Promise<Inserted> {
  let affected = 0;
  const fromParents = new Map<string, unknown>();
  for (const { rel, object: parentObject } of object.parents) {
    const parent = await insertObject(ctx, tx, parentObject);
    affected += parent.affected;
    for (const [local, remote] of rel.mapping) fromParents.set(local, parent.row?.[remote] ?? null);
  }
  const { rows } = await tx.query<WrittenRow>(insertStatement(ctx, object, fromParents, forced));
  // Hasura reports a failed insert check at the root object's path (`args.objects[i]`).
  checked(rows, jsonPath(object.path.slice(0, object.path.lastIndexOf("args") + 2)));
  const row = rows[0] ?? null;
  if (!row) return { row, affected };
  affected += 1;
  for (const { rel, objects } of object.children) {
    const keys = new Map(rel.mapping.map(([local, remote]) => [remote, row[local]]));
    for (const child of objects) affected += (await insertObject(ctx, tx, child, keys)).affected;
  }
  return { row, affected };
}
