/** Admin tokens and @supabase/auth-js admin clients for the admin and link suites. */
import { GoTrueAdminApi } from "@supabase/auth-js";
import { SignJWT } from "jose";
import { email, JWT_SECRET, type TestServer } from "./server.js";

/**
 * An HS256 token signed with JWT_SECRET, as the auth-js suites mint theirs: by default
 * `{role: "service_role"}` with no sub and no exp.
 */
export function adminToken(claims: Record<string, unknown> = { role: "service_role" }): Promise<string> {
  return new SignJWT(claims).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(new TextEncoder().encode(JWT_SECRET));
}

export async function adminApi(server: TestServer, headers: Record<string, string> = {}, token?: string): Promise<GoTrueAdminApi> {
  return new GoTrueAdminApi({ url: server.url, headers: { Authorization: `Bearer ${token ?? (await adminToken())}`, ...headers } });
}

/** fetch with an admin bearer and the 2024-01-01 error shape. */
export async function adminRequest(server: TestServer, path: string, init: RequestInit = {}, token?: string): Promise<Response> {
  const headers = new Headers(init.headers);
  if (!headers.has("authorization")) headers.set("authorization", `Bearer ${token ?? (await adminToken())}`);
  headers.set("x-supabase-api-version", "2024-01-01");
  return server.request(path, { ...init, headers });
}

/** A user created through the admin API with a confirmed email, ready to sign in. */
export async function createConfirmedUser(admin: GoTrueAdminApi, prefix: string, password = "secret-1") {
  const address = email(prefix);
  const { data, error } = await admin.createUser({ email: address, password, email_confirm: true });
  if (error || !data.user) throw error ?? new Error("no user");
  return { user: data.user, address, password };
}
