/**
 * The bounds suites' common setup: the service over a test database, configured as it starts by
 * default, with three small tables an ordinary signed-in role reads through own-row filters
 * (users, their posts, the comments on posts), and the requests that once ran away in
 * PostgreSQL. On PostgreSQL the service's connections carry an application_name of their own,
 * so pg_stat_activity shows them apart from other test files' connections.
 */
import { randomBytes } from "node:crypto";
import { type Database, openDatabase } from "@platform/core";
import { expect } from "vitest";
import { openTestDatabase, type TestBackend, type TestDatabase } from "./db.js";
import { ADMIN_HEADERS, admin, openService, type Service } from "./limits.js";

/** 300 users, 3,000 posts (ten each), 9,000 comments (three per post). */
export const BOUNDS_SCHEMA = `
  CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL);
  CREATE TABLE posts (id int PRIMARY KEY, user_id int NOT NULL REFERENCES users (id), title text NOT NULL);
  CREATE TABLE comments (id int PRIMARY KEY, post_id int NOT NULL REFERENCES posts (id), user_id int NOT NULL REFERENCES users (id), text text NOT NULL);
  CREATE INDEX ON posts (user_id); CREATE INDEX ON comments (post_id); CREATE INDEX ON comments (user_id);
  INSERT INTO users SELECT i, 'user ' || i FROM generate_series(1, 300) i;
  INSERT INTO posts SELECT i, 1 + i % 300, 'post number ' || i FROM generate_series(1, 3000) i;
  INSERT INTO comments SELECT i, 1 + i % 3000, 1 + i % 300, 'comment number ' || i FROM generate_series(1, 9000) i;
  ANALYZE users; ANALYZE posts; ANALYZE comments;
`;

const table = (name: string) => ({ source: "default", table: { schema: "public", name } });
const own = (column: string) => ({ [column]: { _eq: "X-Hasura-User-Id" } });

/** Role `user` reads its own rows (users by id, posts and comments by user_id); `reader` reads every row. */
export async function setUpBoundsSchema(service: Service): Promise<void> {
  const created = await admin(service, "/v2/query", { type: "run_sql", args: { sql: BOUNDS_SCHEMA } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const select = (role: string, name: string, filter: Record<string, unknown>) => ({
    type: "pg_create_select_permission",
    args: { ...table(name), role, permission: { columns: "*", filter } },
  });
  const tracked = await admin(service, "/v1/metadata", {
    type: "bulk",
    args: [
      ...["users", "posts", "comments"].map((name) => ({ type: "pg_track_table", args: table(name) })),
      {
        type: "pg_create_array_relationship",
        args: { ...table("users"), name: "posts", using: { foreign_key_constraint_on: { table: "posts", column: "user_id" } } },
      },
      {
        type: "pg_create_object_relationship",
        args: { ...table("posts"), name: "author", using: { foreign_key_constraint_on: "user_id" } },
      },
      {
        type: "pg_create_array_relationship",
        args: { ...table("posts"), name: "comments", using: { foreign_key_constraint_on: { table: "comments", column: "post_id" } } },
      },
      {
        type: "pg_create_object_relationship",
        args: { ...table("comments"), name: "post", using: { foreign_key_constraint_on: "post_id" } },
      },
      select("user", "users", own("id")),
      select("user", "posts", own("user_id")),
      select("user", "comments", own("user_id")),
      ...["users", "posts", "comments"].map((name) => select("reader", name, {})),
      {
        type: "pg_create_insert_permission",
        args: {
          ...table("posts"),
          role: "user",
          permission: { columns: ["id", "title"], check: {}, set: { user_id: "X-Hasura-User-Id" } },
        },
      },
    ],
  });
  expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
}

/** Headers of a request as role `user` (user 7), or another role. */
export const asRoleHeaders = (role = "user", userId = "7") => ({ ...ADMIN_HEADERS, "x-hasura-role": role, "x-hasura-user-id": userId });

/** `{ a0: <selection> a1: <selection> ... }` with `count` aliases. */
export function aliases(count: number, selection: string): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${selection}`).join(" ")} }`;
}

/** `users { posts { author { posts { ... { id } } } } }`, `levels` deep; `args` (such as `(limit: 1)`) on every list. */
export function fanOut(levels: number, args = ""): string {
  let inner = "id";
  for (let level = levels; level > 1; level--) inner = level % 2 === 0 ? `posts${args} { ${inner} }` : `author { ${inner} }`;
  return `{ users${args} { ${inner} } }`;
}

export interface BoundsSetup {
  handle: TestDatabase;
  /** The database the service uses (on PostgreSQL with its own application_name). */
  db: Database;
  service: Service;
  /** What pg_stat_activity shows for the service's connections (PostgreSQL). */
  applicationName: string;
  close(): Promise<void>;
}

/** The service on `backend` with the bounds schema, configured by `env` over the defaults. */
export async function openBoundsService(backend: TestBackend, env: Record<string, string> = {}): Promise<BoundsSetup> {
  const handle = await openTestDatabase(backend);
  const applicationName = `bounds_${randomBytes(4).toString("hex")}`;
  const db = handle.url ? await openDatabase({ url: handle.url, maxConnections: 8, applicationName }) : handle.db;
  const service = await openService(db, env);
  await setUpBoundsSchema(service);
  return {
    handle,
    db,
    service,
    applicationName,
    async close() {
      await service.close();
      if (db !== handle.db) await db.close();
      await handle.dispose();
    },
  };
}
