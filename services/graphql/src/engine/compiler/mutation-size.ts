/**
 * The size of each statement a mutation will run, found before any of them runs: every statement
 * the mutation executor sends (an INSERT per object, nested ones included; an UPDATE per set of
 * changes; a DELETE; a function call; the statement answering each field from the rows written)
 * compiled here as it will be, with stand-ins for the values earlier statements give it (which
 * change no statement's shape), and refused when one holds more subqueries than a statement may
 * (limits/statements.ts). A bulk insert of many objects is many small statements and is not
 * refused for their number: each is planned on its own and can be cancelled.
 */
import { checkStatement, type StatementBounds } from "../limits/statements.js";
import type { InsertObject, MutationField } from "../plan/types.js";
import type { CompileContext } from "./context.js";
import { functionRootJson } from "./functions.js";
import { deleteStatement, insertStatement, updateStatement, writtenResponse } from "./mutation.js";

const NONE: ReadonlyMap<string, unknown> = new Map();
/** A written row's text as the answering statement receives it: its value does not change the statement. */
const A_ROW = [""];

function insertSizes(ctx: CompileContext, object: InsertObject, measure: (build: () => unknown) => void): void {
  for (const { object: parent } of object.parents) insertSizes(ctx, parent, measure);
  measure(() => insertStatement(ctx, object, NONE, NONE));
  for (const { objects } of object.children) for (const child of objects) insertSizes(ctx, child, measure);
}

/** Refuses the mutation when one of its statements would hold more subqueries than the bounds let one statement hold. */
export function checkMutationSize(fields: readonly MutationField[], ctx: CompileContext, bounds: StatementBounds): void {
  const measure = (build: () => unknown) => {
    const before = ctx.subqueries;
    build();
    checkStatement(ctx.subqueries - before, bounds);
  };
  for (const f of fields) {
    switch (f.kind) {
      case "function":
        measure(() => functionRootJson(ctx, f));
        break;
      case "delete":
        measure(() => deleteStatement(ctx, f));
        break;
      case "update":
      case "update_many":
        for (const changes of f.kind === "update" ? [f.changes] : f.updates) {
          measure(() => updateStatement(ctx, f.table, changes, f.path));
          measure(() => writtenResponse(ctx, f.table, f.output, A_ROW, 1));
        }
        break;
      case "insert":
        for (const object of f.objects) insertSizes(ctx, object, measure);
        measure(() => writtenResponse(ctx, f.table, f.output, A_ROW, 1));
        break;
      default:
        break;
    }
  }
}
