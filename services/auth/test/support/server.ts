/**
 * A real auth server for a test file: a scratch database (PGlite, or a throw-away database on
 * TEST_DATABASE_URL), the HTTP server on 127.0.0.1 at a random port, and @supabase/auth-js
 * clients pointed at it. Several servers may share one database (use DB_NAMESPACE to give
 * each its own schema). Messages the server "sends" are kept in `outbox`.
 */
import { type JsonWebKey, randomUUID } from "node:crypto";
import { createLogger, type Database, ident, openScratchDatabase, type Sql } from "@platform/core";
import { GoTrueClient } from "@supabase/auth-js";
import { readAuthConfig } from "../../src/config.js";
import type { OutgoingMessage } from "../../src/domain/messenger.js";
import { createAuth } from "../../src/server.js";

export type Backend = "pglite" | "postgres";

const serverUrl = process.env.TEST_DATABASE_URL?.trim() || undefined;

/** The backends every suite runs on: PGlite, plus PostgreSQL when TEST_DATABASE_URL is set. */
export const backends: Backend[] = serverUrl ? ["pglite", "postgres"] : ["pglite"];

export const JWT_SECRET = "a-test-jwt-secret-that-is-long-enough-0123456789";

export const BASE_ENV: Record<string, string> = {
  AUTH_SITE_URL: "http://localhost:3000",
  AUTH_API_EXTERNAL_URL: "http://localhost:8081",
  AUTH_DB_DRIVER: "postgres",
  AUTH_JWT_SECRET: JWT_SECRET,
  // With the secret alone the service signs HS256; the suites test the generated RS256 key
  // (jwt-algorithm.test.ts sets "" to see the default).
  AUTH_JWT_ALGORITHM: "RS256",
  AUTH_PASSWORD_HASH_COST: "4",
  AUTH_MAILER_AUTOCONFIRM: "true",
  AUTH_EXTERNAL_PHONE_ENABLED: "true",
  AUTH_SMS_AUTOCONFIRM: "true",
  AUTH_EXTERNAL_ANONYMOUS_USERS_ENABLED: "true",
  // GoTrue's default of 30 mails / SMS per hour per server would cut suites that send many
  // (robustness.test.ts mails on every odd body without autoconfirm); rate-limits.test.ts sets its own.
  AUTH_RATE_LIMIT_EMAIL_SENT: "100000",
  AUTH_RATE_LIMIT_SMS_SENT: "100000",
  LOG_LEVEL: "silent",
};

export interface TestDatabase {
  db: Database;
  dispose(): Promise<void>;
}

export async function openTestDatabase(backend: Backend): Promise<TestDatabase> {
  return openScratchDatabase(backend === "postgres" ? serverUrl : undefined, "auth_test");
}

export interface TestServer {
  url: string;
  db: Database;
  /** The schema-qualified name of one of this server's tables, for direct SQL in tests. */
  table(name: string): ReturnType<typeof ident>;
  outbox: OutgoingMessage[];
  client(): GoTrueClient;
  /** fetch against the server: `request("/user", {headers})`. */
  request(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

export interface TestServerOptions {
  /** Send messages the way the configuration says (SMTP) instead of keeping them in `outbox`. */
  deliver?: boolean;
  mailCatcher?: boolean;
  /** Listen on this port (0: any free one). */
  port?: number;
}

/** A port free right now, for a server whose settings must name its own address (an OAuth redirect URI). */
export { freePort } from "@platform/core";

export async function startTestServer(
  db: Database,
  env: Record<string, string> = {},
  options: TestServerOptions = {},
): Promise<TestServer> {
  const settings = { ...BASE_ENV, ...env };
  const config = readAuthConfig(settings);
  const outbox: OutgoingMessage[] = [];
  const recording = {
    async send(message: OutgoingMessage) {
      outbox.push(message);
      return { messageId: `recorded-${outbox.length}` };
    },
  };
  const instance = await createAuth(config, createLogger({ level: settings.LOG_LEVEL ?? "silent" }), {
    db,
    ...(options.deliver ? {} : { messenger: recording }),
    ...(options.mailCatcher ? { mailCatcher: true } : {}),
  });
  const url = await instance.app.listen({ host: "127.0.0.1", port: options.port ?? 0 });
  return {
    url,
    db,
    outbox,
    table: (name) => ident(config.database.schema, name),
    client: () => new GoTrueClient({ url, persistSession: false, autoRefreshToken: false, storageKey: `test-${randomUUID()}` }),
    request: (path, init) => fetch(`${url}${path}`, init),
    close: () => instance.close(),
  };
}

/** A unique address per call, so tests never collide on the unique email index. */
export const email = (label = "user") => `${label}-${randomUUID().slice(0, 8)}@example.com`;

/** A unique E.164 phone number. */
export const phone = () => `+1555${String(Math.floor(Math.random() * 1e7)).padStart(7, "0")}`;

export async function one<T>(db: Database, query: Sql): Promise<T> {
  const { rows } = await db.query<T>(query);
  return rows[0] as T;
}

export async function readJson<T = Record<string, unknown>>(response: Response): Promise<T> {
  return (await response.json()) as T;
}

export interface PublicJwk extends JsonWebKey {
  kid: string;
  alg: string;
  kty: string;
}

export async function jwks(server: TestServer): Promise<{ keys: PublicJwk[] }> {
  return readJson(await server.request("/.well-known/jwks.json"));
}
