/**
 * Acceptance run against a real Hasura application: MetaGame (https://github.com/MetaFam/TheGame,
 * release v1.0.2022-12-12; GPL, so it is read from a checkout at run time and nothing of it is
 * kept in this repository). Not part of `npm test`.
 *
 *   npm run acceptance:metagame -w services/graphql -- <checkout> [--project] [--database postgresql://...]
 *
 * (or METAGAME_CHECKOUT / METAGAME_DATABASE_URL; METAGAME_LOG_LEVEL=warn shows the engine's log).
 * Without a database URL it runs on PGlite in memory; with a server URL it creates a throw-away
 * database there and drops it at the end. The README's GraphQL section says how to make a checkout.
 *
 * With `--project` the engine serves this repository's own MetaGame project (projects/metagame)
 * instead, and the checkout is the yardstick: see metagame/project-run.ts. Without it:
 *
 * 1. The engine starts as the service starts, on the checkout's `hasura/` migrations and v2
 *    metadata unchanged, the variables the metadata names pointing at local stand-ins (the remote
 *    schema `backend` served from the backend's own SDL).
 * 2. Every migration is applied; nothing is reported inconsistent (the event and cron triggers
 *    are served); the actions, the remote schema's fields and the remote relationships are in the
 *    admin schema; every table is served.
 * 3. Every operation of the web client validates against the admin schema; the schemas of the
 *    roles `player` and `public` are reported as information.
 * 4. Restarted with the remote down, the engine starts, serves the tables, and reports the remote
 *    schema and the remote relationships to it.
 *
 * Exits 1, naming every failed check, when any fails.
 */
import { resolve } from "node:path";
import { openScratchDatabase } from "@platform/core";
import { checkoutEngineEnv, openCheckout, remoteSchemaSdl, remoteSchemaVariables } from "./metagame/checkout.js";
import { checkMetadata, checkMigrations, checkRemoteDown, checkTablesServed } from "./metagame/checks.js";
import { startEngine } from "./metagame/engine.js";
import { clientDocuments } from "./metagame/operations.js";
import { runProject } from "./metagame/project-run.js";
import { Report } from "./metagame/report.js";
import { startRemoteStandIn, startWebhookSink } from "./metagame/stand-ins.js";
import { TemplateIndex } from "./metagame/templates.js";
import { validateClient } from "./metagame/validate-client.js";

export interface Options {
  checkout: string;
  databaseUrl: string | undefined;
  logLevel: string;
  /** Serve projects/metagame rather than the checkout's own Hasura project. */
  project: boolean;
}

function readOptions(argv: string[]): Options {
  let checkout = process.env.METAGAME_CHECKOUT;
  let databaseUrl = process.env.METAGAME_DATABASE_URL;
  let project = false;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--project") project = true;
    else if (arg === "--database") databaseUrl = argv[++i];
    else if (arg.startsWith("--database=")) databaseUrl = arg.slice("--database=".length);
    else checkout = arg;
  }
  if (!checkout) throw new Error("usage: metagame.ts <TheGame checkout> [--project] [--database postgresql://...] (or METAGAME_CHECKOUT)");
  // `npm run -w` runs in the package's folder: a relative path means the caller's.
  return {
    checkout: resolve(process.env.INIT_CWD ?? process.cwd(), checkout),
    databaseUrl: databaseUrl || undefined,
    logLevel: process.env.METAGAME_LOG_LEVEL ?? "silent",
    project,
  };
}

/** The checkout's own Hasura project served: steps 1 to 4 above. */
async function runCheckout(options: Options, report: Report): Promise<string[]> {
  const checkout = openCheckout(options.checkout);
  const documents = clientDocuments(new TemplateIndex(checkout.root).templatesUnder(checkout.webDir), checkout.root);
  const remote = await startRemoteStandIn(remoteSchemaSdl(checkout));
  const remoteRootFields = Object.keys(remote.schema.getQueryType()?.getFields() ?? {});
  const sink = await startWebhookSink();
  const remotes = remoteSchemaVariables(checkout);
  const env = checkoutEngineEnv(checkout, remote.url, sink.url);

  const scratch = await openScratchDatabase(options.databaseUrl, "metagame_acceptance");
  const summary: string[] = [];
  try {
    report.section(`MetaGame ${checkout.root} on ${options.databaseUrl ? "PostgreSQL (a throw-away database)" : "PGlite (in memory)"}`);
    for (const [name, value] of Object.entries(env)) report.info(`${name}=${value}`);
    const engine = await startEngine(scratch.db, env, options.logLevel);
    let relationships = 0;
    try {
      const migrations = await checkMigrations(report, scratch.db, checkout.migrationsDir);
      const served = await checkMetadata(report, engine, remoteRootFields);
      await checkTablesServed(report, engine);
      relationships = served.remoteRelationships;
      const client = await validateClient(report, engine, documents);
      summary.push(
        `${migrations} migrations; ${served.tables} tables, ${served.actions} actions, 1 remote schema, ${served.remoteRelationships} remote relationships`,
        `reported inconsistent: ${served.reported.join(", ") || "nothing"}`,
        `web client: ${client.adminValid}/${client.operations} operations valid for admin, ${[...client.roles].map(([role, n]) => `${n} for ${role}`).join(", ")}`,
      );
    } finally {
      await engine.close();
    }

    // The same database, the stand-in stopped: its URL now refuses connections.
    await remote.server.stop();
    const down = await startEngine(scratch.db, env, options.logLevel);
    try {
      const reported = await checkRemoteDown(report, down, [...remotes.keys()], remoteRootFields, relationships);
      summary.push(`remote down, reported: ${reported.join(", ")}`);
    } finally {
      await down.close();
    }
  } finally {
    await remote.server.close();
    await sink.close();
    await scratch.dispose();
  }
  return summary;
}

async function main(): Promise<void> {
  const options = readOptions(process.argv.slice(2));
  const report = new Report();
  const summary = options.project ? await runProject(options, report) : await runCheckout(options, report);
  report.section("summary");
  for (const line of summary) report.info(line);
  if (report.failures.length > 0) {
    console.error(`\nFAILED: ${report.failures.length} check(s)\n - ${report.failures.join("\n - ")}`);
    process.exit(1);
  }
  console.log("\nall checks passed");
}

main().catch((error: unknown) => {
  console.error(`\nFAILED: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
  process.exit(1);
});
