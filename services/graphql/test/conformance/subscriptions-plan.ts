/**
 * tests-py's test_subscriptions.py, ported for the folders stored (queries/subscriptions/basic,
 * live_queries and streaming): the Python bodies become inline tests over the harness's WebSocket
 * clients (ws-client.ts), line for line, and the three classes that need no folder
 * (TestSubscriptionCtrl, TestSubscriptionCtrlWithoutSecret, TestSubscriptionBasicNoAuth) join the
 * basic folder. Classes marked `admin_secret` run with an admin secret, as upstream runs them;
 * every setup creates its tables in schema `hge_tests`, which upstream's test database holds.
 * Not stored, so not run: the multiplexing, udf_session_args and customized_source folders.
 */
import { randomUUID } from "node:crypto";
import type { ClassPlan, FolderPlan, TestPlan } from "./fixtures.js";
import { assertEqual, type InlineContext, InlineFailure, type InlineTest } from "./inline.js";
import type { Frame, HarnessWsClient } from "./ws-client.js";

const BASIC = "queries/subscriptions/basic";
const LIVE = "queries/subscriptions/live_queries";
const STREAMING = "queries/subscriptions/streaming";
const ADMIN_SECRET = { HASURA_GRAPHQL_ADMIN_SECRET: "conformance-admin-secret" };
const PRELUDE = { type: "run_sql", args: { sql: "CREATE SCHEMA IF NOT EXISTS hge_tests;" } };

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `assert cond, ev` */
function check(condition: boolean, what: string, actual: unknown): void {
  if (!condition) throw new InlineFailure(`assertion failed: ${what}`, { actual });
}

function expectType(frame: Frame, type: string, id?: string): void {
  check(frame.type === type && (id === undefined || frame.id === id), `a ${type} message${id ? ` for ${id}` : ""}`, frame);
}

function dataOf(frame: Frame): unknown {
  return (frame.payload as { data?: unknown } | undefined)?.data;
}

/** A graphql-ws test's preamble: `if closed: create_conn(); init() / init_as_admin()`. */
async function reconnectIfClosed(ctx: InlineContext, ws: HarnessWsClient): Promise<void> {
  if (!ws.closed) return;
  ws.createConn();
  await (ctx.hgeKey ? ws.initAsAdmin() : ws.init());
}

const T1_SUBSCRIPTION = `
        subscription {
        hge_tests_test_t1(order_by: {c1: desc}, limit: 1) {
            c1,
            c2
          }
        }`;
const T1_QUERY = `
        query {
          hge_tests_test_t1(order_by: {c1: desc}, limit: 1) {
            c1,
            c2
          }
        }`;

// --- TestSubscriptionCtrl / CtrlWithoutSecret / BasicNoAuth -------------------------------------

/** init_ws_conn, then connection_terminate: nothing more comes. */
const ctrlConnection: InlineTest = async (ctx) => {
  const ws = ctx.ws("apollo");
  ws.createConn();
  await ws.send({ type: "connection_init", payload: ctx.hgeKey ? { headers: { "X-Hasura-Admin-Secret": ctx.hgeKey } } : {} });
  expectType(await ws.event(3000), "connection_ack");
  await ws.send({ type: "connection_terminate" });
  await ws.expectNoEvent(3000);
};

/** An init with no credentials on an engine with an admin secret: the connection is closed. */
const closedConnection =
  (protocol: "apollo" | "graphql-ws"): InlineTest =>
  async (ctx) => {
    const ws = ctx.ws(protocol);
    ws.createConn();
    await ws.send({ type: "connection_init", payload: { headers: {} } });
    await sleep(2000);
    check(ws.closed, "the connection is closed", ws.closeCode);
  };

// --- TestSubscriptionBasic (Apollo) -------------------------------------------------------------

const apolloStart = async (ws: HarnessWsClient): Promise<void> => {
  const id = randomUUID();
  await ws.send({ id, payload: { query: T1_SUBSCRIPTION }, type: "start" });
  expectType(await ws.queryEvent(id, 15_000), "data", id);
};

const apolloStop = async (ws: HarnessWsClient): Promise<void> => {
  await ws.send({ type: "stop", id: "1" });
  await ws.expectNoEvent(3000);
};

const BASIC_APOLLO: Record<string, InlineTest> = {
  test_connection_error: async (ctx) => {
    const ws = ctx.ws("apollo");
    await ws.send({ type: "test" });
    expectType(await ws.event(15_000), "connection_error");
  },
  test_start: (ctx) => apolloStart(ctx.ws("apollo")),
  test_stop_without_id: async (ctx) => {
    const ws = ctx.ws("apollo");
    await ws.send({ type: "stop" });
    expectType(await ws.event(3000), "connection_error");
  },
  test_stop: (ctx) => apolloStop(ctx.ws("apollo")),
  test_start_after_stop: async (ctx) => {
    await apolloStart(ctx.ws("apollo"));
    await apolloStop(ctx.ws("apollo"));
  },
  test_complete: async (ctx) => {
    const ws = ctx.ws("apollo");
    await ws.send({ id: "2", payload: { query: T1_QUERY }, type: "start" });
    expectType(await ws.queryEvent("2", 3000), "data", "2");
    expectType(await ws.queryEvent("2", 3000), "complete", "2");
  },
};

// --- TestSubscriptionBasicGraphQLWS -------------------------------------------------------------

const gqlwsStart = async (ctx: InlineContext, ws: HarnessWsClient): Promise<void> => {
  await reconnectIfClosed(ctx, ws);
  const id = randomUUID();
  await ws.send({ id, payload: { query: T1_SUBSCRIPTION }, type: "subscribe" });
  expectType(await ws.queryEvent(id, 15_000), "next", id);
};

const gqlwsStop = async (ctx: InlineContext, ws: HarnessWsClient): Promise<void> => {
  await reconnectIfClosed(ctx, ws);
  await ws.send({ type: "complete", id: "1" });
  await sleep(2000);
  await ws.expectNoEvent(3000);
};

const BASIC_GQLWS: Record<string, InlineTest> = {
  test_connection_error: async (ctx) => {
    const ws = ctx.ws("graphql-ws");
    await reconnectIfClosed(ctx, ws);
    await ws.send({ type: "test" });
    await sleep(2000);
    check(ws.closed, "the connection is closed", ws.closeCode);
  },
  test_start: (ctx) => gqlwsStart(ctx, ctx.ws("graphql-ws")),
  test_stop_without_id: async (ctx) => {
    const ws = ctx.ws("graphql-ws");
    await reconnectIfClosed(ctx, ws);
    await ws.send({ type: "complete" });
    await sleep(2000);
    check(ws.closed, "the connection is closed", ws.closeCode);
  },
  test_stop: (ctx) => gqlwsStop(ctx, ctx.ws("graphql-ws")),
  test_start_after_stop: async (ctx) => {
    const ws = ctx.ws("graphql-ws");
    await gqlwsStart(ctx, ws);
    // test_start leaves a message in the queue.
    if (ws.queued > 0) ws.clearQueue();
    await gqlwsStop(ctx, ws);
  },
  test_complete: async (ctx) => {
    const ws = ctx.ws("graphql-ws");
    const id = randomUUID();
    await reconnectIfClosed(ctx, ws);
    await ws.send({ id, payload: { query: T1_QUERY }, type: "subscribe" });
    expectType(await ws.queryEvent(id, 3000), "next", id);
    expectType(await ws.queryEvent(id, 3000), "complete", id);
  },
};

// --- TestSubscriptionLiveQueries / ForGraphQLWS -------------------------------------------------

interface Step {
  name?: string;
  query: string;
  variables?: string;
  response: string;
  live_response?: string;
  stream_response?: string;
}

/** A mutation step over the socket: its data is the step's response, then it completes. */
async function mutationStep(ws: HarnessWsClient, step: Step, index: number, dataType: string): Promise<unknown> {
  const payload: Frame = { query: step.query };
  if (step.variables) payload.variables = JSON.parse(step.variables);
  const expected = JSON.parse(step.response) as Record<string, unknown>;
  const next = await ws.sendQuery(payload, `mutation_${index}`);
  const ev = await next();
  expectType(ev, dataType, `mutation_${index}`);
  assertEqual(dataOf(ev), expected, `mutation_${index} data`, ev);
  expectType(await next(), "complete", `mutation_${index}`);
  return expected;
}

const LIVE_TEMPLATE = `
        subscription ($result_limit: Int!) {
          hge_tests_live_query_{0}: hge_tests_test_t2(order_by: {c1: asc}, limit: $result_limit) {
            c1,
            c2
          }
        }`;

const liveQueries =
  (protocol: "apollo" | "graphql-ws"): InlineTest =>
  async (ctx) => {
    const dataType = protocol === "apollo" ? "data" : "next";
    const ws = ctx.ws(protocol);
    await ws.init(ctx.hgeKey ? { "X-Hasura-Admin-Secret": ctx.hgeKey } : {});
    const steps = ctx.conf(`${LIVE}/steps.yaml`) as Step[];
    const queries: Array<[number, number]> = [
      [0, 1],
      [1, 2],
      [2, 2],
    ];
    const lives: Array<() => Promise<Frame>> = [];
    for (const [i, limit] of queries) {
      const next = await ws.sendQuery({ query: LIVE_TEMPLATE.replace("{0}", String(i)), variables: { result_limit: limit } }, `live_${i}`);
      lives.push(next);
      const ev = await next();
      expectType(ev, dataType, `live_${i}`);
      assertEqual(dataOf(ev), { [`hge_tests_live_query_${i}`]: [] }, `live_${i} first data`, ev);
    }
    check(Array.isArray(steps), "steps.yaml is a list", steps);
    for (const [index, step] of steps.entries()) {
      const expected = (await mutationStep(ws, step, index, dataType)) as Record<string, { returning?: unknown[] }>;
      for (const [k, [i, limit]] of queries.entries()) {
        const ev = await (lives[k] as () => Promise<Frame>)();
        expectType(ev, dataType, `live_${i}`);
        let rows: unknown[] = [];
        if (step.live_response !== undefined) rows = JSON.parse(step.live_response) as unknown[];
        else if (step.name && expected[step.name]?.returning) rows = expected[step.name]?.returning as unknown[];
        assertEqual(dataOf(ev), { [`hge_tests_live_query_${i}`]: rows.slice(0, limit) }, `live_${i} after step ${index}`, ev);
      }
    }
    for (const [i] of queries) {
      await ws.stop(`live_${i}`);
      if (protocol === "graphql-ws") ws.clearQueue();
    }
    if (protocol === "apollo") await ws.expectNoEvent(3000);
  };

// --- TestStreamingSubscription / WithTies -------------------------------------------------------

const STREAMING_TESTS: Record<string, InlineTest> = {
  test_basic_streaming_subscription_existing_static_data: async (ctx) => {
    const ws = ctx.ws("apollo");
    await ws.init(ctx.hgeKey ? { "X-Hasura-Admin-Secret": ctx.hgeKey } : {});
    const query = `
        subscription ($batch_size: Int!) {
          hge_tests_stream_query: hge_tests_articles_stream(cursor: {initial_value: {id: 0}}, batch_size: $batch_size) {
             id
             title
          }
        }`;
    const articles = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, title: `Article title ${i + 1}` }));
    // utils.py's insert_many: a v1 insert of the rows.
    const inserted = await ctx.anyq("/v1/query", {
      type: "insert",
      args: { table: { schema: "hge_tests", name: "articles" }, objects: articles },
    });
    check(inserted.status === 200, "insert_many answered 200", inserted.body);
    const next = await ws.sendQuery({ query, variables: { batch_size: 2 } }, "stream_1");
    for (let idx = 0; idx < 5; idx++) {
      const ev = await next();
      expectType(ev, "data", "stream_1");
      const expected = [articles[2 * idx], articles[2 * idx + 1]];
      assertEqual(dataOf(ev), { hge_tests_stream_query: expected }, `batch ${idx}`, ev);
    }
    await ws.send({ id: "stream_1", type: "stop" });
    await ws.expectNoEvent(3000);
  },
  test_streaming_subscriptions_with_concurrent_data_inserts: async (ctx) => {
    const ws = ctx.ws("apollo");
    await ws.initAsAdmin();
    const query = `
        subscription ($batch_size: Int!, $initial_created_at: timestamptz!) {
          hge_tests_stream_query: hge_tests_test_t2_stream(cursor: [{initial_value: {created_at: $initial_created_at}, ordering: ASC}], batch_size: $batch_size) {
             c1
             c2
          }
        }`;
    const steps = ctx.conf(`${STREAMING}/steps.yaml`) as Step[];
    const live = await ws.sendQuery({ query, variables: { batch_size: 2, initial_created_at: "2020-01-01" } }, "stream_1");
    check(Array.isArray(steps), "steps.yaml is a list", steps);
    for (const [index, step] of steps.entries()) {
      await mutationStep(ws, step, index, "data");
      const ev = await live();
      expectType(ev, "data", "stream_1");
      assertEqual(dataOf(ev), { hge_tests_stream_query: JSON.parse(step.stream_response ?? "null") }, `stream after step ${index}`, ev);
    }
    await ws.send({ id: "stream_1", type: "stop" });
    await ws.expectNoEvent(3000);
  },
  test_streaming_subscription_with_custom_name_set_for_cursor: async (ctx) => {
    const ws = ctx.ws("apollo");
    await ws.init(ctx.hgeKey ? { "X-Hasura-Admin-Secret": ctx.hgeKey } : {});
    const query = `
        subscription ($batch_size: Int!) {
          hge_tests_stream_query: hge_tests_users_stream(cursor: {initial_value: {userId: 0}}, batch_size: $batch_size) {
             userId
             name
          }
        }`;
    const next = await ws.sendQuery({ query, variables: { batch_size: 1 } }, "stream_1");
    for (let idx = 0; idx < 2; idx++) {
      const ev = await next();
      expectType(ev, "data", "stream_1");
      assertEqual(dataOf(ev), { hge_tests_stream_query: [{ userId: idx + 1, name: `Name ${idx + 1}` }] }, `batch ${idx}`, ev);
    }
    await ws.send({ id: "stream_1", type: "stop" });
    await ws.expectNoEvent(3000);
  },
};

const TIES_SQL = `
            ALTER TABLE hge_tests.articles ADD COLUMN IF NOT EXISTS priority INT;
            DELETE FROM hge_tests.articles;
            INSERT INTO hge_tests.articles (id, priority) VALUES
                (7, 1), (6, 2), (5, 2), (4, 2),
                (1, 3), (2, 4),
                (3, 5);`;

const withTies: InlineTest = async (ctx) => {
  const ran = await ctx.anyq("/v1/query", { type: "run_sql", args: { sql: TIES_SQL } });
  check(ran.status === 200, "run_sql answered 200", ran.body);
  const ws = ctx.ws("apollo");
  await ws.initAsAdmin();
  const query = `
        subscription ($batch_size: Int!) {
          stream_data: hge_tests_articles_stream(
            cursor: [{initial_value: {priority: 0}, ordering: ASC}],
            batch_size: $batch_size
          ) {
            id
            priority
          }
        }`;
  const next = await ws.sendQuery({ query, variables: { batch_size: 2 } }, "stream_test");
  const batch = async (priorities: number[], ids: number[], which: string) => {
    const ev = await next();
    expectType(ev, "data", "stream_test");
    const rows = (dataOf(ev) as { stream_data?: Array<{ id: number; priority: number }> } | undefined)?.stream_data ?? [];
    assertEqual(
      rows.map((r) => r.priority),
      priorities,
      `${which} batch's priorities`,
      ev,
    );
    assertEqual(
      rows.map((r) => r.id).sort((a, b) => a - b),
      ids,
      `${which} batch's ids`,
      ev,
    );
  };
  await batch([1, 2, 2, 2], [4, 5, 6, 7], "first");
  await batch([3, 4], [1, 2], "second");
  await batch([5], [3], "third");
  await ws.send({ id: "stream_test", type: "stop" });
};

// --- The plan -----------------------------------------------------------------------------------

const INLINE: Record<string, Record<string, InlineTest>> = {
  TestSubscriptionBasic: BASIC_APOLLO,
  TestSubscriptionBasicGraphQLWS: BASIC_GQLWS,
  TestSubscriptionLiveQueries: { test_live_queries: liveQueries("apollo") },
  TestSubscriptionLiveQueriesForGraphQLWS: { test_live_queries: liveQueries("graphql-ws") },
  TestStreamingSubscription: STREAMING_TESTS,
  TestStreamingSubscriptionWithTies: { test_streaming_subscription_with_duplicate_cursor_values: withTies },
};

/** Classes marked `admin_secret` upstream. */
const WITH_SECRET = new Set([
  "TestSubscriptionBasic",
  "TestSubscriptionBasicGraphQLWS",
  "TestSubscriptionLiveQueries",
  "TestSubscriptionLiveQueriesForGraphQLWS",
]);

/** The class-scoped socket fixture each class uses (ws_conn_init / ws_conn_init_graphql_ws). */
const WS_INIT: Record<string, "apollo" | "graphql-ws"> = {
  TestSubscriptionBasic: "apollo",
  TestSubscriptionBasicGraphQLWS: "graphql-ws",
  TestSubscriptionLiveQueries: "apollo",
  TestSubscriptionLiveQueriesForGraphQLWS: "graphql-ws",
  TestStreamingSubscription: "apollo",
  TestStreamingSubscriptionWithTies: "apollo",
};

function inlineTest(name: string, inline: InlineTest): TestPlan {
  return { name, file: "", how: "inline", kw: {}, transports: ["http"], inline };
}

function extraClass(name: string, tests: Record<string, InlineTest>, secret: boolean): ClassPlan {
  return {
    folder: BASIC,
    name,
    mode: "none",
    postgis: false,
    tests: Object.entries(tests).map(([test, body]) => inlineTest(test, body)),
    ...(secret ? { env: ADMIN_SECRET } : {}),
  };
}

/** The manifest's subscription folders with their Python bodies ported, and the classes that need no folder. */
export function subscriptionFolders(folders: FolderPlan[]): FolderPlan[] {
  return folders.map((folder) => {
    if (!folder.subscription) return folder;
    const classes = folder.classes.map((cls): ClassPlan => {
      const bodies = INLINE[cls.name] ?? {};
      const tests = cls.tests.map((test): TestPlan => {
        const inline = bodies[test.name];
        const gqlws = cls.name === "TestSubscriptionBasicGraphQLWS" ? { gqlws: true } : {};
        if (test.file.endsWith(".yaml") && test.how === "case") return { ...test, ...gqlws };
        if (!inline) return test;
        const { skip, ...rest } = test;
        return { ...rest, how: "inline", transports: ["http"], inline, ...(test.skip?.startsWith("upstream") ? { skip } : {}) };
      });
      return {
        ...cls,
        tests,
        prelude: PRELUDE,
        ...(WS_INIT[cls.name] ? { wsInit: WS_INIT[cls.name] } : {}),
        ...(WITH_SECRET.has(cls.name) ? { env: { ...cls.env, ...ADMIN_SECRET } } : {}),
      };
    });
    if (folder.folder === BASIC)
      classes.unshift(
        extraClass("TestSubscriptionCtrlWithoutSecret", { test_connection: ctrlConnection }, false),
        extraClass("TestSubscriptionCtrl", { test_connection: ctrlConnection }, true),
        extraClass(
          "TestSubscriptionBasicNoAuth",
          { test_closed_connection_apollo: closedConnection("apollo"), test_closed_connection_graphql_ws: closedConnection("graphql-ws") },
          true,
        ),
      );
    return { ...folder, classes };
  });
}
