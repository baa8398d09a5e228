/**
 * No request can run away in the database: the requests that once did (thousands of aliases of
 * a nested selection, a batch of thousands of operations, a twenty-level fan-out, a
 * 100,000-character regular expression) are refused before the engine sends any statement, by
 * the defaults the service starts with: depth, node and batch limits for every role but admin
 * where metadata sets none (never written into metadata), the operation size bounds for every
 * role, the pattern length bound. Then what the bounds let through: operations with more root
 * fields than one statement holds are split over statements that answer exactly what one
 * statement would; the cost limit refuses from PostgreSQL's estimate; the answer's size is bounded
 * (a batch's answers together); mutations are bounded statement by statement before any runs.
 */
import { getIntrospectionQuery } from "graphql";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { aliases, asRoleHeaders, type BoundsSetup, fanOut, openBoundsService } from "./support/bounds.js";
import { testBackends } from "./support/db.js";
import { ADMIN_HEADERS, admin, graphql } from "./support/limits.js";

const THREE_LEVELS = "users { posts { comments { text } } }";

/** A limit's error as a role other than admin sees it (no `internal`). */
const refused = (message: string, code: string) => ({ status: 200, body: { errors: [{ message, extensions: { path: "$", code } }] } });

describe.each(testBackends)("bounds on %s", (backend) => {
  let setup: BoundsSetup;
  beforeAll(async () => {
    setup = await openBoundsService(backend);
  }, 60_000);
  afterAll(async () => setup?.close());

  /** Runs `work`, and expects it to have sent no statement to the database. */
  async function withoutStatements<T>(work: () => Promise<T>): Promise<T> {
    const before = setup.service.runtime.statementsSent;
    const result = await work();
    expect(setup.service.runtime.statementsSent - before).toBe(0);
    return result;
  }
  const ask = (query: string, headers: Record<string, string> = asRoleHeaders()) => graphql(setup.service, { query }, headers);

  describe("the requests that ran away are refused before any statement is sent", () => {
    it("10,000 aliases of a three-level selection", async () => {
      const query = aliases(10_000, THREE_LEVELS);
      expect(await withoutStatements(() => ask(query))).toEqual(refused("node limit of 1000 exceeded", "node-limit-exceeded"));
      // The admin role has no node limit; no role may make an operation of 10,000 root fields.
      const asAdmin = await withoutStatements(() => ask(query, ADMIN_HEADERS));
      expect(asAdmin.body).toMatchObject({
        errors: [
          {
            message: "operation size limit of 1000 root fields exceeded",
            extensions: {
              code: "operation-size-limit-exceeded",
              internal: { found: 10_000, limit: 1000, setting: "HASURA_GRAPHQL_OPERATION_ROOT_FIELDS" },
            },
          },
        ],
      });
    });

    it("2,000 aliases of a three-level selection with limits", async () => {
      const query = aliases(2_000, "users(limit: 2) { posts(limit: 2) { comments(limit: 2) { text } } }");
      expect(await withoutStatements(() => ask(query))).toEqual(refused("node limit of 1000 exceeded", "node-limit-exceeded"));
      expect((await withoutStatements(() => ask(query, ADMIN_HEADERS))).body).toMatchObject({
        errors: [{ extensions: { code: "operation-size-limit-exceeded" } }],
      });
    });

    it("a batch of 5,000 operations", async () => {
      const batch = Array.from({ length: 5_000 }, () => ({ query: "{ posts { id title } }" }));
      expect(await withoutStatements(() => graphql(setup.service, batch, asRoleHeaders()))).toEqual(
        refused("batch limit of 100 exceeded", "batch-limit-exceeded"),
      );
    });

    it("10,000 and 50,000 aliases of a flat selection", async () => {
      for (const count of [10_000, 50_000]) {
        const query = aliases(count, "posts { id title }");
        expect(await withoutStatements(() => ask(query))).toEqual(refused("node limit of 1000 exceeded", "node-limit-exceeded"));
        expect((await withoutStatements(() => ask(query, ADMIN_HEADERS))).body).toMatchObject({
          errors: [{ message: "operation size limit of 1000 root fields exceeded" }],
        });
      }
    }, 30_000);

    it("a twenty-level fan-out", async () => {
      expect(await withoutStatements(() => ask(fanOut(20)))).toEqual(refused("depth limit of 15 exceeded", "depth-limit-exceeded"));
    });

    it("a 100,000-character regular expression", async () => {
      const query = `{ posts(where: {title: {_iregex: "${"(a|b)*c".repeat(12_500)}"}}) { id } }`;
      expect(await withoutStatements(() => ask(query))).toEqual(
        refused("pattern length limit of 4096 exceeded", "pattern-length-limit-exceeded"),
      );
      // A variable's pattern is bounded too, and so are LIKE patterns.
      const variables = { p: "%".repeat(5_000) };
      const like = await withoutStatements(() =>
        graphql(setup.service, { query: "query ($p: String) { posts(where: {title: {_ilike: $p}}) { id } }", variables }, asRoleHeaders()),
      );
      expect(like).toEqual(refused("pattern length limit of 4096 exceeded", "pattern-length-limit-exceeded"));
    });
  });

  describe("defaults", () => {
    it("never refuse the standard introspection query, for any role", async () => {
      for (const headers of [asRoleHeaders(), asRoleHeaders("reader"), ADMIN_HEADERS]) {
        const { body } = await ask(getIntrospectionQuery(), headers);
        expect((body as { data?: { __schema?: unknown } }).data?.__schema, JSON.stringify(body).slice(0, 300)).toBeDefined();
      }
    });

    it("are never written into metadata, and metadata's own limits win over them", async () => {
      const exported = await admin(setup.service, "/v1/metadata", { type: "export_metadata", args: {} });
      expect(exported.body).not.toHaveProperty("api_limits");
      const deep = fanOut(16, "(limit: 1)");
      expect((await ask(deep)).body).toMatchObject({ errors: [{ extensions: { code: "depth-limit-exceeded" } }] });
      try {
        await admin(setup.service, "/v1/metadata", {
          type: "set_api_limits",
          args: { depth_limit: { global: 2, per_role: { user: 20 } } },
        });
        // Metadata's limit for the role replaces ours: 16 levels pass the depth check (and answer).
        expect((await ask(deep)).body).toHaveProperty("data");
        expect((await ask(fanOut(3), asRoleHeaders("reader"))).body).toEqual(
          refused("depth limit of 2 exceeded", "depth-limit-exceeded").body,
        );
        await admin(setup.service, "/v1/metadata", { type: "set_api_limits", args: { disabled: true } });
        // 1,200 nodes: over our node limit, which is off with the rest.
        expect((await ask(aliases(600, "users { posts { id } }"))).body).toHaveProperty("data");
      } finally {
        await admin(setup.service, "/v1/metadata", { type: "remove_api_limits", args: {} });
      }
    });
  });

  describe("operations larger than one statement", () => {
    it("are split over several statements that answer what one statement would", async () => {
      const selection = "posts(order_by: {id: asc}, limit: 3) { id title author { name } comments(order_by: {id: asc}) { text } }";
      // 300 root fields: three statements of 100.
      const split = (await ask(aliases(300, selection), asRoleHeaders("reader"))).body as { data: Record<string, unknown> };
      const single = (await ask(aliases(1, selection), asRoleHeaders("reader"))).body as { data: Record<string, unknown> };
      expect(Object.keys(split.data)).toHaveLength(300);
      for (const key of ["a0", "a99", "a100", "a299"]) expect(split.data[key]).toEqual(single.data.a0);
      expect((single.data.a0 as unknown[])[0]).toEqual({
        id: 1,
        title: "post number 1",
        author: { name: "user 2" },
        comments: [{ text: "comment number 3000" }, { text: "comment number 6000" }, { text: "comment number 9000" }],
      });
    });

    it("refuse one root field larger than a statement may hold, before any statement", async () => {
      // 300 relationship aliases under one root field: some 600 subqueries.
      const wide = `{ users { ${Array.from({ length: 300 }, (_, i) => `p${i}: posts { id }`).join(" ")} } }`;
      const { body } = await withoutStatements(() => ask(wide, ADMIN_HEADERS));
      expect(body).toMatchObject({
        errors: [
          {
            message: "statement size limit of 500 subqueries exceeded",
            extensions: { code: "statement-size-limit-exceeded", internal: { setting: "HASURA_GRAPHQL_STATEMENT_SUBQUERIES", limit: 500 } },
          },
        ],
      });
    });
  });

  describe("the cost limit", () => {
    it("refuses a fan-out within the depth limit from PostgreSQL's estimate, and lets ordinary queries through", async () => {
      const { body } = await ask(fanOut(12), asRoleHeaders("reader"));
      expect(body).toEqual(refused("cost limit of 10000000 exceeded", "cost-limit-exceeded").body);
      expect((await ask("{ users(limit: 10) { posts(limit: 5) { id comments { text } } } }", asRoleHeaders("reader"))).body).toHaveProperty(
        "data",
      );
      // The same fan-out over one user's own rows is estimated far cheaper, and answered.
      expect((await ask(fanOut(12), asRoleHeaders("user"))).body).toHaveProperty("data");
    });
  });

  describe("mutations", () => {
    it("are refused before any statement when they have more root fields than an operation may", async () => {
      const mutation = `mutation { ${Array.from({ length: 1_001 }, (_, i) => `m${i}: insert_posts_one(object: {id: ${100_000 + i}, title: "x"}) { id }`).join(" ")} }`;
      const { body } = await withoutStatements(() => ask(mutation, ADMIN_HEADERS));
      expect(body).toMatchObject({ errors: [{ message: "operation size limit of 1000 root fields exceeded" }] });
    });
  });
});

describe.each(testBackends)("bounds set low (%s)", (backend) => {
  let setup: BoundsSetup;
  beforeAll(async () => {
    setup = await openBoundsService(backend, {
      HASURA_GRAPHQL_STATEMENT_ROOT_FIELDS: "2",
      HASURA_GRAPHQL_STATEMENT_SUBQUERIES: "8",
      HASURA_GRAPHQL_RESPONSE_SIZE_LIMIT: "20000",
      HASURA_GRAPHQL_DEV_MODE: "true",
    });
  }, 60_000);
  afterAll(async () => setup?.close());

  const noWrite = async () => {
    const { body } = await graphql(setup.service, { query: "{ posts(where: {id: {_gt: 3000}}) { id } }" }, ADMIN_HEADERS);
    expect(body).toEqual({ data: { posts: [] } });
  };

  it("answers an operation split into several statements as one statement would", async () => {
    const query = `{ a: users(where: {id: {_lt: 3}}) { id name } b: posts(where: {id: {_eq: 5}}) { title } __typename
                     c: comments(limit: 1, order_by: {id: desc}) { text post { id } } d: users_by_pk(id: 300) { name } }`;
    expect((await graphql(setup.service, { query }, asRoleHeaders("reader"))).body).toEqual({
      data: {
        a: [
          { id: 1, name: "user 1" },
          { id: 2, name: "user 2" },
        ],
        b: [{ title: "post number 5" }],
        __typename: "query_root",
        c: [{ text: "comment number 9000", post: { id: 1 } }],
        d: { name: "user 300" },
      },
    });
  });

  it("refuses an answer past the size limit, with what it found and the setting", async () => {
    const { body } = await graphql(setup.service, { query: "{ posts { id title } }" }, asRoleHeaders("reader"));
    expect(body).toMatchObject({
      errors: [
        {
          message: "response size limit of 20000 bytes exceeded",
          extensions: { code: "response-size-limit-exceeded", internal: { limit: 20000, setting: "HASURA_GRAPHQL_RESPONSE_SIZE_LIMIT" } },
        },
      ],
    });
    // The connection it came on was closed, not reused half-read: the next requests are answered.
    for (let i = 0; i < 10; i++)
      expect((await graphql(setup.service, { query: "{ users_by_pk(id: 1) { name } }" }, asRoleHeaders("reader"))).body).toEqual({
        data: { users_by_pk: { name: "user 1" } },
      });
  });

  it("counts a batch's answers together", async () => {
    const one = { query: "{ posts(limit: 200) { id title } }" };
    const { body } = await graphql(setup.service, [one, one, one], asRoleHeaders("reader"));
    const answers = body as Array<{ data?: unknown; errors?: Array<{ extensions: { code: string } }> }>;
    expect(answers[0]).toHaveProperty("data");
    expect(answers[2]?.errors?.[0]?.extensions.code).toBe("response-size-limit-exceeded");
  });

  it("refuses a mutation whose statement would be too large before any statement, and writes nothing", async () => {
    const before = setup.service.runtime.statementsSent;
    const mutation = `mutation { ok: insert_posts_one(object: {id: 90001, title: "t"}) { id }
      big: insert_posts_one(object: {id: 90002, title: "t"}) { author { posts { comments { post { author { posts { id } } } } } } } }`;
    const { body } = await graphql(setup.service, { query: mutation }, asRoleHeaders());
    expect(body).toMatchObject({ errors: [{ extensions: { code: "statement-size-limit-exceeded", internal: { limit: 8 } } }] });
    expect(setup.service.runtime.statementsSent).toBe(before);
    await noWrite();
  });
});
