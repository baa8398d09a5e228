/**
 * Capture of row changes in the writing transaction, as Hasura does it (mkTriggerQ in
 * server/src-lib/Hasura/Backends/Postgres/DDL/EventTrigger.hs): for each operation of each event
 * trigger a row trigger `notify_hasura_<name>_<OP>` (AFTER, FOR EACH ROW) whose function
 * `hdb_catalog.notify_hasura_<name>_<OP>()` calls `hdb_catalog.insert_event_log` with the row's
 * old and new data (the payload columns), an UPDATE only when a listened column changed. A
 * rolled-back write therefore leaves no event.
 *
 * As in Hasura's function, the row's big numbers (bigint, numeric, double precision, money) are
 * sent as strings, which JSON numbers cannot hold exactly, and PostGIS values as GeoJSON
 * (toJSONableExp in server/src-lib/Hasura/Backends/Postgres/Translate/Column.hs); the table is
 * named as the trigger names it, so rows written through a partition carry the parent's name.
 *
 * Differences from Hasura's function, on purpose: each body is made for its operation (INSERT and
 * DELETE compare nothing), and an UPDATE compares the listened columns one by one with IS
 * DISTINCT FROM (as text for types without equality, such as json) instead of a record
 * comparison inside an exception block, which costs a subtransaction per row.
 *
 * `syncCapture` makes the database match the triggers: each function carries a fingerprint of
 * what it was made from (its comment), so instances reloading unchanged metadata change nothing
 * and take no lock on the tables. Removing triggers (`prune`) is left to the instance whose
 * metadata API removed them, as the change signal does; their pending events are archived.
 */
import { createHash } from "node:crypto";
import type { Database, Queryable } from "@platform/core";
import { ensureEventCatalog } from "./catalog.js";
import type { Columns, EventTrigger, Op } from "./triggers.js";

const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;
/** Serialises syncs of the capture triggers between instances. */
const SYNC_LOCK = 0x68646576;
const PREFIX = "notify_hasura_";

/** Types whose values have no equality operator: compared as text. */
const NO_EQUALITY = new Set(["json", "xml", "point", "line", "lseg", "box", "path", "polygon", "circle"]);

export const captureFunctionName = (trigger: string, op: Op) => `${PREFIX}${trigger}_${op}`;

interface Column {
  name: string;
  type: string;
}

/** Types sent as strings, as Hasura's isBigNum lists them. */
const BIG_NUMBERS = new Set(["bigint", "numeric", "double precision", "money"]);
const GEO = new Set(["geometry", "geography"]);

function columnExpression(row: "OLD" | "NEW", name: string, type: string | undefined): string {
  const value = `${row}.${quote(name)}`;
  if (type && BIG_NUMBERS.has(type)) return `${value}::text AS ${quote(name)}`;
  if (type && GEO.has(type)) return `ST_AsGeoJSON(${value})::json AS ${quote(name)}`;
  return value;
}

function payloadExpression(row: "OLD" | "NEW", payload: Columns, columns: Column[]): string {
  const types = new Map(columns.map((c) => [c.name, c.type]));
  const names = payload === "*" ? columns.map((c) => c.name) : payload;
  // A row with nothing to convert is sent whole: columns added later are sent too.
  if (payload === "*" && !columns.some((c) => BIG_NUMBERS.has(c.type) || GEO.has(c.type))) return `row_to_json(${row})`;
  return `(SELECT row_to_json(r) FROM (SELECT ${names.map((c) => columnExpression(row, c, types.get(c))).join(", ")}) r)`;
}

function changedCondition(listened: Columns, columns: Column[]): string {
  const names = listened === "*" ? columns.map((c) => c.name) : listened;
  const types = new Map(columns.map((c) => [c.name, c.type]));
  const parts = names.map((name) => {
    const cast = NO_EQUALITY.has(types.get(name) ?? "") ? "::text" : "";
    return `OLD.${quote(name)}${cast} IS DISTINCT FROM NEW.${quote(name)}${cast}`;
  });
  return parts.length > 0 ? parts.join(" OR ") : "false";
}

/** The function of one operation of a trigger. */
function functionBody(trigger: EventTrigger, op: Op, columns: Column[]): string {
  const spec = trigger.ops[op];
  if (!spec) throw new Error(`no ${op} spec`);
  const oldData = op === "INSERT" ? "NULL" : payloadExpression("OLD", spec.payload, columns);
  const newData = op === "DELETE" ? "NULL" : payloadExpression("NEW", spec.payload, columns);
  const { schema, name } = trigger.table;
  const record = `PERFORM hdb_catalog.insert_event_log(${literal(schema)}, ${literal(name)}, ${literal(trigger.name)}, TG_OP, json_build_object('old', ${oldData}, 'new', ${newData}));`;
  const body = op === "UPDATE" ? `IF ${changedCondition(spec.columns, columns)} THEN ${record} END IF;` : record;
  return `CREATE OR REPLACE FUNCTION hdb_catalog.${quote(captureFunctionName(trigger.name, op))}() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  ${body}
  RETURN NULL;
END;
$fn$`;
}

interface Wanted {
  fn: string;
  op: Op;
  table: string;
  sql: string;
  fingerprint: string;
}

async function columnsOf(q: Queryable, schema: string, table: string): Promise<Column[]> {
  const { rows } = await q.query<Column>({
    text: `SELECT a.attname AS name, format_type(a.atttypid, NULL) AS type FROM pg_catalog.pg_attribute a
      JOIN pg_catalog.pg_class c ON c.oid = a.attrelid JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
      WHERE n.nspname = $1 AND c.relname = $2 AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum`,
    values: [schema, table],
  });
  return rows;
}

/** What the capture triggers should be: one per operation of each trigger. */
async function wanted(q: Queryable, triggers: Iterable<EventTrigger>): Promise<Wanted[]> {
  const out: Wanted[] = [];
  for (const trigger of triggers) {
    const columns = await columnsOf(q, trigger.table.schema, trigger.table.name);
    if (columns.length === 0) continue; // the table is gone: the trigger is inconsistent
    for (const op of Object.keys(trigger.ops) as Op[]) {
      const table = `${quote(trigger.table.schema)}.${quote(trigger.table.name)}`;
      const sql = functionBody(trigger, op, columns);
      const fingerprint = createHash("sha1").update(`${table}\n${sql}`).digest("hex");
      out.push({ fn: captureFunctionName(trigger.name, op), op, table, sql, fingerprint });
    }
  }
  return out;
}

interface Existing {
  fn: string;
  fingerprint: string | null;
  has_trigger: boolean;
}

/** Makes the capture triggers match `triggers`; with `prune`, drops the others and archives their events. */
export async function syncCapture(db: Database, triggers: Iterable<EventTrigger>, prune: boolean): Promise<void> {
  const desired = await wanted(db, triggers);
  if (desired.length > 0) await ensureEventCatalog(db);
  const { rows } = await db.query<Existing>({
    text: `SELECT p.proname AS fn, obj_description(p.oid, 'pg_proc') AS fingerprint,
        EXISTS (SELECT 1 FROM pg_catalog.pg_trigger t WHERE t.tgfoid = p.oid) AS has_trigger
      FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace
      WHERE n.nspname = 'hdb_catalog' AND p.proname LIKE 'notify\\_hasura\\_%'`,
    values: [],
  });
  const existing = new Map(rows.map((r) => [r.fn, r]));
  const stale = desired.filter((w) => {
    const found = existing.get(w.fn);
    return !found || found.fingerprint !== w.fingerprint || !found.has_trigger;
  });
  const keep = new Set(desired.map((w) => w.fn));
  const removed = prune ? rows.filter((r) => !keep.has(r.fn)).map((r) => r.fn) : [];
  if (stale.length === 0 && removed.length === 0) return;
  await db.transaction(async (tx) => {
    await tx.query({ text: "SELECT pg_advisory_xact_lock($1)", values: [SYNC_LOCK] });
    for (const w of stale) {
      const fn = `hdb_catalog.${quote(w.fn)}`;
      await tx.exec(`${w.sql};
        DROP TRIGGER IF EXISTS ${quote(w.fn)} ON ${w.table};
        CREATE TRIGGER ${quote(w.fn)} AFTER ${w.op} ON ${w.table} FOR EACH ROW EXECUTE FUNCTION ${fn}();
        COMMENT ON FUNCTION ${fn}() IS ${literal(w.fingerprint)};`);
    }
    for (const fn of removed) await tx.exec(`DROP FUNCTION IF EXISTS hdb_catalog.${quote(fn)}() CASCADE`);
    if (removed.length > 0) {
      const names = [...new Set(removed.map((fn) => fn.slice(PREFIX.length).replace(/_(INSERT|UPDATE|DELETE)$/, "")))];
      const live = new Set(desired.map((w) => w.fn.slice(PREFIX.length).replace(/_(INSERT|UPDATE|DELETE)$/, "")));
      const gone = names.filter((name) => !live.has(name));
      if (gone.length > 0) {
        await tx.query({
          text: "UPDATE hdb_catalog.event_log SET archived = true WHERE trigger_name = ANY($1::text[]) AND NOT archived",
          values: [gone],
        });
      }
    }
  });
}
