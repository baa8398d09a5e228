/** Refresh-token rotation, reuse and sign-out scopes. */
import { sql } from "@platform/core";
import { AuthSessionMissingError } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backends, email, one, openTestDatabase, startTestServer, type TestDatabase, type TestServer } from "./support/server.js";

describe.each(backends)("sessions on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let noRotation: TestServer;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    server = await startTestServer(database.db);
    noRotation = await startTestServer(database.db, { AUTH_DB_NAMESPACE: "plain", AUTH_SECURITY_REFRESH_TOKEN_ROTATION_ENABLED: "false" });
  });
  afterAll(async () => {
    await Promise.all([server?.close(), noRotation?.close()]);
    await database?.dispose();
  });

  async function signedIn(target = server) {
    const address = email();
    await target.client().signUp({ email: address, password: "secret-1" });
    const client = target.client();
    const { data, error } = await client.signInWithPassword({ email: address, password: "secret-1" });
    if (error || !data.session) throw error ?? new Error("no session");
    return { client, session: data.session, address };
  }

  const sessionId = (accessToken: string): string =>
    JSON.parse(Buffer.from(accessToken.split(".")[1] as string, "base64url").toString()).session_id;

  const refresh = (refreshToken: string, target = server) => target.client().refreshSession({ refresh_token: refreshToken });

  /** Moves a token's revocation back in time, past the reuse interval. */
  const age = (token: string, target = server) =>
    target.db.query(sql`UPDATE ${target.table("refresh_tokens")} SET updated_at = now() - interval '1 hour' WHERE token = ${token}`);

  it("rotates: a refresh revokes the token and issues a child; the child refreshes in turn", async () => {
    const { session } = await signedIn();
    const first = await refresh(session.refresh_token);
    expect(first.error).toBeNull();
    const child = first.data.session?.refresh_token as string;
    expect(child).not.toBe(session.refresh_token);
    expect(first.data.session?.user.id).toBe(session.user.id);
    const rows = await server.db.query<{ token: string; revoked: boolean; parent: string | null }>(
      sql`SELECT token, revoked, parent FROM ${server.table("refresh_tokens")} WHERE token IN (${session.refresh_token}, ${child}) ORDER BY id`,
    );
    expect(rows.rows).toEqual([
      { token: session.refresh_token, revoked: true, parent: null },
      { token: child, revoked: false, parent: session.refresh_token },
    ]);
    const second = await refresh(child);
    expect(second.error).toBeNull();
    const claims = JSON.parse(Buffer.from((second.data.session?.access_token ?? "").split(".")[1] as string, "base64url").toString());
    expect(claims.session_id).toBe(sessionId(session.access_token));
    expect(claims.amr).toEqual([{ method: "password", timestamp: expect.any(Number) }]);
  });

  it("gives the same child back when the previous token is reused within the reuse interval", async () => {
    const { session } = await signedIn();
    const first = await refresh(session.refresh_token);
    const again = await refresh(session.refresh_token);
    expect(again.error).toBeNull();
    expect(again.data.session?.refresh_token).toBe(first.data.session?.refresh_token);
    // And the child still works: nothing was revoked.
    expect((await refresh(first.data.session?.refresh_token as string)).error).toBeNull();
  });

  it("answers two simultaneous refreshes of one token with the same child", async () => {
    const { session } = await signedIn();
    const results = await Promise.all([refresh(session.refresh_token), refresh(session.refresh_token), refresh(session.refresh_token)]);
    for (const result of results) expect(result.error).toBeNull();
    const children = new Set(results.map((r) => r.data.session?.refresh_token));
    expect(children.size).toBe(1);
    const { count } = await one<{ count: number }>(
      server.db,
      sql`SELECT count(*)::int AS count FROM ${server.table("refresh_tokens")} WHERE parent = ${session.refresh_token}`,
    );
    expect(count).toBe(1);
  });

  it("revokes every descendant when a revoked token is reused outside the interval", async () => {
    const { session, client } = await signedIn();
    const first = await refresh(session.refresh_token);
    const child = first.data.session?.refresh_token as string;
    const second = await refresh(child);
    const grandchild = second.data.session?.refresh_token as string;
    await age(session.refresh_token);
    const reuse = await refresh(session.refresh_token);
    expect({ code: reuse.error?.code, status: reuse.error?.status, message: reuse.error?.message }).toEqual({
      code: "refresh_token_already_used",
      status: 400,
      message: "Invalid Refresh Token: Already Used",
    });
    const latest = await refresh(grandchild);
    expect(latest.error?.code).toBe("refresh_token_already_used");
    const { active } = await one<{ active: number }>(
      server.db,
      sql`SELECT count(*)::int AS active FROM ${server.table("refresh_tokens")} WHERE revoked = false AND session_id = ${sessionId(session.access_token)}`,
    );
    expect(active).toBe(0);
    // Access tokens already issued stay valid until they expire.
    expect((await client.getUser(session.access_token)).error).toBeNull();
  });

  it("treats reuse of an older (not the immediately previous) token as abuse even inside the interval", async () => {
    const { session } = await signedIn();
    const first = await refresh(session.refresh_token);
    const second = await refresh(first.data.session?.refresh_token as string);
    const reuse = await refresh(session.refresh_token);
    expect(reuse.error?.code).toBe("refresh_token_already_used");
    expect((await refresh(second.data.session?.refresh_token as string)).error?.code).toBe("refresh_token_already_used");
  });

  it("without rotation refuses an old token but revokes nothing", async () => {
    const { session } = await signedIn(noRotation);
    const first = await refresh(session.refresh_token, noRotation);
    await age(session.refresh_token, noRotation);
    expect((await refresh(session.refresh_token, noRotation)).error?.code).toBe("refresh_token_already_used");
    expect((await refresh(first.data.session?.refresh_token as string, noRotation)).error).toBeNull();
  });

  it("answers unknown and missing refresh tokens as GoTrue does", async () => {
    const unknown = await refresh("abcdefghijkl");
    expect({ code: unknown.error?.code, status: unknown.error?.status, message: unknown.error?.message }).toEqual({
      code: "refresh_token_not_found",
      status: 400,
      message: "Invalid Refresh Token: Refresh Token Not Found",
    });
    expect((await refresh("short")).error?.code).toBe("refresh_token_not_found");
    const missing = await server.request("/token?grant_type=refresh_token", { method: "POST", body: "{}" });
    expect(missing.status).toBe(400);
    expect(await missing.json()).toEqual({ error: "invalid_request", error_description: "refresh_token required" });
    const grant = await server.request("/token?grant_type=magic", {
      method: "POST",
      body: "{}",
      headers: { "x-supabase-api-version": "2024-01-01" },
    });
    expect(await grant.json()).toEqual({ code: "invalid_credentials", message: "unsupported_grant_type" });
  });

  it("signs out locally: only the current session ends, its refresh token stops working", async () => {
    const a = await signedIn();
    const other = a.client;
    const b = await server.client().signInWithPassword({ email: a.address, password: "secret-1" });
    const { error } = await other.signOut({ scope: "local" });
    expect(error).toBeNull();
    expect((await refresh(a.session.refresh_token)).error?.code).toBe("refresh_token_not_found");
    const gone = await server.client().getUser(a.session.access_token);
    expect(gone.error).toBeInstanceOf(AuthSessionMissingError);
    expect((await refresh(b.data.session?.refresh_token as string)).error).toBeNull();
  });

  it("signs out others: every other session ends, the current one stays", async () => {
    const a = await signedIn();
    const b = await server.client().signInWithPassword({ email: a.address, password: "secret-1" });
    expect((await a.client.signOut({ scope: "others" })).error).toBeNull();
    expect((await refresh(b.data.session?.refresh_token as string)).error?.code).toBe("refresh_token_not_found");
    expect((await a.client.getUser()).error).toBeNull();
    expect((await refresh(a.session.refresh_token)).error).toBeNull();
  });

  it("signs out globally: every session ends (204), and the bare endpoint checks the scope", async () => {
    const a = await signedIn();
    const b = await server.client().signInWithPassword({ email: a.address, password: "secret-1" });
    const response = await server.request("/logout", { method: "POST", headers: { authorization: `Bearer ${a.session.access_token}` } });
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
    expect((await refresh(a.session.refresh_token)).error?.code).toBe("refresh_token_not_found");
    expect((await refresh(b.data.session?.refresh_token as string)).error?.code).toBe("refresh_token_not_found");
    const c = await server.client().signInWithPassword({ email: a.address, password: "secret-1" });
    const bad = await server.request("/logout?scope=everywhere", {
      method: "POST",
      headers: { authorization: `Bearer ${c.data.session?.access_token}` },
    });
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error_code: "validation_failed", msg: 'Unsupported logout scope "everywhere"' });
  });
});
