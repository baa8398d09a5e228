/**
 * Runs one test class the way tests-py does: the helper servers its fixtures start (the actions
 * webhook, a remote schema), a fresh service, the class's state fixtures (setup/teardown per class
 * or per method; schema_* once and values_* around each mutation test), then each test in order
 * (a case file, or the port of a Python test body), once per transport it names: HTTP, then over a
 * WebSocket (`websocket`), then as a subscription (`subscription`), each reported as its own result.
 */

import { type RemoteSchemaServer, startActionsRemoteJoinSchema } from "./actions-remote-schema.js";
import { type ActionsWebhookServer, startActionsWebhook } from "./actions-webhook.js";
import { type EventsWebhookServer, startEventsWebhook } from "./events-webhook.js";
import type { ClassPlan, TestPlan } from "./fixtures.js";
import { loadFixture, readFixtureText, shortName } from "./fixtures.js";
import { InlineFailure, inlineContext } from "./inline.js";
import { emptyRemoved, mentionsPostgis, postgisSkipReason, type Removed, stripPostgis } from "./postgis.js";
import { type RemoteRelationshipsServer, startRemoteRelationshipsServer } from "./remote-relationships-server.js";
import { startRemoteSchemaPermsServers } from "./remote-schema-perms-server.js";
import { type GqlServer, startGqlServer } from "./remote-schemas-server.js";
import { type RunOptions, runCase, type Transport } from "./run-case.js";
import { type Reply, type Service, startService, TimeoutError, withTimeout } from "./service.js";
import { type CaseBase, type CaseResult, failed, skipped } from "./types.js";
import { HarnessWsClient, type Protocol } from "./ws-client.js";

const TRANSPORTS: readonly Transport[] = ["http", "websocket", "subscription"];

export const CLASS_TIMEOUT_MS = Number(process.env.CONFORMANCE_CLASS_TIMEOUT_MS ?? 300_000);

const SETUP_FILES = ["setup", "teardown", "schema_setup", "schema_teardown", "values_setup", "values_teardown"] as const;
type SetupName = (typeof SETUP_FILES)[number];

interface ClassState {
  service: Service;
  bodies: Partial<Record<SetupName, unknown>>;
  removed?: Removed;
  warnings: string[];
  aborted: boolean;
  /** Tests finished (a test may add more than one result: its skipped steps). */
  done: number;
  /** The class's WebSocket client fixtures (conftest.py's ws_client and ws_client_graphql_ws), made on first use. */
  clients: Partial<Record<Protocol, HarnessWsClient>>;
}

function fixtureClient(state: ClassState, protocol: Protocol): HarnessWsClient {
  let client = state.clients[protocol];
  if (!client) {
    if (!state.service.url) throw new Error("the service does not listen: no WebSocket client");
    client = new HarnessWsClient(`${state.service.url.replace(/^http/, "ws")}/v1/graphql`, protocol, state.service.adminSecret);
    state.clients[protocol] = client;
  }
  return client;
}

function describe(reply: Reply): string {
  const body = reply.body as
    | { error?: unknown; errors?: { message?: unknown }[]; internal?: { error?: { message?: unknown } } }
    | undefined;
  const message = body?.error ?? body?.errors?.[0]?.message ?? reply.raw ?? JSON.stringify(reply.body);
  const internal = body?.internal?.error?.message;
  return `HTTP ${reply.status}: ${String(message).slice(0, 300)}${internal ? ` (${String(internal).slice(0, 300)})` : ""}`;
}

/** POSTs one state file to /v1/query (setup_metadata_api_version "v1"); returns an error text or undefined. */
async function applyState(state: ClassState, name: SetupName | "inline", body: unknown): Promise<string | undefined> {
  if (body === undefined) return undefined;
  try {
    const reply = await state.service.post("/v1/query", body);
    return reply.status === 200 ? undefined : `${name}.yaml failed: ${describe(reply)}`;
  } catch (error) {
    return `${name}.yaml failed: ${(error as Error).message}`;
  }
}

async function loadBodies(cls: ClassPlan): Promise<Partial<Record<SetupName, unknown>>> {
  const bodies: Partial<Record<SetupName, unknown>> = {};
  for (const name of SETUP_FILES) {
    const file = `${cls.folder}/${name}.yaml`;
    if (readFixtureText(file) !== undefined) bodies[name] = loadFixture(file);
  }
  return bodies;
}

/** The `postgis` fixture, or a setup that uses PostGIS: create the extensions, else cut PostGIS out. */
async function preparePostgis(cls: ClassPlan, state: ClassState): Promise<void> {
  // A class of mode "none" applies none of its folder's state files (an inline setup, if any, is its own).
  if (cls.mode === "none" && !cls.postgis) return;
  const text = JSON.stringify(state.bodies);
  if (!cls.postgis && !mentionsPostgis(text)) return;
  const sql = "CREATE EXTENSION IF NOT EXISTS postgis; CREATE EXTENSION IF NOT EXISTS postgis_topology;";
  const failure = await applyState(state, "inline", { type: "run_sql", args: { sql } });
  if (!failure) return;
  if (!mentionsPostgis(text)) return;
  const removed = emptyRemoved();
  for (const name of SETUP_FILES) if (state.bodies[name] !== undefined) state.bodies[name] = stripPostgis(state.bodies[name], removed);
  state.removed = removed;
  const what = [...removed.tables].concat([...removed.columns].flatMap(([t, cs]) => [...cs].map((c) => `${t}.${c}`)));
  state.warnings.push(`PostGIS not available: setup run without ${what.join(", ") || "PostGIS objects"}`);
}

/** The port of a Python test body: pass when it returns, fail with its InlineFailure. */
async function runInline(test: TestPlan, state: ClassState, base: CaseBase): Promise<CaseResult> {
  const started = Date.now();
  try {
    await test.inline?.(inlineContext(state.service, base, test, (protocol) => fixtureClient(state, protocol)));
    return { ...base, outcome: "pass", ms: Date.now() - started };
  } catch (error) {
    const detail = error instanceof InlineFailure ? error.detail : {};
    const reason = error instanceof InlineFailure ? error.message : `inline test error: ${(error as Error).message ?? error}`;
    return { ...base, ...detail, outcome: "fail", reason, ms: Date.now() - started };
  }
}

/** A case file's steps left out (skipSteps), reported as skipped results of their own. */
function skippedSteps(test: TestPlan, base: CaseBase): CaseResult[] {
  return Object.entries(test.skipSteps ?? {}).map(([step, reason]) => ({
    ...skipped({ ...base, test: `${test.name} [step ${step}]` }, reason),
    step: Number(step),
  }));
}

/** A test's name in the report: upstream's, with the transport for all but HTTP (pytest's parametrisation). */
function testName(test: TestPlan, transport: Transport): string {
  return transport === "http" ? test.name : `${test.name} [${transport}]`;
}

async function runTest(cls: ClassPlan, test: TestPlan, state: ClassState, transport: Transport): Promise<CaseResult[]> {
  const base = { folder: cls.folder, className: cls.name, test: testName(test, transport), file: test.file };
  if (test.skip) return [skipped(base, test.skip)];
  if (test.how === "open" && !test.inline) return [skipped(base, "subscription steps file (websocket)")];
  let text: string | undefined;
  if (!test.inline) {
    text = readFixtureText(test.file);
    if (text === undefined) return [failed(base, `missing fixture ${shortName(test.file)}`)];
    const postgis = state.removed && postgisSkipReason(text, state.removed);
    if (postgis) return [skipped(base, postgis)];
  }
  const before = cls.mode === "method" ? state.bodies.setup : cls.mode === "mutation" ? state.bodies.values_setup : undefined;
  const setupError = await applyState(state, cls.mode === "method" ? "setup" : "values_setup", before);
  if (setupError) return [failed(base, `setup failed: ${setupError}`), ...skippedSteps(test, base)];
  // The engine closes every socket with 1012 when metadata changes (Hasura keeps them open): a
  // per-method setup tracks tables, so the class's socket fixtures see their close before the test,
  // whose own "reconnect if closed" then applies.
  if (before !== undefined) for (const client of Object.values(state.clients)) await client.settle(1000);
  const options: RunOptions = { transport, ...(test.gqlws ? { gqlws: true } : {}) };
  const result = text === undefined ? await runInline(test, state, base) : await runCase(state.service, test, text, base, options);
  const after = cls.mode === "method" ? state.bodies.teardown : cls.mode === "mutation" ? state.bodies.values_teardown : undefined;
  const teardownError = await applyState(state, cls.mode === "method" ? "teardown" : "values_teardown", after);
  if (teardownError) state.warnings.push(`after ${shortName(test.file || test.name)}: ${teardownError}`);
  if (test.xfail && result.outcome === "fail") return [skipped(base, `upstream xfail (failed here too: ${result.reason})`)];
  return [result, ...skippedSteps(test, base)];
}

async function runClassBody(cls: ClassPlan, state: ClassState, results: CaseResult[]): Promise<void> {
  state.bodies = await loadBodies(cls);
  await preparePostgis(cls, state);
  const classSetup =
    cls.inlineSetup ?? (cls.mode === "class" ? state.bodies.setup : cls.mode === "mutation" ? state.bodies.schema_setup : undefined);
  const preludeError = cls.prelude ? await applyState(state, "inline", cls.prelude) : undefined;
  const setupError =
    preludeError ?? (await applyState(state, cls.inlineSetup ? "inline" : cls.mode === "class" ? "setup" : "schema_setup", classSetup));
  // Class-scoped ws_conn_init / ws_conn_init_graphql_ws: the fixture client's connection, initialised once.
  const wsInitError =
    cls.wsInit && !setupError
      ? await fixtureClient(state, cls.wsInit)
          .initAsAdmin()
          .then(() => undefined)
          .catch((error: Error) => `ws_conn_init failed: ${error.message}`)
      : undefined;
  for (const test of cls.tests) {
    for (const transport of TRANSPORTS.filter((t) => test.transports.includes(t) || (t === "http" && test.transports.length === 0))) {
      if (state.aborted) return;
      const base = { folder: cls.folder, className: cls.name, test: testName(test, transport), file: test.file };
      const failure = setupError ? `class setup failed: ${setupError}` : wsInitError;
      const outcome =
        failure && !test.skip ? [failed(base, failure), ...skippedSteps(test, base)] : await runTest(cls, test, state, transport);
      if (state.aborted) return;
      results.push(...outcome);
    }
    state.done++;
  }
  const classTeardown = cls.mode === "class" ? state.bodies.teardown : cls.mode === "mutation" ? state.bodies.schema_teardown : undefined;
  if (!setupError) {
    const teardownError = await applyState(state, cls.mode === "class" ? "teardown" : "schema_teardown", classTeardown);
    if (teardownError) state.warnings.push(teardownError);
  }
}

export interface ClassRun {
  results: CaseResult[];
  warnings: string[];
}

/** The helper servers a class's fixtures start before the engine, and the variables that point the engine at them. */
interface Helpers {
  webhook?: ActionsWebhookServer;
  remoteSchema?: RemoteSchemaServer;
  gqlServer?: GqlServer;
  permsServers?: Record<string, RemoteSchemaServer>;
  remoteRelationships?: RemoteRelationshipsServer;
  events?: EventsWebhookServer;
  /** The variables pointing at them: the engine's environment gets them, and so does process.env. */
  env: Record<string, string>;
  /** process.env before the class set its variables, to put back afterwards. */
  savedEnv: Record<string, string | undefined>;
  close(): Promise<void>;
}

function setEnv(helpers: Helpers, name: string, value: string): void {
  if (!(name in helpers.savedEnv)) helpers.savedEnv[name] = process.env[name];
  process.env[name] = value;
  helpers.env[name] = value;
}

async function startHelpers(cls: ClassPlan): Promise<Helpers> {
  const helpers: Helpers = {
    env: {},
    savedEnv: {},
    async close() {
      await helpers.webhook?.close();
      await helpers.remoteSchema?.close();
      await helpers.gqlServer?.close();
      await Promise.all(Object.values(helpers.permsServers ?? {}).map((s) => s.close()));
      await helpers.remoteRelationships?.close();
      await helpers.events?.close();
      for (const [name, value] of Object.entries(helpers.savedEnv)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    },
  };
  try {
    // test_actions.py's graphql_service: GRAPHQL_SERVICE_HANDLER (read by add_remote_schema's url template).
    if (cls.helpers?.graphqlService) {
      helpers.remoteSchema = await startActionsRemoteJoinSchema();
      setEnv(helpers, "GRAPHQL_SERVICE_HANDLER", helpers.remoteSchema.url);
    }
    // test_remote_relationships.py's graphql_service: GRAPHQL_SERVICE_HANDLER (the remote schema's url template).
    if (cls.helpers?.remoteRelationships) {
      helpers.remoteRelationships = await startRemoteRelationshipsServer();
      setEnv(helpers, "GRAPHQL_SERVICE_HANDLER", helpers.remoteRelationships.url);
    }
    // conftest.py's gql_server: REMOTE_SCHEMAS_WEBHOOK_DOMAIN (read by the remote schemas' url templates).
    if (cls.helpers?.remoteSchemas) {
      helpers.gqlServer = await startGqlServer();
      setEnv(helpers, "REMOTE_SCHEMAS_WEBHOOK_DOMAIN", helpers.gqlServer.url);
    }
    // test_remote_schema_permissions.py's graphql_service_1..3: GRAPHQL_SERVICE_1..3.
    if (cls.helpers?.remoteSchemaPerms) {
      helpers.permsServers = await startRemoteSchemaPermsServers();
      for (const [name, server] of Object.entries(helpers.permsServers)) setEnv(helpers, name, server.url);
    }
    // conftest.py's actions_fixture: ACTION_WEBHOOK_HANDLER (read by the actions' handler templates).
    if (cls.helpers?.actionsWebhook) {
      helpers.webhook = await startActionsWebhook();
      setEnv(helpers, "ACTION_WEBHOOK_HANDLER", helpers.webhook.url);
    }
    // conftest.py's evts_webhook / scheduled_triggers_evts_webhook: the events receiver.
    if (cls.helpers?.eventsWebhook) {
      helpers.events = await startEventsWebhook();
      setEnv(helpers, cls.helpers.eventsWebhook, helpers.events.url);
    }
  } catch (error) {
    await helpers.close();
    throw error;
  }
  return helpers;
}

export async function runClass(cls: ClassPlan, timeoutMs = CLASS_TIMEOUT_MS): Promise<ClassRun> {
  const results: CaseResult[] = [];
  const warnings: string[] = [];
  // A class whose every test is skipped (another backend's, say) starts no helper and no engine.
  if (cls.tests.length > 0 && cls.tests.every((t) => t.skip)) {
    for (const t of cls.tests)
      for (const transport of TRANSPORTS.filter((x) => t.transports.includes(x) || (x === "http" && t.transports.length === 0)))
        results.push(skipped({ folder: cls.folder, className: cls.name, test: testName(t, transport), file: t.file }, t.skip ?? ""));
    return { results, warnings };
  }
  let service: Service;
  let helpers: Helpers | undefined;
  try {
    helpers = await startHelpers(cls);
    // Always on a real listener: the webhooks call the engine back, and cases run over WebSockets.
    service = await startService({ listen: true, env: { ...cls.env, ...helpers.env } });
    if (helpers.webhook && service.url) helpers.webhook.setEngine(service.url);
  } catch (error) {
    await helpers?.close();
    const reason = `${helpers ? "service" : "helper server"} start failed: ${(error as Error).message}`;
    for (const test of cls.tests)
      results.push(failed({ folder: cls.folder, className: cls.name, test: test.name, file: test.file }, reason));
    return { results, warnings };
  }
  const state: ClassState = { service, bodies: {}, warnings, aborted: false, done: 0, clients: {} };
  try {
    await withTimeout(runClassBody(cls, state, results), timeoutMs, `class ${cls.name}`);
  } catch (error) {
    state.aborted = true;
    const reason = error instanceof TimeoutError ? error.message : `runner error: ${(error as Error).message ?? error}`;
    for (const test of cls.tests.slice(state.done))
      results.push(failed({ folder: cls.folder, className: cls.name, test: test.name, file: test.file }, reason));
  } finally {
    for (const client of Object.values(state.clients)) client.teardown();
    await service.close();
    await helpers.close();
  }
  return { results, warnings };
}
