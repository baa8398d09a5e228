/**
 * The first run, as a newcomer does it: the real `npm start` on a fresh data directory, then
 * sign-up and sign-in with supabase-js through the gateway, GraphQL with the session token (as
 * role `authenticated`) and with the service_role key (as admin), the catalog through the
 * gateway; then a restart that keeps the keys and the users.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openScratchDatabase, type ScratchDatabase, sql } from "@platform/core";
import { createClient } from "@supabase/supabase-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { freePorts, type Platform, portEnv, startPlatform } from "./support/platform.js";

const dir = mkdtempSync(join(tmpdir(), "platform-start-"));
const dataDir = join(dir, "data");
let env: Record<string, string>;
let platform: Platform | undefined;

beforeAll(async () => {
  env = { PLATFORM_DATA_DIR: dataDir, ...portEnv(await freePorts()) };
});

afterAll(async () => {
  await platform?.stop();
  rmSync(dir, { recursive: true, force: true });
});

/**
 * supabase-js as an app creates it. Node 20 has no global WebSocket, so supabase-js asks for the
 * `ws` package as its realtime transport (its README's Node 20 note); Node 22 needs nothing.
 */
function client(url: string, key: string) {
  return createClient(url, key, { auth: { persistSession: false, autoRefreshToken: false }, realtime: { transport: ws as never } });
}

async function graphql(url: string, headers: Record<string, string>, query: string, variables: Record<string, unknown> = {}) {
  const response = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify({ query, variables }),
  });
  expect(response.status).toBe(200);
  return (await response.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}

async function admin(gateway: string, serviceKey: string, endpoint: string, body: unknown) {
  const response = await fetch(`${gateway}${endpoint}`, {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${serviceKey}` },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  expect(response.status, text).toBe(200);
  return JSON.parse(text) as unknown;
}

describe("npm start on a fresh clone", () => {
  let first: Platform["ready"];
  const user = { email: "newcomer@example.com", password: "correct horse battery" };

  it("starts everything, prints where it is and the keys, and keeps them private to the data directory", async () => {
    platform = await startPlatform(env);
    first = platform.ready;
    expect(Object.keys(first.keys)).toEqual(
      expect.arrayContaining(["anon key", "service_role key", "publishable key", "secret key", "JWT secret", "GraphQL admin secret"]),
    );
    expect(first.urls.gateway).toBe(`http://localhost:${env.GATEWAY_PORT}`);
    expect(first.notes.join("\n")).toMatch(/confirmed at once/);
    expect(statSync(join(dataDir, "secrets.json")).mode & 0o777).toBe(0o600);
    const messages = platform.lines.map((line) => line.msg);
    expect(messages).toContain("creating the embedded PostgreSQL database for auth and graphql (first start only, a few seconds)");
    // Probes are polled during start-up; they stay out of the info log.
    expect(platform.lines.filter((line) => line.msg === "request" && /health/.test(String(line.url)))).toEqual([]);
    console.info(`fresh start: healthy after ${first.seconds} s`);
  });

  it("signs a user up and in with supabase-js through the gateway", async () => {
    const supabase = client(first.urls.gateway as string, first.keys["anon key"] as string);
    const signUp = await supabase.auth.signUp(user);
    expect(signUp.error).toBeNull();
    expect(signUp.data.session?.access_token).toBeTruthy();
    const signIn = await supabase.auth.signInWithPassword(user);
    expect(signIn.error).toBeNull();
    const { data } = await supabase.auth.getUser();
    expect(data.user?.email).toBe(user.email);
    const wrong = await supabase.auth.signInWithPassword({ ...user, password: "wrong password" });
    expect(wrong.error?.message).toBe("Invalid login credentials");
  });

  it("trusts the session token in GraphQL as role authenticated with the user's id, and the service_role key as admin", async () => {
    const gateway = first.urls.gateway as string;
    const serviceKey = first.keys["service_role key"] as string;
    const anonKey = first.keys["anon key"] as string;
    await admin(gateway, serviceKey, "/v2/query", {
      type: "run_sql",
      args: { sql: "CREATE TABLE notes (id serial PRIMARY KEY, owner uuid NOT NULL, body text NOT NULL)" },
    });
    await admin(gateway, serviceKey, "/v1/metadata", {
      type: "bulk",
      args: [
        { type: "pg_track_table", args: { source: "default", table: "notes" } },
        {
          type: "pg_create_select_permission",
          args: {
            source: "default",
            table: "notes",
            role: "authenticated",
            permission: { columns: "*", filter: { owner: { _eq: "X-Hasura-User-Id" } } },
          },
        },
        {
          type: "pg_create_insert_permission",
          args: {
            source: "default",
            table: "notes",
            role: "authenticated",
            permission: { columns: ["body"], check: {}, set: { owner: "X-Hasura-User-Id" } },
          },
        },
      ],
    });
    const supabase = client(gateway, anonKey);
    const { data } = await supabase.auth.signInWithPassword(user);
    const session = data.session;
    if (!session) throw new Error("no session");
    const asUser = { apikey: anonKey, authorization: `Bearer ${session.access_token}` };

    const inserted = await graphql(`${gateway}/graphql/v1`, asUser, 'mutation { insert_notes_one(object: {body: "mine"}) { owner body } }');
    expect(inserted).toEqual({ data: { insert_notes_one: { owner: session.user.id, body: "mine" } } });
    await graphql(
      `${gateway}/v1/graphql`,
      { authorization: `Bearer ${serviceKey}` },
      'mutation { insert_notes_one(object: {owner: "00000000-0000-0000-0000-000000000000", body: "theirs"}) { id } }',
    );
    expect(await graphql(`${gateway}/graphql/v1`, asUser, "{ notes { body } }")).toEqual({ data: { notes: [{ body: "mine" }] } });
    // The service_role key is admin: every row, and the admin-only root fields.
    const asAdmin = await graphql(
      `${gateway}/v1/graphql`,
      { authorization: `Bearer ${serviceKey}` },
      "{ notes(order_by: {id: asc}) { body } notes_aggregate { aggregate { count } } }",
    );
    expect(asAdmin).toEqual({ data: { notes: [{ body: "mine" }, { body: "theirs" }], notes_aggregate: { aggregate: { count: 2 } } } });
    // The anon key is role anon, which may not see notes.
    const asAnon = await graphql(`${gateway}/graphql/v1`, { apikey: anonKey }, "{ notes { body } }");
    expect(asAnon.errors?.[0]?.extensions?.code).toBe("validation-failed");
    // The engine straight, without the gateway, trusts the same token.
    const direct = await graphql(
      `${first.urls["graphql (direct)"]}`,
      { authorization: `Bearer ${session.access_token}` },
      "{ notes { body } }",
    );
    expect(direct).toEqual({ data: { notes: [{ body: "mine" }] } });
  });

  it("serves the catalog through the gateway", async () => {
    const gateway = first.urls.gateway as string;
    const response = await fetch(`${gateway}/catalog/products?limit=3`);
    expect(response.status).toBe(200);
    const body = (await response.json()) as { items: unknown[]; meta: { total: number } };
    expect(body.items).toHaveLength(3);
    expect(body.meta.total).toBeGreaterThan(1000);
  });

  it("keeps the keys, the users and their data across a restart", async () => {
    // npm re-raises the signal it got; the platform itself must have shut down cleanly.
    expect(await platform?.stop()).toMatchObject({ stoppedCleanly: true });
    platform = await startPlatform(env);
    expect(platform.ready.keys).toEqual(first.keys);
    expect(platform.lines.map((line) => line.msg)).not.toContain(
      "creating the embedded PostgreSQL database for auth and graphql (first start only, a few seconds)",
    );
    console.info(`warm start: healthy after ${platform.ready.seconds} s`);
    const supabase = client(platform.gateway, platform.ready.keys["anon key"] as string);
    const { data, error } = await supabase.auth.signInWithPassword(user);
    expect(error).toBeNull();
    const rows = await graphql(
      `${platform.gateway}/graphql/v1`,
      { apikey: platform.ready.keys["anon key"] as string, authorization: `Bearer ${data.session?.access_token}` },
      "{ notes { body } }",
    );
    expect(rows).toEqual({ data: { notes: [{ body: "mine" }] } });
  });
});

const serverUrl = process.env.TEST_DATABASE_URL?.trim();
if (!serverUrl) console.warn("skipping npm start on PostgreSQL: TEST_DATABASE_URL is not set");

describe.skipIf(!serverUrl)("npm start on PostgreSQL", () => {
  let scratch: ScratchDatabase;
  let onPostgres: Platform | undefined;
  const pgDir = mkdtempSync(join(tmpdir(), "platform-start-pg-"));

  beforeAll(async () => {
    scratch = await openScratchDatabase(serverUrl, "platform_start");
  });
  afterAll(async () => {
    await onPostgres?.stop();
    await scratch?.dispose();
    rmSync(pgDir, { recursive: true, force: true });
  });

  it("runs auth and graphql on it and loads the demo catalog into its empty schema", async () => {
    const url = scratch.url as string;
    onPostgres = await startPlatform({
      PLATFORM_DATA_DIR: join(pgDir, "data"),
      DATABASE_URL: url,
      HASURA_GRAPHQL_DATABASE_URL: url,
      ENDPOINT_CATALOG_DB: url,
      ...portEnv(await freePorts()),
    });
    expect(onPostgres.lines.map((line) => line.msg)).toContain("no catalog yet: generated the demo catalog");
    const { rows } = await scratch.db.query<{ n: string }>(sql`SELECT count(*) AS n FROM catalog_products`);
    expect(Number(rows[0]?.n)).toBeGreaterThan(1000);
    const products = await fetch(`${onPostgres.gateway}/catalog/products?limit=1`);
    expect(products.status).toBe(200);
    const supabase = client(onPostgres.gateway, onPostgres.ready.keys["anon key"] as string);
    const signUp = await supabase.auth.signUp({ email: "pg@example.com", password: "correct horse battery" });
    expect(signUp.error).toBeNull();
    const users = await scratch.db.query<{ email: string }>(sql`SELECT email FROM auth.users`);
    expect(users.rows).toEqual([{ email: "pg@example.com" }]);
    expect(existsSync(join(pgDir, "data", "postgres"))).toBe(false);
  });
});

describe("npm start with a port taken", () => {
  it("stops before serving anything, naming the port and the setting that moves it", async () => {
    const held = createServer();
    const ports = await freePorts();
    await new Promise<void>((resolve) => held.listen(ports.gateway, "127.0.0.1", resolve));
    const own = mkdtempSync(join(tmpdir(), "platform-start-port-"));
    try {
      const failed = await startPlatform({ PLATFORM_DATA_DIR: join(own, "data"), ...portEnv(ports) }).then(
        () => null,
        (error: Error) => error.message,
      );
      expect(failed).toContain("npm start exited with 1");
      expect(failed).toContain(
        `GATEWAY_PORT: port ${ports.gateway} on 127.0.0.1 (gateway) is already in use; stop what uses it or set GATEWAY_PORT to another port (0 picks a free one)`,
      );
      expect(failed).not.toMatch(/\n\s+at /);
    } finally {
      held.close();
      rmSync(own, { recursive: true, force: true });
    }
  });
});
