/**
 * What a live poller's statement reads, as the engine records it while compiling: every table the
 * answer depends on (the selected table, relationship targets, tables in permission filters, in
 * `_exists` and in ordering by a relationship), and what it reads whose changes cannot be observed
 * (a view, a function such as a computed field), named. The change signal polls on these.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";
import { admin, openService, type Service } from "./support/limits.js";

const ADMIN = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };
const MEMBER = {
  role: "member",
  variables: { "x-hasura-role": "member", "x-hasura-user-id": "1" },
  isAdmin: false,
  useBackendOnly: false,
};

describe.each(testBackends)("what a poller's statement reads (%s)", (backend) => {
  let handle: TestDatabase;
  let service: Service;
  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    service = await openService(handle.db);
    const created = await admin(service, "/v2/query", {
      type: "run_sql",
      args: {
        sql: `
          CREATE TABLE teams (id int PRIMARY KEY, name text NOT NULL);
          CREATE TABLE members (id int PRIMARY KEY, team_id int NOT NULL REFERENCES teams (id), user_id int NOT NULL);
          CREATE TABLE tasks (id int PRIMARY KEY, team_id int NOT NULL REFERENCES teams (id), title text NOT NULL);
          CREATE TABLE banned (user_id int PRIMARY KEY);
          CREATE VIEW open_tasks AS SELECT * FROM tasks;
          CREATE FUNCTION task_label(t tasks) RETURNS text LANGUAGE sql STABLE AS $$ SELECT t.title || '!' $$;`,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const t = (name: string) => ({ schema: "public", name });
    const tracked = await admin(service, "/v1/metadata", {
      type: "bulk",
      args: [
        ...["teams", "members", "tasks", "banned", "open_tasks"].map((name) => ({ type: "pg_track_table", args: { table: name } })),
        { type: "pg_create_object_relationship", args: { table: "tasks", name: "team", using: { foreign_key_constraint_on: "team_id" } } },
        {
          type: "pg_create_array_relationship",
          args: { table: "teams", name: "members", using: { foreign_key_constraint_on: { table: t("members"), column: "team_id" } } },
        },
        {
          type: "pg_create_array_relationship",
          args: { table: "teams", name: "tasks", using: { foreign_key_constraint_on: { table: t("tasks"), column: "team_id" } } },
        },
        { type: "pg_add_computed_field", args: { table: "tasks", name: "label", definition: { function: "task_label" } } },
        {
          type: "pg_create_select_permission",
          args: {
            table: "tasks",
            role: "member",
            permission: {
              columns: ["id", "title"],
              // A member's team's tasks, unless the member is banned: two more tables read.
              filter: {
                _and: [
                  { team: { members: { user_id: { _eq: "X-Hasura-User-Id" } } } },
                  { _not: { _exists: { _table: t("banned"), _where: { user_id: { _eq: "X-Hasura-User-Id" } } } } },
                ],
              },
            },
          },
        },
        { type: "pg_create_select_permission", args: { table: "teams", role: "member", permission: { columns: ["name"], filter: {} } } },
        {
          type: "pg_create_select_permission",
          args: { table: "members", role: "member", permission: { columns: ["user_id"], filter: {} } },
        },
      ],
    });
    expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
  }, 60_000);
  afterAll(async () => {
    await service?.close();
    await handle?.dispose();
  });

  /** Subscribes, reads what the one poller now running reads, and stops. */
  async function readsOf(query: string, session = ADMIN): Promise<{ tables: string[]; opaque: string[] }> {
    const started = await service.runtime.start({ query }, session, {}, { push: () => {} });
    if (started.kind !== "subscription") throw new Error(started.response.body);
    try {
      const [reads, ...others] = service.runtime.pollerReads;
      expect(others).toEqual([]);
      return { tables: [...(reads?.tables ?? [])].sort(), opaque: [...(reads?.opaque ?? [])].sort() };
    } finally {
      started.stop();
    }
  }

  it("records the selected table and every relationship target it selects through", async () => {
    expect(await readsOf("subscription { tasks { title team { name members { user_id } } } }")).toEqual({
      tables: ["public.members", "public.tasks", "public.teams"],
      opaque: [],
    });
  });

  it("records the tables a permission filter reads, through relationships and _exists", async () => {
    expect(await readsOf("subscription { tasks { title } }", MEMBER)).toEqual({
      tables: ["public.banned", "public.members", "public.tasks", "public.teams"],
      opaque: [],
    });
  });

  it("records the tables read by a where, an order by a relationship's aggregate and an aggregate", async () => {
    const query = `subscription { teams(where: {tasks: {title: {_eq: "x"}}}, order_by: {members_aggregate: {count: desc}}) { name } }`;
    expect(await readsOf(query)).toEqual({ tables: ["public.members", "public.tasks", "public.teams"], opaque: [] });
    expect(await readsOf("subscription { tasks_aggregate { aggregate { count } } }")).toEqual({ tables: ["public.tasks"], opaque: [] });
  });

  it("names what it cannot observe: a view, a function", async () => {
    expect(await readsOf("subscription { open_tasks { id } }")).toEqual({ tables: [], opaque: ["view public.open_tasks"] });
    expect(await readsOf("subscription { tasks { label } }")).toEqual({ tables: ["public.tasks"], opaque: ["function public.task_label"] });
  });
});
