/**
 * test_events.py's test bodies (the Postgres classes), ported line for line as inline tests; the
 * class plans that run them are in events-plan.ts. Every class has the module's `evts_webhook`
 * (events-webhook.ts); `check_event` and the other helpers are in events-checks.ts.
 */
import pg from "pg";
import {
  checkEvent,
  execute,
  insert,
  insertMany,
  raisesQueueEmpty,
  remove,
  type Table,
  untilAssertsPass,
  update,
  v1metadataq,
  v1metadataqFile,
  v1q,
  v1qFile,
  withStateFiles,
} from "./events-checks.js";
import { currentEventsWebhook } from "./events-webhook.js";
import { assertEqual, dig, InlineFailure, type InlineTest } from "./inline.js";
import { SERVER_URL } from "./service.js";

export const ET = "queries/event_triggers";
const T1: Table = { schema: "hge_tests", name: "test_t1" };
const evts = () => currentEventsWebhook();

/** Insert, update c2, delete on hge_tests.test_t1, each event checked (TestCreateEventQuery…, TestWebhookEvent, …). */
export function basicInsertUpdateDelete(trigger: string, webhookPath = "/"): InlineTest {
  return async (ctx) => {
    const initRow = { c1: 1, c2: "hello" };
    await insert(ctx, T1, initRow);
    await checkEvent(evts(), trigger, T1, "INSERT", { old: null, new: initRow }, { webhookPath });
    await update(ctx, T1, { c1: 1 }, { c2: "world" });
    await checkEvent(evts(), trigger, T1, "UPDATE", { old: initRow, new: { c1: 1, c2: "world" } }, { webhookPath });
    await remove(ctx, T1, { c1: 1 });
    await checkEvent(evts(), trigger, T1, "DELETE", { old: { c1: 1, c2: "world" }, new: null }, { webhookPath });
  };
}

/** Opens a client on a database of the server, runs `work`, closes it. */
async function onDatabase<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

const EVENT_LOG_EXISTS =
  "SELECT EXISTS (SELECT * FROM information_schema.tables WHERE table_schema = 'hdb_catalog' and table_name = 'event_log')";

/**
 * TestEventCreateAndResetNonDefaultSource: its class-scoped `another_source` fixture (conftest.py's
 * add_source('postgres') in --hge-bin mode: a new database added as source `postgres` through
 * export_metadata + replace_metadata, its hge_tests schema made anew; dropped afterwards), then the
 * test body. Needs a PostgreSQL server (CONFORMANCE_DATABASE_URL): the plan skips it on PGlite.
 */
export const testCreateResetNonDefaultSource: InlineTest = async (ctx) => {
  if (!SERVER_URL) throw new InlineFailure("needs CONFORMANCE_DATABASE_URL");
  const name = `hasura_conformance_src_postgres_${process.pid}_${Date.now().toString(36)}`;
  await onDatabase(SERVER_URL, (c) => c.query(`CREATE DATABASE "${name}"`));
  const url = new URL(SERVER_URL);
  url.pathname = `/${name}`;
  const sourceUrl = url.toString();
  try {
    await onDatabase(sourceUrl, (c) => c.query("CREATE SCHEMA hge_tests"));
    // fixtures/postgres.py add_source
    const metadata = (await v1metadataq(ctx, { type: "export_metadata", args: {} })) as { sources: unknown[] };
    metadata.sources.push({
      name: "postgres",
      kind: "postgres",
      configuration: { connection_info: { database_url: sourceUrl } },
      customization: null,
      tables: [],
    });
    await v1metadataq(ctx, { type: "replace_metadata", args: metadata }).catch((error: Error) => {
      if (error instanceof InlineFailure) error.message = `another_source fixture (add_source('postgres')): ${error.message}`;
      throw error;
    });
    // the fixture: DROP SCHEMA IF EXISTS hge_tests CASCADE, then CREATE SCHEMA hge_tests
    await onDatabase(sourceUrl, (c) => c.query("DROP SCHEMA IF EXISTS hge_tests CASCADE; CREATE SCHEMA hge_tests"));

    await ctx.checkQueryFile(`${ET}/create_and_reset_non_default/create_and_reset_non_default_source.yaml`);
    await onDatabase(sourceUrl, async (c) => {
      const before = await c.query<{ exists: boolean }>(EVENT_LOG_EXISTS);
      assertEqual(before.rows[0]?.exists, true, "event_log exists in the source before clear_metadata", before.rows);
      await v1metadataq(ctx, { type: "clear_metadata", args: {} });
      const after = await c.query<{ exists: boolean }>(EVENT_LOG_EXISTS);
      assertEqual(after.rows[0]?.exists, false, "event_log dropped from the source by clear_metadata", after.rows);
    });
  } finally {
    // fixtures/postgres.py drop_source, then the database goes
    await v1metadataq(ctx, { type: "export_metadata", args: {} })
      .then((m) => {
        const metadata = m as { sources: { name: string }[] };
        metadata.sources = metadata.sources.filter((s) => s.name !== "postgres");
        return v1metadataq(ctx, { type: "replace_metadata", args: metadata });
      })
      .catch(() => undefined);
    await onDatabase(SERVER_URL, (c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).catch(() => undefined);
  }
};

/** TestEventFloodPostgresMSSQL.test_flood (HASURA_GRAPHQL_EVENTS_FETCH_BATCH_SIZE 100, HTTP_POOL_SIZE 8). */
export const testFlood: InlineTest = async (ctx) => {
  const table: Table = { schema: "hge_tests", name: "test_flood" };
  const payload = Array.from({ length: 1000 }, (_, i) => i + 1);
  await insertMany(
    ctx,
    table,
    payload.map((x) => ({ c1: x, c2: "hello" })),
  );
  const checkBackpressure = async () => {
    assertEqual(evts().blockedCount, 8, "evts_webhook.blocked_count (requests pending on /block)");
    const sql = `
                        select
                        (select count(*) from hdb_catalog.event_log where locked IS NOT NULL) as num_locked,
                        count(*) as total
                        from hdb_catalog.event_log
                        where table_name = 'test_flood'
                        `;
    const resp = await v1q(ctx, { type: "run_sql", args: { sql } });
    assertEqual(dig(resp, "result", 1, 0), "200", "resp['result'][1][0] (events locked: 100 prefetched + 100 in process)", resp);
  };
  await untilAssertsPass(30, checkBackpressure);
  await ctx.sleep(3000);
  await checkBackpressure();
  evts().unblock();
  const ns: number[] = [];
  for (const _ of payload) ns.push(dig((await evts().getEvent(600_000)).body, "event", "data", "new", "c1") as number);
  ns.sort((a, b) => a - b);
  assertEqual(ns, payload, "the c1 of every delivered event, sorted");
};

/** TestEventDataFormat.test_bigint: the id is sent with all its digits (Python ints are exact). */
export const testBigint: InlineTest = async (ctx) => {
  const table: Table = { schema: "hge_tests", name: "test_bigint" };
  const body = JSON.stringify({ type: "insert", args: { table, objects: [{ id: 0, name: "hello" }], returning: [] } }).replace(
    '"id":0',
    '"id":50755254975729665',
  );
  await execute(ctx, "/v1/query", body);
  await checkEvent(evts(), "bigint_all", table, "INSERT", { old: null, new: { id: "50755254975729665", name: "hello" } });
};

/** TestCreateEventQueryPostgres.test_partitioned_table_basic_insert */
export const testPartitionedTableBasicInsert: InlineTest = async (ctx) => {
  await v1qFile(ctx, `${ET}/basic/partition_table_setup.yaml`);
  const table: Table = { schema: "hge_tests", name: "measurement" };
  const initRow = { city_id: 1, logdate: "2006-02-02", peaktemp: 1, unitsales: 1 };
  await insert(ctx, table, initRow);
  await checkEvent(evts(), "measurement_all", table, "INSERT", { old: null, new: initRow });
  await v1qFile(ctx, `${ET}/basic/partition_table_teardown.yaml`);
};

/** TestEventRetryConfPostgresMSSQL: test_basic, test_timeout_short, test_timeout_long, test_queue_empty. */
export const retryTests: Record<string, InlineTest> = {
  test_basic: async (ctx) => {
    const initRow = { c1: 1, c2: "hello" };
    await insert(ctx, T1, initRow);
    for (let retry = 0; retry <= 4; retry++)
      await checkEvent(evts(), "t1_retry", T1, "INSERT", { old: null, new: initRow }, { webhookPath: "/fail", retry });
  },
  test_timeout_short: async (ctx) => {
    const table: Table = { schema: "hge_tests", name: "test_t2" };
    const initRow = { c1: 1, c2: "hello" };
    await insert(ctx, table, initRow);
    for (let retry = 0; retry <= 2; retry++)
      await checkEvent(
        evts(),
        "t2_timeout_short",
        table,
        "INSERT",
        { old: null, new: initRow },
        { webhookPath: "/sleep_2s", retry, getTimeout: 5 },
      );
  },
  test_timeout_long: async (ctx) => {
    const table: Table = { schema: "hge_tests", name: "test_t3" };
    const initRow = { c1: 1, c2: "hello" };
    await insert(ctx, table, initRow);
    await ctx.sleep(2000);
    await checkEvent(evts(), "t3_timeout_long", table, "INSERT", { old: null, new: initRow }, { webhookPath: "/sleep_2s" });
  },
  test_queue_empty: async () => {
    await raisesQueueEmpty("expected queue to be empty", () => evts().getEvent(3000));
  },
};

/** TestEventHeadersPostgresMSSQL.test_basic (EVENT_WEBHOOK_HEADER=MyEnvValue) */
export const testHeaders: InlineTest = async (ctx) => {
  const initRow = { c1: 1, c2: "hello" };
  const headers = { "X-Header-From-Value": "MyValue", "X-Header-From-Env": "MyEnvValue" };
  await insert(ctx, T1, initRow);
  await checkEvent(evts(), "t1_all", T1, "INSERT", { old: null, new: initRow }, { headers });
};

/** TestUpdateEventQuery: its autouse `transact` fixture around test_update_basic. */
export const testUpdateBasic: InlineTest = async (ctx) => {
  const dir = `${ET}/update_query`;
  await v1qFile(ctx, `${dir}/create-setup.yaml`);
  const resp = await v1qFile(ctx, `${dir}/update-setup.yaml`);
  assertEqual(
    dig(resp, 1, "sources", 0, "tables", 0, "event_triggers", 0, "webhook"),
    "{{EVENT_WEBHOOK_HANDLER}}/new",
    "transact fixture: resp[1]['sources'][0]['tables'][0]['event_triggers'][0]['webhook']",
    resp,
  );
  try {
    const initRow = { c1: 1, c2: "hello", c3: { name: "clarke" } };
    await insert(ctx, T1, initRow);
    await raisesQueueEmpty("insert (no insert spec any more)", () =>
      checkEvent(evts(), "t1_cols", T1, "INSERT", {}, { webhookPath: "/new", getTimeout: 0 }),
    );
    await update(ctx, T1, { c1: 1 }, { c2: "world" });
    await raisesQueueEmpty("update of c2 (not a listened column any more)", () =>
      checkEvent(evts(), "t1_cols", T1, "UPDATE", {}, { webhookPath: "/new", getTimeout: 0 }),
    );
    await update(ctx, T1, { c1: 1 }, { c3: { name: "bellamy" } });
    const world = { c1: 1, c2: "world" };
    await checkEvent(
      evts(),
      "t1_cols",
      T1,
      "UPDATE",
      { old: { ...world, c3: { name: "clarke" } }, new: { ...world, c3: { name: "bellamy" } } },
      { webhookPath: "/new" },
    );
    await update(ctx, T1, { c1: 1 }, { c1: 2 });
    const bellamy = { c2: "world", c3: { name: "bellamy" } };
    await checkEvent(evts(), "t1_cols", T1, "UPDATE", { old: { c1: 1, ...bellamy }, new: { c1: 2, ...bellamy } }, { webhookPath: "/new" });
    await remove(ctx, T1, { c1: 2 });
    await checkEvent(evts(), "t1_cols", T1, "DELETE", { old: { c1: 2, ...bellamy }, new: null }, { webhookPath: "/new" });
  } finally {
    await v1qFile(ctx, `${dir}/teardown.yaml`);
  }
};

/** TestDeleteEventQuery.test_delete_basic, with the class's setup_files / teardown_files. */
export const testDeleteBasic: InlineTest = (ctx) =>
  withStateFiles(ctx, [`${ET}/basic/setup.yaml`, `${ET}/delete_query/setup.yaml`], [`${ET}/delete_query/teardown.yaml`], async () => {
    const initRow = { c1: 1, c2: "hello" };
    await insert(ctx, T1, initRow);
    await raisesQueueEmpty("insert after delete_event_trigger", () =>
      checkEvent(evts(), "t1_all", T1, "INSERT", { old: null, new: initRow }, { getTimeout: 0 }),
    );
    await update(ctx, T1, { c1: 1 }, { c2: "world" });
    await raisesQueueEmpty("update after delete_event_trigger", () =>
      checkEvent(evts(), "t1_all", T1, "UPDATE", { old: initRow, new: { c1: 1, c2: "world" } }, { getTimeout: 0 }),
    );
    await remove(ctx, T1, { c1: 1 });
    await raisesQueueEmpty("delete after delete_event_trigger", () =>
      checkEvent(evts(), "t1_all", T1, "DELETE", { old: { c1: 1, c2: "world" }, new: null }, { getTimeout: 2 }),
    );
  });

/** `resp = v1q(run_sql alter table … drop column …, expected_status_code); assert resp['code'] == …` */
async function dropColumn(ctx: Parameters<InlineTest>[0], column: string, expected: 200 | 400): Promise<void> {
  const resp = await v1q(ctx, { type: "run_sql", args: { sql: `alter table hge_tests.test_t1 drop column ${column}` } }, {}, expected);
  if (expected === 400) assertEqual(dig(resp, "code"), "dependency-error", `drop column ${column}: resp['code']`, resp);
}

/** TestEventSelCols */
export const selColsTests: Record<string, InlineTest> = {
  test_selected_cols: async (ctx) => {
    await insert(ctx, T1, { c1: 1, c2: "hello" });
    const inserted = { old: null, new: { c1: 1, c2: "hello" } };
    await checkEvent(evts(), "t1_cols", T1, "INSERT", inserted);
    await update(ctx, T1, { c1: 1 }, { c2: "world" });
    await raisesQueueEmpty("update of c2 (not listened)", () => checkEvent(evts(), "t1_cols", T1, "UPDATE", inserted, { getTimeout: 0 }));
    await update(ctx, T1, { c1: 1 }, { c1: 2 });
    await checkEvent(evts(), "t1_cols", T1, "UPDATE", { old: { c1: 1, c2: "world" }, new: { c1: 2, c2: "world" } });
    await remove(ctx, T1, { c1: 2 });
    await checkEvent(evts(), "t1_cols", T1, "DELETE", { old: { c1: 2, c2: "world" }, new: null });
  },
  test_selected_cols_dep: async (ctx) => {
    await dropColumn(ctx, "c1", 400);
    await dropColumn(ctx, "c2", 200);
  },
};

/** TestEventInsertOnly.test_insert_only */
export const testInsertOnly: InlineTest = async (ctx) => {
  const initRow = { c1: 1, c2: "hello" };
  await insert(ctx, T1, initRow);
  await checkEvent(evts(), "t1_insert", T1, "INSERT", { old: null, new: initRow });
  await update(ctx, T1, { c1: 1 }, { c2: "world" });
  await raisesQueueEmpty("update (insert-only trigger)", () =>
    checkEvent(evts(), "t1_insert", T1, "UPDATE", { old: initRow, new: { c1: 1, c2: "world" } }, { getTimeout: 0 }),
  );
  await remove(ctx, T1, { c1: 1 });
  await raisesQueueEmpty("delete (insert-only trigger)", () =>
    checkEvent(evts(), "t1_insert", T1, "DELETE", { old: { c1: 1, c2: "world" }, new: null }, { getTimeout: 2 }),
  );
};

/** TestEventSelPayload */
export const selPayloadTests: Record<string, InlineTest> = {
  test_selected_payload: async (ctx) => {
    await insert(ctx, T1, { c1: 1, c2: "hello" });
    await checkEvent(evts(), "t1_payload", T1, "INSERT", { old: null, new: { c1: 1, c2: "hello" } });
    await update(ctx, T1, { c1: 1 }, { c2: "world" });
    await checkEvent(evts(), "t1_payload", T1, "UPDATE", { old: { c1: 1 }, new: { c1: 1 } });
    await update(ctx, T1, { c1: 1 }, { c1: 2 });
    await checkEvent(evts(), "t1_payload", T1, "UPDATE", { old: { c1: 1 }, new: { c1: 2 } });
    await remove(ctx, T1, { c1: 2 });
    await checkEvent(evts(), "t1_payload", T1, "DELETE", { old: { c2: "world" }, new: null });
  },
  test_selected_payload_dep: async (ctx) => {
    await dropColumn(ctx, "c1", 400);
    await dropColumn(ctx, "c2", 400);
  },
};

/** TestEventSessionVariables.test_basic */
export const testSessionVariables: InlineTest = async (ctx) => {
  const initRow = { c1: 1, c2: "hello" };
  const insertVars = { "x-hasura-role": "admin", "x-hasura-allowed-roles": "['admin','user']", "x-hasura-user-id": "1" };
  await insert(ctx, T1, initRow, insertVars);
  await checkEvent(evts(), "t1_all", T1, "INSERT", { old: null, new: initRow }, { sessionVariables: insertVars });
  const updateHeaders = { "x-hasura-role": "admin", "x-hasura-random": "some_random_info", "X-Random-Header": "not_session_variable" };
  await update(ctx, T1, { c1: 1 }, { c2: "world" }, updateHeaders);
  const { "X-Random-Header": _, ...updateVars } = updateHeaders;
  await checkEvent(evts(), "t1_all", T1, "UPDATE", { old: initRow, new: { c1: 1, c2: "world" } }, { sessionVariables: updateVars });
  await remove(ctx, T1, { c1: 1 });
  await checkEvent(evts(), "t1_all", T1, "DELETE", { old: { c1: 1, c2: "world" }, new: null });
};

/** TestManualEvents.test_basic */
const manualBasic: InlineTest = async (ctx) => {
  await v1metadataqFile(ctx, `${ET}/manual_events/enabled.yaml`);
  await v1metadataqFile(ctx, `${ET}/manual_events/disabled.yaml`, 400);
};

export const manualTests: Record<string, InlineTest> = {
  test_basic: manualBasic,
  test_basic_with_reload_metadata: async (ctx) => {
    const reload = { type: "reload_metadata", args: { source: "mssql", reload_sources: true } };
    for (let i = 0; i < 5; i++) {
      try {
        await manualBasic(ctx);
        await v1metadataq(ctx, reload);
        await manualBasic(ctx);
      } catch (error) {
        if (error instanceof InlineFailure) error.message = `round ${i + 1}/5: ${error.message}`;
        throw error;
      }
    }
  },
};

/** TestEventsAsynchronousExecutionPostgresMSSQL.test_async_execution: 5 events on /sleep_2s in under 10 s. */
export const testAsyncExecution: InlineTest = async (ctx) => {
  await insertMany(
    ctx,
    T1,
    [1, 2, 3, 4, 5].map((x) => ({ c1: x, c2: "hello" })),
  );
  const start = performance.now();
  for (let i = 0; i < 5; i++) await evts().getEvent(5000);
  const elapsed = (performance.now() - start) / 1000;
  if (!(elapsed < 10)) throw new InlineFailure(`assert time_elapsed < 10: took ${elapsed.toFixed(1)} s`);
};

/** TestEventTransform.test_basic: the body, query string and headers of basic_transform.yaml's request transform. */
export const testEventTransformBasic: InlineTest = async (ctx) => {
  await ctx.checkQueryFile(`${ET}/transform/basic_transform.yaml`);
  const insertRow = { id: 0, first_name: "Simon", last_name: "Marlow" };
  await insert(ctx, T1, insertRow);
  // check_event_transformed(..., headers={"foo": "bar"}, removedHeaders=["user-agent"], webhook_path="/?foo=bar")
  const evFull = await evts().getEvent(3000);
  assertEqual(evFull.path, "/?foo=bar", "event path", evFull);
  assertEqual(evFull.headers.foo ?? null, "bar", "event header foo", evFull);
  assertEqual(evFull.headers["user-agent"] ?? null, null, "removed header user-agent", evFull);
  assertEqual(evFull.body, insertRow, "event body", evFull);
};
