/**
 * Building the GraphQL schema for 1,000 tracked tables, in its own database
 * `bench_graphql_schema`: t0001..t1000, five columns each, every table but the first with a
 * foreign key to the one before (tracked as object relationship `prev`).
 *
 * Measured twice: through the API of a real service (one bulk /v1/metadata call tracking
 * everything, then the first query, which builds the admin schema), and in this process on the
 * engine modules alone (introspect + buildModel + RoleSchemaBuilder for the admin role).
 */
import { openDatabase, sql } from "@platform/core";
import { ensureDatabase } from "./dataset.js";
import type { EngineModules, Metadata } from "./engine.js";
import { trackedTables } from "./engine.js";
import { ADMIN_SECRET, postJson, startOurs } from "./processes.js";

export const SCHEMA_TABLES = 1000;

export interface SchemaBuildResult {
  tables: number;
  relationships: number;
  /** The bulk track call, answered. */
  apiTrackSeconds: number;
  /** The first GraphQL request after it (builds the admin schema on first use). */
  apiFirstQuerySeconds: number;
  introspectSeconds: number;
  modelSeconds: number;
  schemaSeconds: number;
  /** introspect + model + schema. */
  buildSeconds: number;
  graphqlTypes: number;
  serviceRssMb: number | null;
}

const CREATE_TABLES = `
DO $$
BEGIN
  FOR i IN 1..${SCHEMA_TABLES} LOOP
    EXECUTE format(
      'CREATE TABLE IF NOT EXISTS %I (id serial PRIMARY KEY, prev_id int %s, name text NOT NULL, amount numeric, created_at timestamptz NOT NULL DEFAULT now())',
      't' || lpad(i::text, 4, '0'),
      CASE WHEN i > 1 THEN format('REFERENCES %I (id)', 't' || lpad((i - 1)::text, 4, '0')) ELSE '' END);
  END LOOP;
END $$;`;

const tableName = (i: number) => `t${String(i).padStart(4, "0")}`;

function trackAll(): unknown {
  const table = (i: number) => ({ schema: "public", name: tableName(i) });
  const args: unknown[] = [{ type: "clear_metadata", args: {} }];
  for (let i = 1; i <= SCHEMA_TABLES; i++) args.push({ type: "pg_track_table", args: { source: "default", table: table(i) } });
  for (let i = 2; i <= SCHEMA_TABLES; i++)
    args.push({
      type: "pg_create_object_relationship",
      args: { source: "default", table: table(i), name: "prev", using: { foreign_key_constraint_on: "prev_id" } },
    });
  return { type: "bulk", args };
}

async function ensureTables(url: string): Promise<void> {
  const db = await openDatabase({ url, maxConnections: 1 });
  try {
    const { rows } = await db.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pg_tables WHERE schemaname = 'public' AND tablename ~ '^t[0-9]{4}$'`,
    );
    if (rows[0]?.n !== SCHEMA_TABLES) await db.exec(CREATE_TABLES);
  } finally {
    await db.close();
  }
}

const seconds = (since: number) => (performance.now() - since) / 1000;

export async function measureSchemaBuild(
  root: string,
  serverUrl: string,
  engine: EngineModules,
  rssOf: (pid: number) => number | null,
): Promise<SchemaBuildResult> {
  const url = await ensureDatabase(serverUrl, "bench_graphql_schema");
  await ensureTables(url);
  const service = await startOurs(root, url, 4);
  const headers = { "x-hasura-admin-secret": ADMIN_SECRET };
  let metadata: Metadata;
  let apiTrackSeconds: number;
  let apiFirstQuerySeconds: number;
  let serviceRssMb: number | null;
  try {
    let started = performance.now();
    await postJson(`${service.url}/v1/metadata`, trackAll(), headers);
    apiTrackSeconds = seconds(started);
    started = performance.now();
    const first = await postJson(
      `${service.url}/v1/graphql`,
      { query: `{ ${tableName(SCHEMA_TABLES)}(limit: 1) { id prev { id } } }` },
      headers,
    );
    apiFirstQuerySeconds = seconds(started);
    if (!(first as { data?: unknown }).data) throw new Error(`first query failed: ${JSON.stringify(first).slice(0, 300)}`);
    serviceRssMb = rssOf(service.pid);
    metadata = (await postJson(`${service.url}/v1/metadata`, { type: "export_metadata", args: {} }, headers)) as Metadata;
  } finally {
    await service.stop();
  }

  const db = await openDatabase({ url, maxConnections: 2 });
  try {
    const tables = trackedTables(metadata);
    let started = performance.now();
    const catalog = await engine.introspect(db, tables);
    const introspectSeconds = seconds(started);
    started = performance.now();
    const model = engine.buildModel(metadata, catalog);
    const modelSeconds = seconds(started);
    started = performance.now();
    const schema = new engine.RoleSchemaBuilder(model, "admin").build();
    const schemaSeconds = seconds(started);
    return {
      tables: tables.length,
      relationships: SCHEMA_TABLES - 1,
      apiTrackSeconds,
      apiFirstQuerySeconds,
      introspectSeconds,
      modelSeconds,
      schemaSeconds,
      buildSeconds: introspectSeconds + modelSeconds + schemaSeconds,
      graphqlTypes: Object.keys(schema.getTypeMap()).length,
      serviceRssMb,
    };
  } finally {
    await db.close();
  }
}
