/**
 * Hasura's API limits (https://hasura.io/docs/2.0/security/api-limits/): the metadata
 * (set_api_limits, remove_api_limits, export/replace_metadata, api_limits.yaml), and each limit
 * as a client meets it on /v1/graphql: depth and node limits checked before any SQL, batch
 * limits on array bodies, rate limits per role and unique parameter (in memory, and in Redis
 * shared by two instances), each global and per role, the admin role exempt, `disabled` off.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Database, Queryable } from "@platform/core";
import { parse } from "graphql";
import { Redis } from "ioredis";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { stringify } from "yaml";
import { RequestGuard } from "../src/engine/limits/guard.js";
import { operationSize } from "../src/engine/limits/operation-size.js";
import { RateCounter } from "../src/engine/limits/rate-counter.js";
import { parseApiLimits } from "../src/engine/metadata/api-limits.js";
import { loadMetadataDir } from "../src/engine/metadata/load-dir.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { asRole, metadataWith, useTestEngine } from "./support/engine.js";
import { ADMIN_HEADERS, admin, asUser, graphql, nestedQuery, openService, type Service, setUpSchema } from "./support/limits.js";

const REDIS_URL = "redis://127.0.0.1:6379";

const limitError = (what: string, limit: number | string) => ({
  errors: [{ message: `${what} limit of ${limit} exceeded`, extensions: { path: "$", code: `${what}-limit-exceeded` } }],
});

const size = (query: string) => {
  const document = parse(query);
  const operation = document.definitions.find((d) => d.kind === "OperationDefinition");
  if (operation?.kind !== "OperationDefinition") throw new Error("no operation");
  return operationSize(document, operation);
};

describe("operationSize counts as Hasura's docs do", () => {
  it("depth: fields with a selection set nested, fragments expanded without a level of their own", () => {
    expect(size("query deep1_1 { viewer { name } }").depth).toBe(1);
    expect(size("query deep1_2 { viewer { ... on User { name } } }").depth).toBe(1);
    expect(size("query deep2 { viewer { albums { title } } }").depth).toBe(2);
    expect(
      size(`query deep3 { viewer { albums { ...musicInfo songs { ...musicInfo } } } }
            fragment musicInfo on Music { id title artists }`).depth,
    ).toBe(3);
    expect(size("fragment f on T { a { b { c } } } query { x { ...f } }").depth).toBe(3);
  });

  it("nodes: every field with a selection set, a fragment counted each time it is spread", () => {
    expect(size("{ author { name articles { id title } } homepage_entries { article_id } }").nodes).toBe(3);
    expect(size("fragment f on T { a { id } } query { x { ...f } y { ...f ... on T { b { id } } } }").nodes).toBe(5);
    expect(size("{ __typename scalar }")).toEqual({ depth: 0, nodes: 0 });
  });

  it("leaves introspection out", () => {
    expect(size("{ __schema { types { name fields { name type { name ofType { name } } } } } }")).toEqual({ depth: 0, nodes: 0 });
    expect(size('{ __type(name: "x") { name } users { id } }')).toEqual({ depth: 1, nodes: 1 });
  });

  it("measures a fragment once however often it expands", () => {
    // f30 expands to 2^30 copies of f0; measuring costs 31 fragments.
    const fragments = ["fragment f0 on T { leaf { id } }"];
    for (let i = 1; i <= 30; i++) fragments.push(`fragment f${i} on T { a: x { ...f${i - 1} } b: x { ...f${i - 1} } }`);
    const start = Date.now();
    const measured = size(`{ root { ...f30 } } ${fragments.join(" ")}`);
    expect(Date.now() - start).toBeLessThan(200);
    expect(measured.depth).toBe(32);
    expect(measured.nodes).toBe(1 + (2 ** 31 - 2) + 2 ** 30);
  });
});

describe("rate counter: the last sixty seconds, as Hasura's sliding window", () => {
  const run = async (counter: RateCounter, clock: { now: number }) => {
    clock.now = Date.UTC(2026, 0, 1, 12, 0, 30); // 30 s into a minute
    for (let i = 1; i <= 10; i++) expect(await counter.count("k")).toBe(i);
    clock.now += 45_000; // 15 s into the next minute: 45 s of the previous one still count (10 × 0.75)
    expect(await counter.count("k")).toBe(7.5 + 1);
    clock.now += 30_000; // 45 s into it: a quarter of the previous minute (10 × 0.25), and 2 of this one
    expect(await counter.count("k")).toBe(2.5 + 2);
    clock.now += 60_000; // a minute on: the last one held 2 requests, a quarter of which still counts
    expect(await counter.count("k")).toBe(0.5 + 1);
    // Where a fixed window would have let 10 more through at once, the sliding one refuses them.
    clock.now = Date.UTC(2026, 0, 1, 13, 0, 55);
    for (let i = 1; i <= 10; i++) await counter.count("burst");
    clock.now += 10_000;
    expect(await counter.count("burst")).toBeCloseTo(10 * (55 / 60) + 1, 9);
  };

  it("in memory", async () => {
    const clock = { now: 0 };
    await run(new RateCounter({ now: () => clock.now }), clock);
  });

  it("in Redis, shared by every instance", async (context) => {
    const redis = new Redis(REDIS_URL, {
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    try {
      if (
        !(await redis.connect().then(
          () => true,
          () => false,
        ))
      ) {
        console.warn(`limits-api: Redis at ${REDIS_URL} is unreachable, the shared sliding window case is skipped`);
        context.skip();
      }
      const clock = { now: 0 };
      const keyPrefix = `test:sliding:${randomBytes(4).toString("hex")}`;
      const one = new RateCounter({ redis, keyPrefix, now: () => clock.now });
      const other = new RateCounter({ redis, keyPrefix, now: () => clock.now });
      clock.now = Date.UTC(2026, 0, 1, 12, 0, 30);
      for (let i = 0; i < 5; i++) await one.count("k");
      expect(await other.count("k")).toBe(6);
      clock.now += 45_000;
      expect(await one.count("k")).toBe(6 * 0.75 + 1);
    } finally {
      redis.disconnect();
    }
  });
});

describe("api_limits metadata", () => {
  const FULL = {
    disabled: false,
    depth_limit: { global: 5, per_role: { myrole: 3 } },
    node_limit: { global: 5, per_role: { myrole: 3 } },
    time_limit: { global: 5, per_role: { myrole: 2.5 } },
    batch_limit: { global: 5, per_role: { myrole: 3 } },
    rate_limit: {
      global: { unique_params: "ip", max_reqs_per_min: 100 },
      per_role: { myrole: { unique_params: ["x-hasura-id", "X-Hasura-Team-Id"], max_reqs_per_min: 10 } },
    },
  };
  /** FULL as Hasura exports it: its key order, `IP` upper-cased, per_role always there, unique_params null when unset. */
  const EXPORTED = {
    rate_limit: {
      global: { max_reqs_per_min: 100, unique_params: "IP" },
      per_role: { myrole: { max_reqs_per_min: 10, unique_params: ["x-hasura-id", "X-Hasura-Team-Id"] } },
    },
    depth_limit: { global: 5, per_role: { myrole: 3 } },
    node_limit: { global: 5, per_role: { myrole: 3 } },
    time_limit: { global: 5, per_role: { myrole: 2.5 } },
    batch_limit: { global: 5, per_role: { myrole: 3 } },
    disabled: false,
  };

  it("parses Hasura's documented example into its exported form", () => {
    const parsed = parseApiLimits(FULL, "$.args");
    expect(parsed).toEqual(EXPORTED);
    expect(Object.keys(parsed)).toEqual(["rate_limit", "depth_limit", "node_limit", "time_limit", "batch_limit", "disabled"]);
    expect(parseApiLimits({ depth_limit: { global: 2 }, rate_limit: { global: { max_reqs_per_min: 1 } }, extra: 1 }, "$")).toEqual({
      rate_limit: { global: { max_reqs_per_min: 1, unique_params: null }, per_role: {} },
      depth_limit: { global: 2, per_role: {} },
      disabled: false,
    });
  });

  describe.each(testBackends)("on %s", (backend) => {
    let handle: TestDatabase;
    let service: Service;
    beforeAll(async () => {
      handle = await openTestDatabase(backend);
      service = await openService(handle.db);
    });
    afterAll(async () => {
      await service?.close();
      await handle?.dispose();
    });
    const metadata = (payload: unknown) => admin(service, "/v1/metadata", payload);
    const exported = async () => (await metadata({ type: "export_metadata", args: {} })).body as Record<string, unknown>;

    it("set_api_limits stores the limits and export_metadata returns them; remove_api_limits drops them", async () => {
      expect(await metadata({ type: "set_api_limits", args: FULL })).toEqual({ status: 200, body: { message: "success" } });
      expect((await exported()).api_limits).toEqual(EXPORTED);
      // set_api_limits replaces every limit, it does not merge.
      await metadata({ type: "set_api_limits", args: { depth_limit: { global: 1 } } });
      expect((await exported()).api_limits).toEqual({ depth_limit: { global: 1, per_role: {} }, disabled: false });
      expect(await metadata({ type: "remove_api_limits" })).toEqual({ status: 200, body: { message: "success" } });
      expect(await exported()).not.toHaveProperty("api_limits");
      await metadata({ type: "set_api_limits", args: { disabled: true } });
      expect((await exported()).api_limits).toEqual({ disabled: true });
      // Any arguments are ignored, as Hasura parses none.
      expect(await metadata({ type: "remove_api_limits", args: { whatever: 1 } })).toEqual({ status: 200, body: { message: "success" } });
      // Limits that set nothing are no limits: left out of the export.
      await metadata({ type: "set_api_limits", args: {} });
      expect(await exported()).not.toHaveProperty("api_limits");
    });

    it("answers malformed limits with Hasura's parse-failed errors", async () => {
      const failed = (path: string, error: string) => ({ status: 400, body: { path, error, code: "parse-failed" } });
      const set = (args: unknown) => metadata({ type: "set_api_limits", args });
      expect(await set({ depth_limit: { per_role: { user: 1 } } })).toEqual(failed("$.args.depth_limit", 'key "global" not found'));
      expect(await set({ node_limit: { global: "5" } })).toEqual(
        failed("$.args.node_limit.global", "parsing Int failed, expected Number, but encountered String"),
      );
      expect(await set({ batch_limit: { global: 1, per_role: { user: 1.5 } } })).toEqual(
        failed("$.args.batch_limit.per_role.user", "parsing Int failed, unexpected floating number 1.5"),
      );
      expect(await set({ rate_limit: { global: { unique_params: "IP" } } })).toEqual(
        failed("$.args.rate_limit.global", 'key "max_reqs_per_min" not found'),
      );
      const notValid = "Not a valid value. Should be either: 'IP' or a list of Hasura session variables";
      expect(await set({ rate_limit: { global: { max_reqs_per_min: 1, unique_params: "host" } } })).toEqual(
        failed("$.args.rate_limit.global.unique_params", notValid),
      );
      expect(await set({ rate_limit: { global: { max_reqs_per_min: 1, unique_params: ["x-hasura-role"] } } })).toEqual(
        failed("$.args.rate_limit.global.unique_params", notValid),
      );
      expect(await set({ disabled: "no" })).toEqual(failed("$.args.disabled", "expected Boolean, but encountered String"));
      expect(await set([])).toEqual(failed("$.args", "expected Object, but encountered Array"));
      expect(await exported()).not.toHaveProperty("api_limits");
    });

    it("round-trips api_limits through export_metadata and replace_metadata, and checks them there", async () => {
      await metadata({ type: "set_api_limits", args: FULL });
      const saved = await exported();
      await metadata({ type: "clear_metadata", args: {} });
      expect(await exported()).not.toHaveProperty("api_limits");
      expect((await metadata({ type: "replace_metadata", args: saved })).status).toBe(200);
      expect((await exported()).api_limits).toEqual(EXPORTED);
      const bad = await metadata({
        type: "replace_metadata",
        args: { metadata: { ...saved, api_limits: { depth_limit: { global: true } } } },
      });
      expect(bad).toEqual({
        status: 400,
        body: {
          path: "$.args.metadata.api_limits.depth_limit.global",
          error: "parsing Int failed, expected Number, but encountered Boolean",
          code: "parse-failed",
        },
      });
      await metadata({ type: "remove_api_limits" });
    });
  });

  it("loads api_limits.yaml from a metadata directory, in the form export_metadata returns", async () => {
    const dir = mkdtempSync(join(tmpdir(), "api-limits-"));
    try {
      writeFileSync(join(dir, "version.yaml"), "version: 3\n");
      mkdirSync(join(dir, "databases"));
      writeFileSync(join(dir, "databases", "databases.yaml"), "[]\n");
      writeFileSync(join(dir, "api_limits.yaml"), stringify(FULL));
      const loaded = await loadMetadataDir(dir);
      expect(loaded.api_limits).toEqual(EXPORTED);
      // What export_metadata returns, written back as the CLI writes it, loads the same.
      writeFileSync(join(dir, "api_limits.yaml"), stringify(EXPORTED));
      expect((await loadMetadataDir(dir)).api_limits).toEqual(EXPORTED);
      writeFileSync(join(dir, "api_limits.yaml"), stringify({ node_limit: { global: "many" } }));
      await expect(loadMetadataDir(dir)).rejects.toThrow(/parsing Int failed.*\$\.api_limits\.node_limit\.global/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.each(testBackends)("API limits on /v1/graphql (%s)", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    service = await openService(handle.db);
    await setUpSchema(service);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
  });

  const limit = async (args: unknown) => {
    const set = await admin(service, "/v1/metadata", { type: "set_api_limits", args });
    expect(set).toEqual({ status: 200, body: { message: "success" } });
  };
  const removeLimits = () => admin(service, "/v1/metadata", { type: "remove_api_limits" });
  const editor = { ...ADMIN_HEADERS, "x-hasura-role": "editor" };
  const ok = (body: unknown) => expect(body).toHaveProperty("data");
  const depth3 = "{ users(limit: 1) { posts(limit: 1) { author { id } } } }";

  it("refuses an operation deeper than the role's depth limit, admin exempt", async () => {
    await limit({ depth_limit: { global: 2, per_role: { editor: 3 } } });
    try {
      ok((await graphql(service, { query: "{ users(limit: 1) { posts(limit: 1) { id } } }" })).body);
      expect(await graphql(service, { query: depth3 })).toEqual({ status: 200, body: limitError("depth", 2) });
      // The same depth reached through fragments.
      const viaFragments = "query { users(limit: 1) { ...p } } fragment p on users { posts(limit: 1) { ... on posts { author { id } } } }";
      expect((await graphql(service, { query: viaFragments })).body).toEqual(limitError("depth", 2));
      // editor's own limit is 3.
      ok((await graphql(service, { query: depth3 }, editor)).body);
      expect((await graphql(service, { query: nestedQuery(2) }, editor)).body).toEqual(limitError("depth", 3));
      ok((await graphql(service, { query: depth3 }, ADMIN_HEADERS)).body);
      // Introspection is exempt from depth limits.
      const introspection = "{ __schema { queryType { fields { name type { name ofType { name } } } } } }";
      ok((await graphql(service, { query: introspection })).body);
    } finally {
      await removeLimits();
    }
  });

  it("refuses an operation with more nodes than the role's node limit", async () => {
    await limit({ node_limit: { global: 2, per_role: { user: 3 } }, depth_limit: { global: 10 } });
    try {
      const three = "{ users(limit: 1) { posts(limit: 1) { id } } posts(limit: 1) { id } }";
      const four = "{ users(limit: 1) { posts(limit: 1) { author { id } } } posts(limit: 1) { id } }";
      ok((await graphql(service, { query: three })).body);
      expect((await graphql(service, { query: four })).body).toEqual(limitError("node", 3));
      // A fragment counts each time it is spread.
      const spread = "{ a: users(limit: 1) { ...p } b: users(limit: 1) { ...p } } fragment p on users { posts(limit: 1) { id } }";
      expect((await graphql(service, { query: spread })).body).toEqual(limitError("node", 3));
      expect((await graphql(service, { query: three }, editor)).body).toEqual(limitError("node", 2));
      ok((await graphql(service, { query: four }, ADMIN_HEADERS)).body);
    } finally {
      await removeLimits();
    }
  });

  it("refuses a batch larger than the role's batch limit, admin exempt", async () => {
    await limit({ batch_limit: { global: 2, per_role: { editor: 1 } } });
    try {
      const one = { query: "{ users(limit: 1) { id } }" };
      const two = await graphql(service, [one, one]);
      expect(two.status).toBe(200);
      expect(two.body).toEqual([{ data: { users: [{ id: 1 }] } }, { data: { users: [{ id: 1 }] } }]);
      expect(await graphql(service, [one, one, one])).toEqual({ status: 200, body: limitError("batch", 2) });
      expect((await graphql(service, [one, one], editor)).body).toEqual(limitError("batch", 1));
      expect((await graphql(service, [one, one, one], ADMIN_HEADERS)).body).toHaveLength(3);
    } finally {
      await removeLimits();
    }
  });

  it("counts requests per role and unique parameters in a minute, global and per role, admin exempt", async () => {
    const id = randomBytes(4).toString("hex");
    await limit({
      rate_limit: {
        global: { max_reqs_per_min: 2 },
        per_role: { user: { max_reqs_per_min: 3, unique_params: ["x-hasura-user-id"] } },
      },
    });
    try {
      const query = { query: "{ users(limit: 1) { id } }" };
      const as = (user: string) => asUser({ "x-hasura-user-id": `${id}-${user}` });
      for (let i = 0; i < 3; i++) ok((await graphql(service, query, as("a"))).body);
      expect(await graphql(service, query, as("a"))).toEqual({ status: 200, body: limitError("rate", 3) });
      // Another user id is another client.
      ok((await graphql(service, query, as("b"))).body);
      // Each operation of a batch counts.
      expect((await graphql(service, [query, query, query], as("c"))).body).toEqual([
        { data: { users: [{ id: 1 }] } },
        { data: { users: [{ id: 1 }] } },
        { data: { users: [{ id: 1 }] } },
      ]);
      expect((await graphql(service, query, as("c"))).body).toEqual(limitError("rate", 3));
      // editor falls under the global limit, keyed on the role alone.
      const editorQuery = { query: "{ posts(limit: 1) { id } }" };
      ok((await graphql(service, editorQuery, editor)).body);
      ok((await graphql(service, editorQuery, { ...editor, "x-hasura-user-id": "other" })).body);
      expect((await graphql(service, editorQuery, editor)).body).toEqual(limitError("rate", 2));
      for (let i = 0; i < 5; i++) ok((await graphql(service, query, ADMIN_HEADERS)).body);
    } finally {
      await removeLimits();
    }
  });

  it("keys the rate limit on the client's IP when unique_params is IP", async () => {
    await limit({ rate_limit: { global: { max_reqs_per_min: 1, unique_params: "IP" } } });
    try {
      const query = { query: "{ users(limit: 1) { id } }" };
      const from = (remoteAddress: string) =>
        service.app.inject({ method: "POST", url: "/v1/graphql", payload: query, headers: editor, remoteAddress });
      expect((await from("10.0.0.1")).json()).toEqual({ data: { users: [{ id: 1 }] } });
      expect((await from("10.0.0.1")).json()).toEqual(limitError("rate", 1));
      expect((await from("10.0.0.2")).json()).toEqual({ data: { users: [{ id: 1 }] } });
      // Behind a proxy (the platform's gateway), Hasura's rule: X-Real-IP, else X-Forwarded-For, names the client.
      const behindProxy = (headers: Record<string, string>) =>
        service.app.inject({
          method: "POST",
          url: "/v1/graphql",
          payload: query,
          headers: { ...editor, ...headers },
          remoteAddress: "10.0.0.9",
        });
      expect((await behindProxy({ "x-real-ip": "192.0.2.1" })).json()).toEqual({ data: { users: [{ id: 1 }] } });
      expect((await behindProxy({ "x-real-ip": "192.0.2.1", "x-forwarded-for": "198.51.100.7" })).json()).toEqual(limitError("rate", 1));
      expect((await behindProxy({ "x-real-ip": "192.0.2.2" })).json()).toEqual({ data: { users: [{ id: 1 }] } });
      expect((await behindProxy({ "x-forwarded-for": "198.51.100.7, 10.0.0.9" })).json()).toEqual({ data: { users: [{ id: 1 }] } });
      expect((await behindProxy({ "x-forwarded-for": "198.51.100.7, 10.0.0.9" })).json()).toEqual(limitError("rate", 1));
      // The proxy's own address is not a shared key any more: nothing above counted against 10.0.0.9.
      expect((await from("10.0.0.9")).json()).toEqual({ data: { users: [{ id: 1 }] } });
    } finally {
      await removeLimits();
    }
  });

  it("applies no limit when disabled", async () => {
    await limit({
      disabled: true,
      depth_limit: { global: 1 },
      batch_limit: { global: 1 },
      rate_limit: { global: { max_reqs_per_min: 1 } },
    });
    try {
      const query = { query: depth3 };
      ok((await graphql(service, query)).body);
      ok((await graphql(service, query)).body);
      expect((await graphql(service, [query, query])).body).toHaveLength(2);
    } finally {
      await removeLimits();
    }
  });
});

describe.each(testBackends)("depth and node limits on %s", (backend) => {
  const statements: string[] = [];
  const record = (q: Queryable): Queryable => ({
    query: (statement, options) => {
      statements.push("statement");
      return q.query(statement, options);
    },
    exec: (script) => q.exec(script),
  });
  const setup = useTestEngine(backend, {
    schema: "CREATE TABLE item (id int PRIMARY KEY); INSERT INTO item VALUES (1);",
    metadata: () =>
      metadataWith([
        {
          table: { schema: "public", name: "item" },
          select_permissions: [{ role: "user", permission: { columns: "*", filter: {} } }],
          insert_permissions: [{ role: "user", permission: { columns: "*", check: {} } }],
        },
      ]),
    database: (db: Database): Database => ({
      ...db,
      ...record(db),
      transaction: (work, options) => db.transaction((tx) => work(record(tx)), options),
    }),
  });

  it("are checked before any SQL runs", async () => {
    // Metadata's limits only: our defaults (the cost limit's EXPLAIN is a statement too) are tested in limits-bounds.test.ts.
    const guard = new RequestGuard({ defaults: {} });
    guard.setApiLimits(parseApiLimits({ node_limit: { global: 1 } }, "$"));
    const user = asRole("user");
    const run = async (query: string) =>
      JSON.parse((await guard.run(user, {}, (options) => setup.engine.respond({ query }, user, options))).body);
    expect(await run("{ item { id } }")).toEqual({ data: { item: [{ id: 1 }] } });
    expect(statements).toHaveLength(1);
    expect(await run("{ a: item { id } b: item { id } }")).toEqual(limitError("node", 1));
    const mutation = "mutation { a: insert_item_one(object: { id: 5 }) { id } b: insert_item_one(object: { id: 6 }) { id } }";
    expect(await run(mutation)).toEqual(limitError("node", 1));
    expect(statements).toHaveLength(1);
    expect(await setup.run("{ item { id } }", user)).toEqual({ data: { item: [{ id: 1 }] } });
  });
});

describe("rate limits in Redis, shared by every instance", () => {
  let reachable = false;
  let probe: Redis | undefined;
  let handle: TestDatabase;
  const services: Service[] = [];
  beforeAll(async () => {
    probe = new Redis(REDIS_URL, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, retryStrategy: () => null });
    probe.on("error", () => {});
    reachable = await probe.connect().then(
      () => true,
      () => false,
    );
    if (!reachable) {
      console.warn(`limits-api: Redis at ${REDIS_URL} is unreachable, the shared rate limit case is skipped`);
      return;
    }
    handle = await openTestDatabase("pglite");
    const first = await openService(handle.db, { HASURA_GRAPHQL_RATE_LIMIT_REDIS_URL: REDIS_URL });
    services.push(first);
    await setUpSchema(first);
    services.push(await openService(handle.db, { HASURA_GRAPHQL_REDIS_URL: REDIS_URL }));
  }, 60_000);
  afterAll(async () => {
    for (const service of services) await service.close();
    await handle?.dispose();
    probe?.disconnect();
  });

  it("counts the requests of both instances together, in Redis", async (context) => {
    if (!reachable) context.skip();
    const [first, second] = services as [Service, Service];
    await admin(first, "/v1/metadata", {
      type: "set_api_limits",
      args: { rate_limit: { global: { max_reqs_per_min: 4, unique_params: ["x-hasura-user-id"] } } },
    });
    // The second instance picks the limits up as it would by polling.
    await second.runtime.refresh(true);
    const id = `redis-${randomBytes(6).toString("hex")}`;
    const headers = asUser({ "x-hasura-user-id": id });
    const query = { query: "{ users(limit: 1) { id } }" };
    for (const service of [first, second, first, second]) expect((await graphql(service, query, headers)).body).toHaveProperty("data");
    expect((await graphql(first, query, headers)).body).toEqual(limitError("rate", 4));
    expect((await graphql(second, query, headers)).body).toEqual(limitError("rate", 4));
    const keys = await (probe as Redis).keys(`*${id}*`);
    expect(keys).toHaveLength(1);
    expect(Number(await (probe as Redis).get(keys[0] as string))).toBe(6);
    expect(await (probe as Redis).pttl(keys[0] as string)).toBeGreaterThan(50_000);
  });
});
