/**
 * Our real auth service (services/auth) in-process for the webhook's tests: its own scratch
 * database, RS256 keys generated and published at /.well-known/jwks.json, users signed up over
 * plain HTTP. More instances can share the database (and so the signing keys) with different
 * settings: a short token lifetime, another issuer, HS256 signing.
 */

import { type RunningAuth, readAuthConfig, startAuth } from "@platform/auth";
import { createLogger, openScratchDatabase, type ScratchDatabase } from "@platform/core";
import { SignJWT } from "jose";

export const AUTH_JWT_SECRET = "metagame-test-auth-secret-0123456789abcdef";
export const AUTH_ISSUER = "http://auth.metagame.test/auth/v1";

const BASE_ENV: Record<string, string> = {
  AUTH_SITE_URL: "http://localhost:3000",
  AUTH_API_EXTERNAL_URL: "http://auth.metagame.test",
  AUTH_DB_DRIVER: "postgres",
  AUTH_API_HOST: "127.0.0.1",
  AUTH_API_PORT: "0",
  AUTH_JWT_SECRET,
  // With the secret alone auth would sign HS256; these tests want its generated RS256 key.
  AUTH_JWT_ALGORITHM: "RS256",
  AUTH_JWT_ISSUER: AUTH_ISSUER,
  AUTH_PASSWORD_HASH_COST: "4",
  AUTH_MAILER_AUTOCONFIRM: "true",
  AUTH_RATE_LIMIT_TOKEN_REFRESH: "100000",
  LOG_LEVEL: "silent",
};

export interface Session {
  userId: string;
  accessToken: string;
}

export interface TestAuth {
  url: string;
  jwksUrl: string;
  signUp(email?: string): Promise<Session>;
  signIn(email: string, password?: string): Promise<Session>;
  /** Another instance on the same database (same keys and users) with these settings changed. */
  sibling(env: Record<string, string>): Promise<TestAuth>;
  close(): Promise<void>;
}

const PASSWORD = "a-test-password-1";
let counter = 0;
export const uniqueEmail = (label = "player") => `${label}-${process.pid}-${Date.now()}-${++counter}@example.com`;

async function sessionOf(response: Response): Promise<Session> {
  const body = (await response.json()) as { access_token?: string; user?: { id: string }; msg?: string };
  if (!response.ok || !body.access_token || !body.user) throw new Error(`auth answered ${response.status}: ${JSON.stringify(body)}`);
  return { userId: body.user.id, accessToken: body.access_token };
}

async function running(auth: RunningAuth, scratch: ScratchDatabase | null): Promise<TestAuth> {
  const post = (path: string, body: unknown) =>
    fetch(`${auth.url}${path}`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
  return {
    url: auth.url,
    jwksUrl: `${auth.url}/.well-known/jwks.json`,
    signUp: async (email = uniqueEmail()) => sessionOf(await post("/signup", { email, password: PASSWORD })),
    signIn: async (email, password = PASSWORD) => sessionOf(await post("/token?grant_type=password", { email, password })),
    async sibling(env) {
      const config = readAuthConfig({ ...BASE_ENV, ...env });
      return running(await startAuth(config, createLogger({ level: "silent" }), { db: auth.db }), null);
    },
    async close() {
      await auth.close();
      await scratch?.dispose();
    },
  };
}

export async function startTestAuth(): Promise<TestAuth> {
  const scratch = await openScratchDatabase(process.env.TEST_DATABASE_URL, "metagame_auth");
  try {
    const auth = await startAuth(readAuthConfig(BASE_ENV), createLogger({ level: "silent" }), { db: scratch.db });
    return running(auth, scratch);
  } catch (error) {
    await scratch.dispose();
    throw error;
  }
}

/** A Supabase-style API key as the gateway sends it: HS256 with the JWT secret, issuer "supabase", ten years. */
export function apiKey(role: "anon" | "service_role", secret = AUTH_JWT_SECRET): Promise<string> {
  return new SignJWT({ role })
    .setProtectedHeader({ alg: "HS256", typ: "JWT" })
    .setIssuer("supabase")
    .setIssuedAt()
    .setExpirationTime("3650d")
    .sign(new TextEncoder().encode(secret));
}

/** The backend settings that make its webhook accept this auth service's tokens. */
export function webhookEnv(auth: TestAuth): Record<string, string> {
  return { AUTH_JWKS_URL: auth.jwksUrl, AUTH_JWT_SECRET, AUTH_JWT_ISSUER: AUTH_ISSUER };
}
