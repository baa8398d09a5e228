/**
 * `pg_track_tables` and `pg_untrack_tables` (https://hasura.io/docs/latest/api-reference/metadata-api/table-view/#metadata-pg-track-tables):
 * track_table (untrack_table) for each entry of `tables`, one after another. A table that cannot
 * be tracked is a warning (`track-table-failed`, with the metadata object it names) and the others
 * go on; with `allow_warnings: false` any warning refuses the whole command
 * (`metadata-warnings`), and when every table fails it is refused anyway (`invalid-configuration`).
 * Hasura tracks them in one schema cache build, so a missing table is worded as the inconsistency
 * it would be there.
 */
import { allTablesFailed, HasuraError, metadataWarnings } from "../errors/index.js";
import { argsObject, at, isObject, type Json, optionalBoolean, parseFailed, qualifiedTable, requireKey } from "./args.js";
import { ARGS, type Operation } from "./edit.js";
import { trackTable, untrackTable } from "./tables.js";
import { DEFAULT_SOURCE } from "./types.js";

function bulkOf(single: Operation, kind: "track" | "untrack"): Operation {
  return (metadata, raw, catalog, context) => {
    const args = argsObject(raw, ARGS);
    const tables = requireKey(args, "tables", ARGS);
    if (!Array.isArray(tables)) throw parseFailed("parsing [] failed, expected Array", at(ARGS, "tables"));
    const allowWarnings = optionalBoolean(args, "allow_warnings", ARGS) ?? true;
    let next = metadata;
    const warnings: Json[] = [];
    for (const [i, entry] of tables.entries()) {
      try {
        next = single(next, entry, catalog, context).metadata;
      } catch (error) {
        if (!(error instanceof HasuraError)) throw error;
        const object = isObject(entry) ? entry : {};
        const table = qualifiedTable(object.table ?? entry, at(at(ARGS, "tables"), i));
        const source = typeof object.source === "string" ? object.source : DEFAULT_SOURCE;
        const message = kind === "track" && error.hasuraCode === "not-exists" ? `Inconsistent object: ${error.message}` : error.message;
        warnings.push({
          code: `${kind}-table-failed`,
          message,
          name: `table ${table.schema}.${table.name} in source ${source}`,
          type: "table",
        });
      }
    }
    if (tables.length > 0 && warnings.length === tables.length) throw allTablesFailed(kind, warnings);
    if (warnings.length > 0 && !allowWarnings) throw metadataWarnings(warnings);
    return { metadata: next, result: { message: "success", ...(warnings.length > 0 ? { warnings } : {}) } };
  };
}

export const trackTables = bulkOf(trackTable, "track");
export const untrackTables = bulkOf(untrackTable, "untrack");
