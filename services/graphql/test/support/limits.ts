/**
 * The limits suites' common setup: the service over a test database (Fastify's inject, or a real
 * listening socket), a schema of users and posts that a nested query can blow up, statements
 * that sleep, and a look at pg_stat_activity from a connection of its own.
 */
import { createLogger, type Database, openDatabase, sql } from "@platform/core";
import { expect } from "vitest";
import { readGraphqlConfig } from "../../src/config.js";
import { createGraphql } from "../../src/server.js";

export const SECRET = "limits-admin-secret";
export const ADMIN_HEADERS = { "x-hasura-admin-secret": SECRET };
/** A request as role `user` (the admin secret lets it name the role and variables). */
export const asUser = (variables: Record<string, string> = {}) => ({ ...ADMIN_HEADERS, "x-hasura-role": "user", ...variables });

export type Service = Awaited<ReturnType<typeof createGraphql>>;

/** The service over `db` (which stays open after close()), configured by `env`. */
export async function openService(db: Database, env: Record<string, string> = {}): Promise<Service> {
  const config = readGraphqlConfig({
    HASURA_GRAPHQL_ADMIN_SECRET: SECRET,
    HASURA_GRAPHQL_METADATA_POLL_INTERVAL_MS: "60000",
    ...env,
  });
  return createGraphql(config, createLogger({ level: "silent" }), { db });
}

export async function admin(service: Service, url: string, payload: unknown) {
  const res = await service.app.inject({ method: "POST", url, payload: payload as Record<string, unknown>, headers: ADMIN_HEADERS });
  return { status: res.statusCode, body: res.json() as unknown };
}

export async function graphql(service: Service, payload: unknown, headers: Record<string, string> = asUser()) {
  const res = await service.app.inject({ method: "POST", url: "/v1/graphql", payload: payload as Record<string, unknown>, headers });
  return { status: res.statusCode, body: res.json() as unknown };
}

/** users (1000) and posts (4000, four per user), related both ways; `sleepy` takes 30 s to read. */
export const SCHEMA = `
  CREATE TABLE users (id int PRIMARY KEY, name text NOT NULL);
  CREATE TABLE posts (id int PRIMARY KEY, author_id int NOT NULL REFERENCES users (id), title text NOT NULL);
  INSERT INTO users SELECT i, 'user ' || i FROM generate_series(1, 1000) i;
  INSERT INTO posts SELECT i, 1 + i % 1000, 'post ' || i FROM generate_series(1, 4000) i;
  CREATE VIEW sleepy AS SELECT 1 AS id FROM pg_sleep(30);
  CREATE TABLE audit (id serial PRIMARY KEY, note text NOT NULL);
  CREATE FUNCTION audit_sleeps() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(30); RETURN NEW; END $$;
  CREATE TRIGGER audit_sleeps BEFORE INSERT ON audit FOR EACH ROW EXECUTE FUNCTION audit_sleeps();
`;

const table = (name: string) => ({ source: "default", table: { schema: "public", name } });

/** Creates SCHEMA through run_sql and tracks it: roles `user` and `editor` read everything, `user` inserts audit rows. */
export async function setUpSchema(service: Service): Promise<void> {
  const created = await admin(service, "/v2/query", { type: "run_sql", args: { sql: SCHEMA } });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const select = (role: string) => (name: string) => ({
    type: "pg_create_select_permission",
    args: { ...table(name), role, permission: { columns: "*", filter: {} } },
  });
  const tracked = await admin(service, "/v1/metadata", {
    type: "bulk",
    args: [
      ...["users", "posts", "sleepy", "audit"].map((name) => ({ type: "pg_track_table", args: table(name) })),
      {
        type: "pg_create_object_relationship",
        args: { ...table("posts"), name: "author", using: { foreign_key_constraint_on: "author_id" } },
      },
      {
        type: "pg_create_array_relationship",
        args: { ...table("users"), name: "posts", using: { foreign_key_constraint_on: { table: "posts", column: "author_id" } } },
      },
      ...["users", "posts", "sleepy", "audit"].map(select("user")),
      ...["users", "posts", "sleepy", "audit"].map(select("editor")),
      {
        type: "pg_create_insert_permission",
        args: { ...table("audit"), role: "user", permission: { columns: ["note"], check: {} } },
      },
    ],
  });
  expect(tracked.status, JSON.stringify(tracked.body)).toBe(200);
}

/** `{ users { posts { author { posts { author ... { id } } } } } }`, `pairs` posts/author pairs deep. */
export function nestedQuery(pairs: number): string {
  let inner = "id";
  for (let i = 0; i < pairs; i++) inner = `posts { author { ${inner} } }`;
  return `{ users { ${inner} } }`;
}

/** Polls `check` every 25 ms until it holds; returns the milliseconds it took, or fails after `withinMs`. */
export async function waitUntil(check: () => Promise<boolean>, withinMs: number, what: string): Promise<number> {
  const start = Date.now();
  for (;;) {
    if (await check()) return Date.now() - start;
    if (Date.now() - start > withinMs) throw new Error(`${what}: not within ${withinMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** Counts the statements running in one database, as pg_stat_activity shows them to a connection of its own. */
export class ActivityProbe {
  private constructor(
    private readonly monitor: Database,
    private readonly database: string,
  ) {}

  static async open(serverUrl: string, db: Database): Promise<ActivityProbe> {
    const { rows } = await db.query<{ name: string }>(sql`SELECT current_database() AS name`);
    return new ActivityProbe(await openDatabase({ url: serverUrl, maxConnections: 1 }), rows[0]?.name ?? "");
  }

  /** Active statements of the database whose text contains `fragment`. */
  async running(fragment: string): Promise<number> {
    const { rows } = await this.monitor.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM pg_stat_activity
          WHERE datname = ${this.database} AND state = 'active' AND pid <> pg_backend_pid() AND query LIKE ${`%${fragment}%`}`,
    );
    return rows[0]?.n ?? 0;
  }

  close(): Promise<void> {
    return this.monitor.close();
  }
}
