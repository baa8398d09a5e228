/**
 * The event triggers area: hasura/graphql-engine server/tests-py/test_events.py as a run plan, class
 * by class and test by test in upstream order (bodies in events-tests.ts). Every class of the module
 * has `evts_webhook` (pytestmark): the events receiver (events-webhook.ts) starts before the engine,
 * which gets its URL as EVENT_WEBHOOK_HANDLER; `@pytest.mark.hge_env` marks become the class's env.
 * - `per_method_tests_db_state` → mode "method", `per_class_tests_db_state` → "class"; classes
 *   without one (TestUpdateEventQuery's autouse `transact`) or with their own `setup_files`
 *   (TestDeleteEventQuery) do their state in the test body. The schema `hge_tests`, which
 *   upstream's test database holds (fixtures/postgres.py), is created first.
 * - `check_query_f` tests run their case file; the others are inline ports.
 * - Skipped: TestEventDataFormat's test_geojson (PostGIS), the MSSQL-only classes, and TestEventCreateAndResetNonDefaultSource on
 *   PGlite (its fixture adds a second PostgreSQL database as a source). No test of the module has
 *   a skip or xfail mark.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  basicInsertUpdateDelete,
  ET,
  manualTests,
  retryTests,
  selColsTests,
  selPayloadTests,
  testAsyncExecution,
  testBigint,
  testCreateResetNonDefaultSource,
  testDeleteBasic,
  testEventTransformBasic,
  testFlood,
  testHeaders,
  testInsertOnly,
  testPartitionedTableBasicInsert,
  testSessionVariables,
  testUpdateBasic,
} from "./events-tests.js";
import { type ClassPlan, FIXTURE_ROOT, type FolderPlan, loadFixture, type StateMode, type TestPlan } from "./fixtures.js";
import type { InlineTest } from "./inline.js";
import { splitSql } from "./postgis.js";
import { SERVER_URL } from "./service.js";

const PRELUDE = { type: "run_sql", args: { sql: "CREATE SCHEMA IF NOT EXISTS hge_tests;" } };

const MSSQL = "MSSQL only (@pytest.mark.backend('mssql')): another backend";

function inlineTest(name: string, inline: InlineTest, skip?: string): TestPlan {
  return { name, file: "", how: "inline", kw: {}, transports: ["http"], inline, ...(skip ? { skip } : {}) };
}

function caseTest(name: string, file: string): TestPlan {
  return { name, file, how: "check_query_f", kw: {}, transports: ["http"] };
}

const skippedTest = (name: string, skip: string) => inlineTest(name, async () => undefined, skip);

interface ClassOptions {
  env?: Record<string, string>;
  inlineSetup?: unknown;
}

function classPlan(name: string, dir: string, mode: StateMode, tests: TestPlan[], options: ClassOptions = {}): ClassPlan {
  return {
    folder: `${ET}/${dir}`,
    name,
    mode,
    postgis: false,
    tests,
    helpers: { eventsWebhook: "EVENT_WEBHOOK_HANDLER" },
    prelude: PRELUDE,
    ...(options.env ? { env: options.env } : {}),
    ...(options.inlineSetup ? { inlineSetup: options.inlineSetup } : {}),
  };
}

/** An MSSQL-only class: its tests reported as skipped (no engine is started for it). */
function mssqlClass(name: string, dir: string, tests: string[]): ClassPlan {
  return classPlan(
    name,
    dir,
    "none",
    tests.map((t) => skippedTest(t, MSSQL)),
  );
}

/**
 * data_format/setup.yaml without its PostGIS half (test_geojson, a GEOGRAPHY column, and its
 * trigger geojson_all), which test_bigint does not use; run once for the class. The class's teardown
 * is not run: the class's database is dropped after it.
 */
function bigintSetup(): unknown {
  const body = loadFixture(`${ET}/data_format/setup.yaml`) as { type: string; args: { type: string; args: Record<string, unknown> }[] };
  const geo = /geojson/i;
  const args = body.args
    .map((step) => {
      if (step.type !== "run_sql") return geo.test(JSON.stringify(step.args)) ? undefined : step;
      const sql = splitSql(String(step.args.sql))
        .filter((s) => !geo.test(s))
        .join(";\n");
      return { ...step, args: { ...step.args, sql } };
    })
    .filter((s) => s !== undefined);
  return { ...body, args };
}

const POSTGIS = "PostGIS data_format case (a GEOGRAPHY column): not run";
const NON_DEFAULT_SOURCE = SERVER_URL
  ? undefined
  : "needs a second PostgreSQL database as source `postgres` (add_source fixture): run with CONFORMANCE_DATABASE_URL";

const CLASSES: ClassPlan[] = [
  classPlan("TestEventCreateAndDelete", "create-delete", "method", [
    caseTest("test_create_delete", `${ET}/create-delete/create_and_delete.yaml`),
    caseTest("test_create_reset", `${ET}/create-delete/create_and_reset.yaml`),
    caseTest("test_create_operation_spec_not_provider_err", `${ET}/create-delete/create_trigger_operation_specs_not_provided_err.yaml`),
  ]),
  classPlan("TestEventCreateAndResetNonDefaultSource", "create_and_reset_non_default", "method", [
    {
      ...inlineTest("test_create_reset_non_default_source", testCreateResetNonDefaultSource, NON_DEFAULT_SOURCE),
      file: `${ET}/create_and_reset_non_default/create_and_reset_non_default_source.yaml`,
    },
  ]),
  mssqlClass("TestEventCreateAndDeleteMSSQL", "create-delete", [
    "test_create_delete",
    "test_create_reset",
    "test_create_operation_spec_not_provider_err",
  ]),
  classPlan("TestEventFloodPostgresMSSQL", "flood", "method", [inlineTest("test_flood", testFlood)], {
    env: { HASURA_GRAPHQL_EVENTS_FETCH_BATCH_SIZE: "100", HASURA_GRAPHQL_EVENTS_HTTP_POOL_SIZE: "8" },
  }),
  classPlan("TestEventDataFormat", "data_format", "none", [inlineTest("test_bigint", testBigint), skippedTest("test_geojson", POSTGIS)], {
    inlineSetup: bigintSetup(),
  }),
  mssqlClass("TestEventDataFormatBigIntMSSQL", "data_format/mssql/bigint", ["test_bigint"]),
  mssqlClass("TestEventDataFormatGeoJSONMSSQL", "data_format/mssql/geojson", ["test_geojson"]),
  classPlan("TestCreateEventQueryPostgresMSSQL", "basic", "class", [inlineTest("test_basic", basicInsertUpdateDelete("t1_all"))]),
  classPlan("TestCreateEventQueryPostgres", "basic", "class", [
    inlineTest("test_partitioned_table_basic_insert", testPartitionedTableBasicInsert),
  ]),
  classPlan(
    "TestEventRetryConfPostgresMSSQL",
    "retry_conf",
    "method",
    Object.entries(retryTests).map(([name, body]) => inlineTest(name, body)),
  ),
  classPlan("TestEventHeadersPostgresMSSQL", "headers", "method", [inlineTest("test_basic", testHeaders)], {
    env: { EVENT_WEBHOOK_HEADER: "MyEnvValue" },
  }),
  classPlan("TestUpdateEventQuery", "update_query", "none", [inlineTest("test_update_basic", testUpdateBasic)]),
  mssqlClass("TestUpdateEventQueryMSSQL", "update_query", ["test_update_basic"]),
  classPlan("TestDeleteEventQuery", "delete_query", "none", [inlineTest("test_delete_basic", testDeleteBasic)]),
  mssqlClass("TestDeleteEventQueryMSSQL", "delete_query", ["test_delete_basic"]),
  classPlan(
    "TestEventSelCols",
    "selected_cols",
    "class",
    Object.entries(selColsTests).map(([name, body]) => inlineTest(name, body)),
  ),
  mssqlClass("TestEventSelColsMSSQL", "selected_cols", ["test_selected_cols", "test_selected_cols_dep"]),
  classPlan("TestEventInsertOnly", "insert_only", "method", [inlineTest("test_insert_only", testInsertOnly)]),
  mssqlClass("TestEventInsertOnlyMSSQL", "insert_only", ["test_insert_only"]),
  mssqlClass("TestEventUpdateOnlyMSSQL", "update_only", ["test_update_only", "test_update_both_cases"]),
  classPlan(
    "TestEventSelPayload",
    "selected_payload",
    "class",
    Object.entries(selPayloadTests).map(([name, body]) => inlineTest(name, body)),
  ),
  mssqlClass("TestEventSelPayloadMSSQL", "selected_payload", ["test_selected_payload", "test_selected_payload_dep"]),
  classPlan("TestWebhookEvent", "webhook_env", "method", [inlineTest("test_basic", basicInsertUpdateDelete("t1_all"))]),
  mssqlClass("TestWebhookEventMSSQL", "webhook_env", ["test_basic"]),
  classPlan("TestEventWebhookTemplateURL", "webhook_template_url", "method", [
    inlineTest("test_basic", basicInsertUpdateDelete("t1_all", "/trigger")),
  ]),
  mssqlClass("TestEventWebhookTemplateURLMSSQL", "webhook_template_url", ["test_basic"]),
  classPlan("TestEventSessionVariables", "basic", "method", [inlineTest("test_basic", testSessionVariables)]),
  mssqlClass("TestEventSessionVariablesMSSQL", "basic", ["test_basic"]),
  classPlan(
    "TestManualEvents",
    "manual_events",
    "method",
    Object.entries(manualTests).map(([name, body]) => inlineTest(name, body)),
  ),
  mssqlClass("TestManualEventsMSSQL", "manual_events", ["test_basic", "test_basic_with_reload_metadata"]),
  classPlan("TestEventsAsynchronousExecutionPostgresMSSQL", "async_execution", "method", [
    inlineTest("test_async_execution", testAsyncExecution),
  ]),
  classPlan("TestEventTransform", "transform", "class", [
    { ...inlineTest("test_basic", testEventTransformBasic), file: `${ET}/transform/basic_transform.yaml` },
  ]),
  mssqlClass("TestEventTransformMSSQL", "transform", ["test_basic"]),
];

const STATE_FILES = /\/(setup|teardown)\.yaml$/;

/** Files of the area no test reads, and why. */
const UNUSED: Record<string, string> = {
  [`${ET}/update_query/dump-export-metadata.yaml`]: "not read by any test_events.py test at the source commit",
};

/** The event triggers area as folder plans (report areas like `queries/event_triggers/basic`), in upstream class order. */
export function loadEventsPlan(): FolderPlan[] {
  const manifest = JSON.parse(readFileSync(join(FIXTURE_ROOT, "manifest.json"), "utf8")) as {
    additional_areas?: Record<string, { path: string }[]>;
  };
  const files = (manifest.additional_areas?.["event triggers"] ?? []).map((f) => f.path);
  const read = new Set([
    ...CLASSES.flatMap((c) => c.tests.map((t) => t.file)),
    `${ET}/basic/partition_table_setup.yaml`,
    `${ET}/basic/partition_table_teardown.yaml`,
    `${ET}/update_query/create-setup.yaml`,
    `${ET}/update_query/update-setup.yaml`,
    `${ET}/manual_events/enabled.yaml`,
    `${ET}/manual_events/disabled.yaml`,
  ]);
  const folders = new Map<string, FolderPlan>();
  const folderOf = (folder: string): FolderPlan => {
    let plan = folders.get(folder);
    if (!plan) {
      plan = { folder, priority: "event_triggers", area: "event_triggers", subscription: false, classes: [], unreferenced: [] };
      folders.set(folder, plan);
    }
    return plan;
  };
  for (const cls of CLASSES) folderOf(cls.folder).classes.push(cls);
  for (const file of files) {
    if (!file.endsWith(".yaml") || STATE_FILES.test(file) || read.has(file)) continue;
    const plan = folderOf(file.slice(0, file.lastIndexOf("/")));
    plan.unreferenced.push(file);
    plan.unreferencedReason = UNUSED[file] ?? "not referenced by any upstream test class";
  }
  return [...folders.values()];
}
