/**
 * The platform's real auth service (Supabase Auth compatible), in-process on its own in-memory
 * database, for the tests that sign users up with @supabase/auth-js and send their tokens to the
 * engine. Sign-ups are confirmed at once, as under npm start.
 */
import { readAuthConfig, startAuth } from "@platform/auth";
import { createLogger, openDatabase } from "@platform/core";
import { AuthClient } from "@supabase/auth-js";

export const AUTH_JWT_SECRET = "metagame-test-auth-jwt-secret-0123456789abcdef";

export interface TestAuth {
  url: string;
  issuer: string;
  jwksUrl: string;
  /** Signs a new user up and returns their access token and id. */
  signUp(email: string, password?: string): Promise<{ token: string; userId: string }>;
  close(): Promise<void>;
}

export async function startTestAuth(env: Record<string, string> = {}): Promise<TestAuth> {
  const db = await openDatabase({});
  const issuer = "http://127.0.0.1/auth/v1";
  const config = readAuthConfig({
    AUTH_SITE_URL: "http://localhost:3000",
    AUTH_API_EXTERNAL_URL: issuer,
    AUTH_DB_DRIVER: "postgres",
    AUTH_JWT_SECRET,
    AUTH_MAILER_AUTOCONFIRM: "true",
    AUTH_API_HOST: "127.0.0.1",
    AUTH_API_PORT: "0",
    ...env,
  });
  const auth = await startAuth(config, createLogger({ level: "silent" }), { db });
  return {
    url: auth.url,
    issuer: config.jwt.issuer,
    jwksUrl: `${auth.url}/.well-known/jwks.json`,
    async signUp(email, password = "correct horse battery") {
      const client = new AuthClient({ url: auth.url, persistSession: false, autoRefreshToken: false });
      const { data, error } = await client.signUp({ email, password });
      if (error || !data.session || !data.user) throw new Error(`sign-up of ${email} failed: ${error?.message}`);
      return { token: data.session.access_token, userId: data.user.id };
    },
    async close() {
      await auth.close();
      await db.close();
    },
  };
}
