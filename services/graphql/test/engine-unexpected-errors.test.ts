/**
 * Unexpected errors: logged with their stack and the request's id, answered in Hasura's shape,
 * and with `extensions.internal` (the database's error, the statement) only where Hasura shows
 * it: the admin role unless HASURA_GRAPHQL_ADMIN_INTERNAL_ERRORS=false, every role under
 * HASURA_GRAPHQL_DEV_MODE=true.
 */
import { Writable } from "node:stream";
import type { Database } from "@platform/core";
import pino from "pino";
import { describe, expect, it } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import type { Metadata } from "../src/engine/metadata/types.js";
import { createGraphql } from "../src/server.js";
import { openTestDatabase, testBackends } from "./support/db.js";
import { ADMIN, asRole, metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE item (id serial PRIMARY KEY, name text NOT NULL);
INSERT INTO item (name) VALUES ('a');
CREATE FUNCTION boom() RETURNS SETOF item AS $$ BEGIN RAISE EXCEPTION 'boom: %', 42; END $$ LANGUAGE plpgsql STABLE;
`;

const metadata = (): Metadata =>
  metadataWith(
    [
      {
        table: { schema: "public", name: "item" },
        select_permissions: [{ role: "user", permission: { columns: ["id", "name"], filter: {} } }],
      },
    ],
    [{ function: { schema: "public", name: "boom" }, configuration: {}, permissions: [{ role: "user" }] }],
  );

/** A logger whose lines are kept as parsed objects. */
function capturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split("\n")) if (line.trim()) lines.push(JSON.parse(line));
      done();
    },
  });
  return { logger: pino({ level: "debug" }, stream), lines };
}

/** The engine's database, failing one statement as a fault of the engine would (a TypeError, not a database error). */
const faulty = (db: Database): Database => ({
  ...db,
  query: (statement, options) =>
    JSON.stringify(statement).includes("fault_marker")
      ? Promise.reject(new TypeError("cannot read properties of undefined"))
      : db.query(statement, options),
});

describe.each(testBackends)("%s", (backend) => {
  const suite = useTestEngine(backend, { schema: SCHEMA, metadata });
  const user = asRole("user");

  it("answers a database error without a Hasura code as unexpected, internal to the admin only by default", async () => {
    const { logger, lines } = capturingLogger();
    const engine = suite.engineWith({ logger });
    const admin = JSON.parse(await engine.execute({ query: "{ boom { id } }" }, ADMIN, { requestId: "req-7" }));
    expect(admin.errors[0].message).toBe("database query error");
    expect(admin.errors[0].extensions).toMatchObject({ path: "$", code: "unexpected" });
    expect(admin.errors[0].extensions.internal.error).toMatchObject({
      message: "boom: 42",
      status_code: "P0001",
      exec_status: "FatalError",
    });
    expect(admin.errors[0].extensions.internal.statement).toContain('"public"."boom"');
    expect(admin.errors[0].extensions.internal.prepared).toBe(true);
    const asUser = JSON.parse(await engine.execute({ query: "{ boom { id } }" }, user));
    expect(asUser).toEqual({ errors: [{ message: "database query error", extensions: { path: "$", code: "unexpected" } }] });
    const logged = lines.filter((l) => l.msg === "unexpected error answering a GraphQL request");
    expect(logged).toHaveLength(2);
    expect(logged[0]).toMatchObject({ level: 50, requestId: "req-7", role: "admin" });
    expect(String((logged[0]?.err as { stack?: string } | undefined)?.stack)).toContain("boom: 42");
  });

  it("shows internal to every role in dev mode, and to none when admin internal errors are off", async () => {
    const dev = suite.engineWith({ devMode: true });
    const asUser = JSON.parse(await dev.execute({ query: "{ boom { id } }" }, user));
    expect(asUser.errors[0].extensions.internal.error.message).toBe("boom: 42");
    const quiet = suite.engineWith({ adminInternalErrors: false });
    const admin = JSON.parse(await quiet.execute({ query: "{ boom { id } }" }, ADMIN));
    expect(admin.errors[0].extensions).toEqual({ path: "$", code: "unexpected" });
  });

  it("keeps internal detail of expected errors (a constraint violation) to those allowed", async () => {
    const insert = `mutation { insert_item(objects: [{id: 1, name: "dup"}]) { affected_rows } }`;
    const admin = JSON.parse(await suite.engine.execute({ query: insert }, ADMIN));
    expect(admin.errors[0].extensions.code).toBe("constraint-violation");
    expect(admin.errors[0].extensions.internal.error.status_code).toBe("23505");
    const quiet = JSON.parse(await suite.engineWith({ adminInternalErrors: false }).execute({ query: insert }, ADMIN));
    expect(quiet.errors[0].extensions).toEqual({ path: "$.selectionSet.insert_item.args.objects", code: "constraint-violation" });
  });

  it("logs a fault of the engine with its stack and answers it as unexpected, its text internal to the admin", async () => {
    const handle = await openTestDatabase(backend);
    try {
      await handle.db.exec(`${SCHEMA} CREATE TABLE fault_marker (id int PRIMARY KEY);`);
      const { logger, lines } = capturingLogger();
      const { Engine } = await import("../src/engine/execute.js");
      const { introspect } = await import("../src/engine/catalog/introspect.js");
      const { buildModel } = await import("../src/engine/model/build.js");
      const model = buildModel(metadataWith([{ table: { schema: "public", name: "fault_marker" } }]), await introspect(handle.db));
      const engine = new Engine(faulty(handle.db), model, { booleanNullCollapse: false, logger });
      const body = JSON.parse(await engine.execute({ query: "{ fault_marker { id } }" }, asRole("admin"), { requestId: "req-9" }));
      expect(body.errors[0]).toMatchObject({ message: "unexpected error", extensions: { path: "$", code: "unexpected" } });
      expect(body.errors[0].extensions.internal.error.message).toBe("cannot read properties of undefined");
      const logged = lines.find((l) => l.msg === "unexpected error answering a GraphQL request");
      expect(logged).toMatchObject({ requestId: "req-9" });
      expect(String((logged?.err as { stack?: string } | undefined)?.stack)).toContain("TypeError");
    } finally {
      await handle.dispose();
    }
  });

  it("logs the HTTP request's id, and the legacy endpoint answers a failed request with 400", async () => {
    const handle = await openTestDatabase(backend);
    const { logger, lines } = capturingLogger();
    try {
      await handle.db.exec(SCHEMA);
      const config = readGraphqlConfig({ HASURA_GRAPHQL_DEV_MODE: "true", HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000" });
      const service = await createGraphql(config, logger, { db: handle.db });
      try {
        await service.runtime.applyMetadata(metadata());
        const response = await service.app.inject({ method: "POST", url: "/v1/graphql", payload: { query: "{ boom { id } }" } });
        expect(response.statusCode).toBe(200);
        expect(response.json().errors[0].extensions.internal.error.message).toBe("boom: 42");
        const logged = lines.find((l) => l.msg === "unexpected error answering a GraphQL request");
        // The id Fastify gave the request, which its own log lines carry as reqId.
        expect(typeof logged?.requestId).toBe("string");
        expect(lines.some((l) => l.reqId === logged?.requestId && l.msg !== logged?.msg)).toBe(true);
        const legacy = await service.app.inject({ method: "POST", url: "/v1alpha1/graphql", payload: { query: "{ boom { id } }" } });
        expect(legacy.statusCode).toBe(400);
        const fine = await service.app.inject({ method: "POST", url: "/v1alpha1/graphql", payload: { query: "{ item { id } }" } });
        expect(fine.statusCode).toBe(200);
      } finally {
        await service.close();
      }
    } finally {
      await handle.dispose();
    }
  });
});
