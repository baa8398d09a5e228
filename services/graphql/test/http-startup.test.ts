/**
 * createGraphql's start-up: the warning when no admin secret is configured (then every request
 * is admin: https://hasura.io/docs/latest/deployment/securing-graphql-endpoint/), and a
 * database handed in by the caller left open by close().
 */
import { createLogger, sql } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { readGraphqlConfig } from "../src/config.js";
import { createGraphql, NO_ADMIN_SECRET_WARNING } from "../src/server.js";
import { openTestDatabase, type TestDatabase } from "./support/db.js";

let database: TestDatabase;
beforeAll(async () => {
  database = await openTestDatabase("pglite");
});
afterAll(async () => database?.dispose());

async function start(env: Record<string, string>) {
  const logger = createLogger({ level: "silent" });
  const warn = vi.spyOn(logger, "warn");
  const config = readGraphqlConfig({ HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000", ...env });
  const service = await createGraphql(config, logger, { db: database.db });
  return { service, warnings: warn.mock.calls.map((call) => call[0]) };
}

describe("start-up", () => {
  it("warns that every request is admin when no admin secret is set", async () => {
    const { service, warnings } = await start({});
    try {
      expect(warnings).toContain(NO_ADMIN_SECRET_WARNING);
      expect(NO_ADMIN_SECRET_WARNING).toMatch(/without an admin secret/);
      expect(NO_ADMIN_SECRET_WARNING).toMatch(/HASURA_GRAPHQL_ADMIN_SECRET/);
      // And it is so: a request without credentials is admin.
      const res = await service.app.inject({ method: "POST", url: "/v1/graphql", payload: { query: "{ __typename }" } });
      expect(res.json()).toEqual({ data: { __typename: "query_root" } });
    } finally {
      await service.close();
    }
  });

  it("does not warn when an admin secret is set (HASURA_GRAPHQL_ACCESS_KEY included)", async () => {
    const settings: Record<string, string>[] = [{ HASURA_GRAPHQL_ADMIN_SECRET: "a-secret" }, { HASURA_GRAPHQL_ACCESS_KEY: "a-secret" }];
    for (const env of settings) {
      const { service, warnings } = await start(env);
      await service.close();
      expect(warnings).not.toContain(NO_ADMIN_SECRET_WARNING);
    }
  });

  it("leaves a database it was handed open when it closes", async () => {
    const { service } = await start({ HASURA_GRAPHQL_ADMIN_SECRET: "a-secret" });
    await service.close();
    expect((await database.db.query<{ one: number }>(sql`SELECT 1 AS one`)).rows).toEqual([{ one: 1 }]);
  });
});
