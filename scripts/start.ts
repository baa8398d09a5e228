/**
 * `npm start`: the whole platform in one process on embedded defaults, as `supabase start` or
 * Hasura's quick start give it: local keys kept per data directory, one embedded PostgreSQL for
 * auth and graphql, a demo catalog, the gateway in front, and a summary of where everything is
 * once it all answers. Every service's configuration is read first, so a bad setting anywhere
 * stops start-up with one message naming every problem.
 */
import { existsSync } from "node:fs";
import { join } from "node:path";
import {
  type Closer,
  ConfigError,
  createLogger,
  type Database,
  handleShutdown,
  isPrettyFormat,
  loadEnv,
  openDatabase,
} from "@platform/core";
import { sharedDatabaseDir } from "./local/env.js";
import { checkPorts } from "./local/ports.js";
import { readStartSettings, type StartSettings } from "./local/settings.js";

const env = loadEnv();
let settings: StartSettings;
try {
  settings = readStartSettings(env);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  process.exit(1);
}
const logger = createLogger({ level: settings.logLevel, format: settings.logFormat });
const closers: Closer[] = [];
handleShutdown(logger, closers);

/** After a failed start: closes what did start, newest first; a failure to close is logged, not fatal. */
async function closeAll(): Promise<void> {
  for (const close of [...closers].reverse()) {
    await Promise.resolve()
      .then(close)
      .catch((error: unknown) => logger.error({ err: error }, "error while closing after a failed start"));
  }
}

const loopback = (host: string) => host === "127.0.0.1" || host === "localhost" || host === "::1";

async function openSharedDatabase(dataDir: string): Promise<Database> {
  // An empty or half-made directory (a first start interrupted before it finished) counts as fresh.
  const fresh = !existsSync(join(dataDir, "PG_VERSION"));
  const opening = performance.now();
  if (fresh) logger.info({ dataDir }, "creating the embedded PostgreSQL database for auth and graphql (first start only, a few seconds)");
  const db = await openDatabase({ dataDir });
  if (fresh) logger.info({ seconds: Math.round(performance.now() - opening) / 1000 }, "embedded PostgreSQL database created");
  return db;
}

// The embedded database takes the longest to open (and to create, on a first start): it starts
// now, and the services' code loads while it works.
const sharedDir = sharedDatabaseDir(env, settings.dataDir);
const sharedDbOpening = sharedDir ? openSharedDatabase(sharedDir) : undefined;
// Settled either way before anything awaits it, so a failure is never an unhandled rejection.
sharedDbOpening?.catch(() => {});
// Closed last, and also when Ctrl-C comes while it is still being created: shutting down waits
// for it, so a first start interrupted early never leaves a half-written database behind.
// A database that failed to open has nothing to close (its failure is reported where it is awaited).
if (sharedDbOpening) closers.push(async () => (await sharedDbOpening.catch(() => undefined))?.close());

const [
  { startAuth },
  { startGateway },
  { openConfiguredDatabase, startGraphql },
  { MIGRATIONS_DIR, startBackend },
  { loadDemoData },
  { startCatalogWithDemo },
  { waitHealthy },
  plans,
  { printable },
  summaries,
] = await Promise.all([
  import("@platform/auth"),
  import("@platform/gateway"),
  import("@platform/graphql"),
  import("@platform/metagame"),
  import("@platform/metagame/demo"),
  import("./local/catalog.js"),
  import("./local/health.js"),
  import("./local/plan.js"),
  import("./local/secrets.js"),
  import("./local/summary.js"),
]);

let plan: Awaited<ReturnType<typeof plans.planStart>>;
try {
  plan = await plans.planStart(env);
  await checkPorts([
    { service: "gateway", setting: "GATEWAY_PORT", host: plan.gateway.host, port: plan.gateway.port },
    { service: "auth", setting: "AUTH_API_PORT", host: plan.auth.api.host, port: plan.auth.api.port },
    { service: "graphql", setting: "HASURA_GRAPHQL_SERVER_PORT", host: plan.graphql.host, port: plan.graphql.port },
    { service: "catalog", setting: "CATALOG_PORT", host: plan.catalog.host, port: plan.catalog.port },
    { service: "metagame backend", setting: "METAGAME_BACKEND_PORT", host: plan.metagame.host, port: plan.metagame.port },
  ]);
} catch (error) {
  console.error(error instanceof ConfigError ? error.message : error);
  await closeAll();
  process.exit(1);
}

function warnAboutEarlierLayout(dataDir: string): void {
  const earlier = ["auth", "graphql"].map((name) => join(dataDir, name)).filter((dir) => existsSync(dir));
  if (earlier.length > 0) {
    logger.warn(
      { earlier },
      "auth and graphql now share one embedded database in the data directory's postgres/; the older directories are no longer read",
    );
  }
}

try {
  if (plan.local.filled.length > 0) logger.info({ settings: plan.local.filled }, "local-development values for settings not configured");
  const { sharedDataDir } = plan.local;
  if (sharedDataDir) warnAboutEarlierLayout(settings.dataDir);

  // The catalog needs no database of ours: it starts while the embedded PostgreSQL is created.
  const catalogStarting = startCatalogWithDemo(plan.catalog, logger.child({ service: "catalog" }));
  // The engine's database, shared with the MetaGame backend (its job queue lives there).
  const graphqlDbOpening = sharedDbOpening ?? openConfiguredDatabase(plan.graphql, logger.child({ service: "graphql" }));
  // Awaited below, where a failure stops the start; this only keeps it from counting as unhandled meanwhile.
  graphqlDbOpening.catch(() => {});
  if (!sharedDbOpening) closers.push(async () => (await graphqlDbOpening.catch(() => undefined))?.close());
  // The backend answers before the engine starts (the engine reads its remote schema at start-up);
  // its routes are built while the database opens. Its job queue is needed by no request a service
  // answers at start: it starts once the services have, off the way to "ready".
  let servicesStarted: (started: boolean) => void = () => {};
  const queueDb = new Promise<boolean>((resolve) => {
    servicesStarted = resolve;
  }).then(async (started) => (started ? graphqlDbOpening : Promise.reject(new Error("the services did not start"))));
  const backendStarting = startBackend(plan.metagame, logger.child({ service: "metagame" }), { db: queueDb });
  // Awaited below, where a failure stops the start; this only keeps it from counting as unhandled meanwhile.
  backendStarting.catch(() => {});
  const sharedDb = await sharedDbOpening;
  const graphqlDb = await graphqlDbOpening;
  const backend = await backendStarting;
  closers.push(() => backend.close());
  const prefill =
    printable(plan.secrets.graphqlAdminSecret) && loopback(plan.graphql.host) && loopback(plan.gateway.host)
      ? plan.secrets.graphqlAdminSecret.value
      : undefined;
  const starting = [
    catalogStarting,
    // Without SMTP_HOST, auth keeps its emails in-process and lists them at /_mail (loopback only).
    startAuth(plan.auth, logger.child({ service: "auth" }), { ...(sharedDb ? { db: sharedDb } : {}), mailCatcher: true }),
    startGraphql(plan.graphql, logger.child({ service: "graphql" }), {
      db: graphqlDb,
      ...(prefill ? { consoleAdminSecret: prefill } : {}),
    }),
  ] as const;
  const outcomes = await Promise.allSettled(starting);
  servicesStarted(outcomes.every((outcome) => outcome.status === "fulfilled"));
  for (const outcome of outcomes) if (outcome.status === "fulfilled") closers.push(() => outcome.value.close());
  const failed = outcomes.find((outcome) => outcome.status === "rejected");
  if (failed) throw failed.reason;
  const [catalog, auth, graphql] = outcomes.map((o) => (o as PromiseFulfilledResult<{ url: string; close(): Promise<void> }>).value) as [
    { url: string; close(): Promise<void> },
    { url: string; close(): Promise<void> },
    { url: string; close(): Promise<void> },
  ];
  backend
    .ready()
    .catch((error: unknown) =>
      logger.error(
        { service: "metagame", err: error },
        "the job queue could not start: profile refreshes fail until the platform restarts",
      ),
    );
  // The engine has applied the project's migrations: a project without players gets the demo world
  // (not when the engine serves a project of the user's own).
  if (plan.graphql.migrationsDir === MIGRATIONS_DIR && (await loadDemoData(graphqlDb))) {
    logger.info({ service: "graphql" }, "no players yet: loaded MetaGame's demo world (guilds, 50 players, quests and completions)");
  }
  const gateway = await startGateway(plan.gateway, logger.child({ service: "gateway" }));
  closers.push(() => gateway.close());

  await waitHealthy([
    `${catalog.url}/healthz`,
    `${auth.url}/health`,
    `${graphql.url}/healthz`,
    `${gateway.url}/auth/v1/.well-known/jwks.json`,
  ]);
  const summary = summaries.buildSummary({
    gateway: plan.local.gatewayUrl,
    auth: auth.url,
    graphql: graphql.url,
    catalog: catalog.url,
    backend: backend.url,
    graphqlAuth: plan.graphqlAuth,
    secrets: plan.secrets,
    autoconfirm: plan.auth.mailer.autoconfirm,
    // The auth service runs its catcher when no SMTP server is configured and it listens on loopback.
    mailCatcher: !plan.auth.smtp.host && loopback(plan.auth.api.host),
    dataDir: settings.dataDir,
    sharedDatabase: sharedDataDir,
    catalogDatabase: plan.catalog.database.kind === "sqlite" ? plan.catalog.database.path : "PostgreSQL",
    cwd: process.cwd(),
  });
  // From this process's start (performance's time origin), so loading the code counts too.
  const seconds = performance.now() / 1000;
  if (isPrettyFormat(settings.logFormat)) process.stdout.write(`${summaries.summaryLines(summary, seconds).join("\n")}\n`);
  else logger.info({ seconds: Math.round(seconds * 10) / 10, ...summary }, "platform ready");
} catch (error) {
  logger.fatal({ err: error }, "start-up failed");
  await closeAll();
  process.exit(1);
}
