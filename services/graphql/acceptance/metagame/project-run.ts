/**
 * `--project`: the engine serves this repository's MetaGame project (projects/metagame: its
 * migrations and metadata, wired by the project's own `metagameEngineEnv`), with the checkout's
 * remote schema stand-in and an HTTP sink for actions and triggers, and the checkout is the
 * yardstick:
 *
 * 1. the migrations are applied and the metadata is served as in the checkout mode (only the
 *    nothing reported, 8 actions, the remote schema, 6 remote relationships, every table);
 * 2. the admin schema has every type, field, argument and enum value of the release's committed
 *    `schema.graphql`, typed the same but for v2's named changes; v2's additions are listed;
 * 3. the schemas of `player` and `public` equal those the same engine builds from the release's own
 *    metadata (so the permissions are the release's);
 * 4. every web-client operation validates for the role that sends it (public where it can);
 * 5. every web-client query runs as `player` over a fixture player's rows without an error.
 *
 * The project module is loaded at run time: projects/metagame builds on this package, so this
 * package cannot import it at compile time without a cycle.
 */
import { openScratchDatabase } from "@platform/core";
import { checkoutEngineEnv, openCheckout, remoteSchemaSdl } from "./checkout.js";
import { checkMetadata, checkMigrations, checkTablesServed } from "./checks.js";
import { compareRoleSchema, compareWithRelease } from "./compare-release.js";
import { type Engine, startEngine } from "./engine.js";
import { FIXTURE_PLAYER_ID, insertFixture } from "./fixture.js";
import { clientDocuments } from "./operations.js";
import type { Report } from "./report.js";
import { splitByRole } from "./role-split.js";
import { runQueries } from "./run-queries.js";
import { startRemoteStandIn, startWebhookSink } from "./stand-ins.js";
import { TemplateIndex } from "./templates.js";
import { validateClient } from "./validate-client.js";

export interface ProjectRunOptions {
  checkout: string;
  databaseUrl: string | undefined;
  logLevel: string;
}

interface MetagameProject {
  MIGRATIONS_DIR: string;
  METADATA_DIR: string;
  metagameEngineEnv(backendUrl: string, options?: { webhook?: boolean }): Record<string, string>;
}

const PROJECT_MODULE = new URL("../../../../projects/metagame/backend/src/project.ts", import.meta.url);

const loadProject = async () => (await import(PROJECT_MODULE.href)) as MetagameProject;

/** The remote relationships' field names, from the served metadata. */
async function remoteRelationshipNames(engine: Engine): Promise<string[]> {
  const exported = (await engine.metadata("export_metadata")) as { sources: { tables: { remote_relationships?: { name: string }[] }[] }[] };
  return exported.sources.flatMap((s) => s.tables.flatMap((t) => (t.remote_relationships ?? []).map((r) => r.name)));
}

export async function runProject(options: ProjectRunOptions, report: Report): Promise<string[]> {
  const project = await loadProject();
  const checkout = openCheckout(options.checkout);
  const documents = clientDocuments(new TemplateIndex(checkout.root).templatesUnder(checkout.webDir), checkout.root);
  const remote = await startRemoteStandIn(remoteSchemaSdl(checkout));
  const remoteRootFields = Object.keys(remote.schema.getQueryType()?.getFields() ?? {});
  const sink = await startWebhookSink();
  // The backend's variables (actions, triggers) at the sink; the remote schema at the stand-in; no auth webhook: the admin secret names the role.
  const env = { ...project.metagameEngineEnv(sink.url, { webhook: false }), REMOTE_SCHEMA_ENDPOINT: remote.url };
  const ours = await openScratchDatabase(options.databaseUrl, "metagame_project_acceptance");
  const release = await openScratchDatabase(options.databaseUrl, "metagame_release_acceptance");
  const summary: string[] = [];
  try {
    report.section(
      `projects/metagame on ${options.databaseUrl ? "PostgreSQL (throw-away databases)" : "PGlite (in memory)"}, against ${checkout.root}`,
    );
    for (const [name, value] of Object.entries(env)) report.info(`${name}=${value}`);
    const engine = await startEngine(ours.db, env, options.logLevel);
    let releaseEngine: Engine | undefined;
    try {
      releaseEngine = await startEngine(release.db, checkoutEngineEnv(checkout, remote.url, sink.url), options.logLevel);
      const migrations = await checkMigrations(report, ours.db, project.MIGRATIONS_DIR);
      const served = await checkMetadata(report, engine, remoteRootFields);
      await checkTablesServed(report, engine);
      const comparison = compareWithRelease(report, checkout, await engine.schema());

      report.section("role schemas against the release's metadata, served by the same engine");
      const playerHeaders = { "x-hasura-role": "player", "x-hasura-user-id": FIXTURE_PLAYER_ID };
      const roles: [string, Record<string, string>][] = [
        ["admin", {}],
        ["player", playerHeaders],
        ["public", { "x-hasura-role": "public" }],
      ];
      let sameRoles = 0;
      for (const [role, headers] of roles)
        if (compareRoleSchema(report, role, await releaseEngine.schema(headers), await engine.schema(headers))) sameRoles++;
      const schemas = { player: await engine.schema(playerHeaders), public: await engine.schema({ "x-hasura-role": "public" }) };

      const client = await validateClient(report, engine, documents);
      const split = splitByRole(report, documents.operations, schemas);
      const fixture = await insertFixture(engine);
      const remoteFields = new Set([...remoteRootFields, ...(await remoteRelationshipNames(engine))]);
      const queries = await runQueries(
        report,
        engine,
        documents.operations,
        { schema: schemas.player, headers: playerHeaders },
        fixture,
        remoteFields,
      );

      const c = comparison.diff.compared;
      const accepted = [...comparison.accepted.values()].reduce((a, b) => a + b, 0);
      summary.push(
        `${migrations} migrations; ${served.tables} tables, ${served.actions} actions, 1 remote schema, ${served.remoteRelationships} remote relationships`,
        `against schema.graphql: ${c.types} types, ${c.fields} fields, ${c.arguments} arguments, ${c.inputFields} input fields, ${c.enumValues} enum values compared; ${comparison.diff.missing.length} missing; ${accepted} accepted differences of ${comparison.accepted.size} kinds; ${comparison.diff.unreachable.length} unreachable types of theirs not generated; ${comparison.diff.added.length} additions`,
        `role schemas equal to the release metadata's: ${sameRoles}/${roles.length} (${roles.map(([r]) => r).join(", ")})`,
        `web client: ${client.adminValid}/${client.operations} operations valid for admin; by role: ${split.public.length} public, ${split.player.length} player, ${split.invalid.length} invalid`,
        `queries run as player: ${queries.run - queries.failed}/${queries.run} without error, ${queries.run - queries.empty.length - queries.failed} with data (empty: ${queries.empty.join(", ") || "none"}), ${queries.excused} stand-in errors excused`,
      );
    } finally {
      await engine.close();
      await releaseEngine?.close();
    }
  } finally {
    await remote.server.close();
    await sink.close();
    await ours.dispose();
    await release.dispose();
  }
  return summary;
}
