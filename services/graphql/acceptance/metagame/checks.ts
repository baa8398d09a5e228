/**
 * The checks on the started engine: the migrations applied, what get_inconsistent_metadata
 * reports, the actions, remote schema and remote relationships in the admin schema, every table
 * served, and what is reported once the remote schema is down.
 */
import { type Database, sql } from "@platform/core";
import type { GraphQLSchema } from "graphql";
import { readHasuraMigrations } from "../../src/engine/metadata/migrations.js";
import type { Engine } from "./engine.js";
import type { Report } from "./report.js";

interface Inconsistency {
  type: string;
  name: string;
  reason: string;
}

interface TrackedTable {
  table: { schema: string; name: string };
  configuration?: { custom_name?: string; custom_root_fields?: { select?: string | { name?: string } | null } };
  remote_relationships?: { name: string }[];
}

interface Exported {
  sources: { tables: TrackedTable[] }[];
  actions?: { name: string }[];
  remote_schemas?: { name: string }[];
}

async function inconsistencies(report: Report, engine: Engine): Promise<Inconsistency[]> {
  const body = (await engine.metadata("get_inconsistent_metadata")) as { inconsistent_objects?: Inconsistency[] };
  const objects = body.inconsistent_objects ?? [];
  for (const o of objects) report.info(`${o.name}: ${o.reason}`);
  return objects;
}

const exported = async (engine: Engine) => (await engine.metadata("export_metadata")) as Exported;

/** A table's GraphQL type name (Hasura's default: the name, prefixed by a schema other than public). */
const typeName = ({ table, configuration }: TrackedTable) =>
  configuration?.custom_name ?? (table.schema === "public" ? table.name : `${table.schema}_${table.name}`);

function rootFields(schema: GraphQLSchema): Set<string> {
  return new Set([schema.getQueryType(), schema.getMutationType()].flatMap((t) => Object.keys(t?.getFields() ?? {})));
}

function typeFields(schema: GraphQLSchema): Set<string> {
  const out = new Set<string>();
  for (const type of Object.values(schema.getTypeMap()))
    if ("getFields" in type && !type.name.startsWith("__"))
      for (const field of Object.keys(type.getFields())) out.add(`${type.name}.${field}`);
  return out;
}

export async function checkMigrations(report: Report, db: Database, migrationsDir: string): Promise<number> {
  const migrations = readHasuraMigrations(migrationsDir);
  const { rows } = await db.query<{ version: string | number }>(sql`SELECT version FROM hdb_catalog.schema_migrations WHERE NOT dirty`);
  const applied = new Set(rows.map((r) => String(r.version)));
  report.contains(
    "migrations applied",
    migrations.map((m) => String(m.version)),
    applied,
  );
  return migrations.length;
}

export interface Served {
  tables: number;
  actions: number;
  remoteRelationships: number;
  reported: string[];
}

/** The metadata loaded: only what is not served yet reported, and the actions, remote fields and remote relationships in the admin schema. */
export async function checkMetadata(report: Report, engine: Engine, remoteRootFields: string[]): Promise<Served> {
  report.section("metadata");
  const reported = await inconsistencies(report, engine);
  // Event and cron triggers are served too: nothing is reported.
  report.check(
    reported.length === 0,
    `nothing reported inconsistent (${reported.length} reported)`,
    reported.map((o) => `${o.name}: ${o.reason}`).join("\n") || undefined,
  );
  const metadata = await exported(engine);
  const tables = metadata.sources.flatMap((s) => s.tables);
  const actions = (metadata.actions ?? []).map((a) => a.name);
  const remotes = (metadata.remote_schemas ?? []).map((r) => r.name);
  const relationships = tables.flatMap((t) => (t.remote_relationships ?? []).map((r) => `${typeName(t)}.${r.name}`));
  const admin = await engine.schema();
  const roots = rootFields(admin);
  report.check(actions.length === 8, `8 actions in the metadata (${actions.length})`);
  report.contains("actions in the admin schema", actions, roots);
  report.check(remotes.length === 1, `1 remote schema in the metadata (${remotes.join(", ")})`);
  report.contains("remote schema root fields in the admin schema", remoteRootFields, roots);
  report.check(relationships.length === 6, `6 remote relationships in the metadata (${relationships.length})`);
  report.contains("remote relationships in the admin schema", relationships, typeFields(admin));
  return {
    tables: tables.length,
    actions: actions.length,
    remoteRelationships: relationships.length,
    reported: reported.map((o) => o.name),
  };
}

/** Each tracked table's select root field, read once as admin: the tables are served. */
export async function checkTablesServed(report: Report, engine: Engine): Promise<void> {
  const tables = (await exported(engine)).sources.flatMap((s) => s.tables);
  const failed: string[] = [];
  for (const { table, configuration } of tables) {
    const custom = configuration?.custom_root_fields?.select;
    const field = (typeof custom === "string" ? custom : custom?.name) ?? configuration?.custom_name ?? table.name;
    const { body } = await engine.post("/v1/graphql", { query: `{ ${field}(limit: 1) { __typename } }` });
    if (!(body as { data?: unknown }).data) failed.push(`${field}: ${JSON.stringify(body)}`);
  }
  report.check(
    failed.length === 0,
    `every tracked table served (${tables.length - failed.length}/${tables.length})`,
    failed.join("\n") || undefined,
  );
}

/**
 * With its remote schema unreachable Hasura still starts: the remote is reported (type
 * `remote_schema`), each remote relationship to it too (its remote schema is then "not found"),
 * and the rest is served
 * (https://hasura.io/docs/2.0/api-reference/metadata-api/manage-metadata/#metadata-get-inconsistent-metadata).
 */
export async function checkRemoteDown(
  report: Report,
  engine: Engine,
  remoteNames: string[],
  remoteRootFields: string[],
  relationshipCount: number,
): Promise<string[]> {
  report.section("remote schema down");
  await checkTablesServed(report, engine);
  const reported = await inconsistencies(report, engine);
  const remotes = reported.filter((o) => o.type === "remote_schema");
  report.contains(
    "remote schemas reported",
    remoteNames.map((n) => `remote_schema ${n}`),
    new Set(remotes.map((o) => o.name)),
  );
  // Hasura's reasons: the URL's variable named, not its value (throwRemoteSchemaHttp), and each
  // relationship's error in its table's and its own context (buildRemoteRelationship).
  const badRemote = remotes.filter(
    (o) => !/^Inconsistent object: HTTP exception occurred while sending the request to "[A-Z_]+"$/.test(o.reason),
  );
  report.check(badRemote.length === 0, "the remote schema's reason is Hasura's", badRemote.map((o) => o.reason).join("\n") || undefined);
  const relationships = reported.filter((o) => o.type === "remote_relationship");
  report.check(relationships.length === relationshipCount, `remote relationships reported (${relationships.length}/${relationshipCount})`);
  const notFound = /^Inconsistent object: in table "[^"]+": in remote relationship"[^"]+": remote schema with name "[^"]+" not found$/;
  const badRelationships = relationships.filter((o) => !notFound.test(o.reason));
  report.check(
    badRelationships.length === 0,
    "the remote relationships' reasons are Hasura's",
    badRelationships.map((o) => o.reason).join("\n") || undefined,
  );
  const other = reported.filter((o) => o.type !== "remote_schema" && o.type !== "remote_relationship");
  report.check(other.length === 0, "nothing else reported", other.map((o) => o.name).join(", ") || undefined);
  const roots = rootFields(await engine.schema());
  const left = remoteRootFields.filter((name) => roots.has(name));
  report.check(left.length === 0, "the remote's root fields are not in the admin schema", left.join(", ") || undefined);
  return reported.map((o) => o.name);
}
