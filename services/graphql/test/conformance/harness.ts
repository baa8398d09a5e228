/**
 * Runs one test class the way tests-py does: a fresh service, the class's state fixtures
 * (setup/teardown per class or per method; schema_* once and values_* around each mutation test),
 * then each case file in order, over HTTP only.
 */
import type { ClassPlan, TestPlan } from "./fixtures.js";
import { loadFixture, readFixtureText, shortName } from "./fixtures.js";
import { emptyRemoved, mentionsPostgis, postgisSkipReason, type Removed, stripPostgis } from "./postgis.js";
import { runCase } from "./run-case.js";
import { type Reply, type Service, startService, TimeoutError, withTimeout } from "./service.js";
import { type CaseResult, failed, skipped } from "./types.js";

export const CLASS_TIMEOUT_MS = Number(process.env.CONFORMANCE_CLASS_TIMEOUT_MS ?? 300_000);

const SETUP_FILES = ["setup", "teardown", "schema_setup", "schema_teardown", "values_setup", "values_teardown"] as const;
type SetupName = (typeof SETUP_FILES)[number];

interface ClassState {
  service: Service;
  bodies: Partial<Record<SetupName, unknown>>;
  removed?: Removed;
  warnings: string[];
  aborted: boolean;
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

async function runTest(cls: ClassPlan, test: TestPlan, state: ClassState): Promise<CaseResult> {
  const base = { folder: cls.folder, className: cls.name, test: test.name, file: test.file };
  if (test.skip) return skipped(base, test.skip);
  if (!test.transports.includes("http")) return skipped(base, `transports ${test.transports.join("/")} only (no http)`);
  if (test.how === "open") return skipped(base, "subscription steps file (websocket)");
  const text = readFixtureText(test.file);
  if (text === undefined) return failed(base, `missing fixture ${shortName(test.file)}`);
  const postgis = state.removed && postgisSkipReason(text, state.removed);
  if (postgis) return skipped(base, postgis);
  const before = cls.mode === "method" ? state.bodies.setup : cls.mode === "mutation" ? state.bodies.values_setup : undefined;
  const setupError = await applyState(state, cls.mode === "method" ? "setup" : "values_setup", before);
  if (setupError) return failed(base, `setup failed: ${setupError}`);
  const result = await runCase(state.service, test, text, base);
  const after = cls.mode === "method" ? state.bodies.teardown : cls.mode === "mutation" ? state.bodies.values_teardown : undefined;
  const teardownError = await applyState(state, cls.mode === "method" ? "teardown" : "values_teardown", after);
  if (teardownError) state.warnings.push(`after ${shortName(test.file)}: ${teardownError}`);
  if (test.xfail && result.outcome === "fail") return skipped(base, `upstream xfail (failed here too: ${result.reason})`);
  return result;
}

async function runClassBody(cls: ClassPlan, state: ClassState, results: CaseResult[]): Promise<void> {
  state.bodies = await loadBodies(cls);
  await preparePostgis(cls, state);
  const classSetup =
    cls.inlineSetup ?? (cls.mode === "class" ? state.bodies.setup : cls.mode === "mutation" ? state.bodies.schema_setup : undefined);
  const setupError = await applyState(state, cls.inlineSetup ? "inline" : cls.mode === "class" ? "setup" : "schema_setup", classSetup);
  for (const test of cls.tests) {
    if (state.aborted) return;
    const base = { folder: cls.folder, className: cls.name, test: test.name, file: test.file };
    const result = setupError && !test.skip ? failed(base, `class setup failed: ${setupError}`) : await runTest(cls, test, state);
    if (state.aborted) return;
    results.push(result);
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

export async function runClass(cls: ClassPlan, timeoutMs = CLASS_TIMEOUT_MS): Promise<ClassRun> {
  const results: CaseResult[] = [];
  const warnings: string[] = [];
  let service: Service;
  try {
    service = await startService();
  } catch (error) {
    const reason = `service start failed: ${(error as Error).message}`;
    for (const test of cls.tests)
      results.push(failed({ folder: cls.folder, className: cls.name, test: test.name, file: test.file }, reason));
    return { results, warnings };
  }
  const state: ClassState = { service, bodies: {}, warnings, aborted: false };
  try {
    await withTimeout(runClassBody(cls, state, results), timeoutMs, `class ${cls.name}`);
  } catch (error) {
    state.aborted = true;
    const reason = error instanceof TimeoutError ? error.message : `runner error: ${(error as Error).message ?? error}`;
    for (const test of cls.tests.slice(results.length))
      results.push(failed({ folder: cls.folder, className: cls.name, test: test.name, file: test.file }, reason));
  } finally {
    await service.close();
  }
  return { results, warnings };
}
