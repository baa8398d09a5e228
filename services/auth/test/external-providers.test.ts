/**
 * Sign-in with external providers, driven as a browser and @supabase/auth-js drive it: GET
 * /authorize, the provider (local stand-ins of GitHub and GitLab, and an OpenID Connect provider
 * standing in for Google, Apple and Azure), GET or POST /callback, then the session in the
 * fragment (implicit) or `?code=` and exchangeCodeForSession (PKCE). Also the flow's security
 * rules (state, redirect_to, ID-token checks), automatic linking by verified email, and manual
 * linking and unlinking.
 */
import { createHash } from "node:crypto";
import { sql } from "@platform/core";
import type { GoTrueAdminApi, GoTrueClient } from "@supabase/auth-js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { adminApi, createConfirmedUser } from "./support/admin.js";
import {
  browse,
  browserClient,
  fragment,
  type OidcProvider,
  type ProviderStandIn,
  query,
  type StandInUser,
  startOidcProvider,
  startProviderStandIn,
  startTwitterStandIn,
  type TwitterStandIn,
} from "./support/oauth-providers.js";
import {
  backends,
  email,
  freePort,
  one,
  openTestDatabase,
  readJson,
  startTestServer,
  type TestDatabase,
  type TestServer,
} from "./support/server.js";

const SITE = "http://localhost:3000";
const APP = "http://localhost:3000/welcome";

let nextId = 1000;
function githubUser(address: string, verified = true, extra: Partial<StandInUser> = {}): StandInUser {
  nextId += 1;
  return {
    id: nextId,
    login: `octo${nextId}`,
    name: `Octo ${nextId}`,
    email: address,
    emails: [{ email: address, verified, primary: true }],
    confirmed: verified,
    ...extra,
  };
}

const client = (server: TestServer, flowType: "implicit" | "pkce") => browserClient(server.url, flowType);

describe.each(backends)("external providers on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let admin: GoTrueAdminApi;
  let standIn: ProviderStandIn;
  let oidc: OidcProvider;
  let twitter: TwitterStandIn;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    standIn = await startProviderStandIn();
    oidc = await startOidcProvider();
    twitter = await startTwitterStandIn();
    const port = await freePort();
    const provider = (name: string, extra: Record<string, string> = {}) => ({
      [`AUTH_EXTERNAL_${name}_ENABLED`]: "true",
      [`AUTH_EXTERNAL_${name}_CLIENT_ID`]: standIn.clientId,
      [`AUTH_EXTERNAL_${name}_SECRET`]: standIn.secret,
      [`AUTH_EXTERNAL_${name}_REDIRECT_URI`]: `http://127.0.0.1:${port}/callback`,
      ...extra,
    });
    server = await startTestServer(
      database.db,
      {
        AUTH_MAILER_AUTOCONFIRM: "false",
        AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
        AUTH_SECURITY_MANUAL_LINKING_ENABLED: "true",
        AUTH_MAILER_NOTIFICATIONS_IDENTITY_LINKED_ENABLED: "true",
        AUTH_MAILER_NOTIFICATIONS_IDENTITY_UNLINKED_ENABLED: "true",
        ...provider("GITHUB", { AUTH_EXTERNAL_GITHUB_URL: standIn.url }),
        ...provider("GITLAB", { AUTH_EXTERNAL_GITLAB_URL: standIn.url }),
        ...provider("GOOGLE", { AUTH_EXTERNAL_GOOGLE_TEST_ISSUER: oidc.issuer }),
        ...provider("APPLE", { AUTH_EXTERNAL_APPLE_TEST_ISSUER: oidc.issuer }),
        ...provider("AZURE", { AUTH_EXTERNAL_AZURE_TEST_ISSUER: oidc.issuer }),
        ...provider("TWITTER", {
          AUTH_EXTERNAL_TWITTER_URL: twitter.url,
          AUTH_EXTERNAL_TWITTER_CLIENT_ID: twitter.key,
          AUTH_EXTERNAL_TWITTER_SECRET: twitter.secret,
        }),
      },
      { port },
    );
    admin = await adminApi(server);
  });
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    await oidc?.close();
    await twitter?.close();
    await database?.dispose();
  });
  beforeEach(() => oidc?.setClaims({}));

  const callbackUrl = () => `${server.url}/callback`;
  const signIn = async (
    c: GoTrueClient,
    provider: "github" | "gitlab" | "google" | "apple" | "azure",
    options: Record<string, unknown> = {},
  ) => {
    const { data, error } = await c.signInWithOAuth({ provider, options: { skipBrowserRedirect: true, redirectTo: APP, ...options } });
    if (error) throw error;
    return browse(data.url as string, SITE, callbackUrl());
  };
  const userRow = (id: string) =>
    one<{ email: string | null; email_confirmed_at: string | null; is_anonymous: boolean; raw_app_meta_data: Record<string, unknown> }>(
      database.db,
      sql`SELECT email, email_confirmed_at, is_anonymous, raw_app_meta_data FROM ${server.table("users")} WHERE id = ${id}`,
    );
  const getUser = async (accessToken: string) =>
    readJson<{
      id: string;
      email: string;
      identities: { id: string; provider: string; identity_data: Record<string, unknown> }[];
      user_metadata: Record<string, unknown>;
    }>(await server.request("/user", { headers: { authorization: `Bearer ${accessToken}` } }));

  it("refuses unknown and disabled providers as GoTrue does", async () => {
    let response = await server.request("/authorize?provider=nope");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({
      error_code: "validation_failed",
      msg: "Unsupported provider: Provider nope could not be found",
    });
    response = await server.request("/authorize?provider=discord");
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error_code: "validation_failed", msg: "Unsupported provider: provider is not enabled" });
  });
  it("sends the browser to the provider with a flow_state row as state, the scopes and the client's extra parameters", async () => {
    const response = await server.request(
      `/authorize?provider=GitHub&scopes=repo,gist&redirect_to=${encodeURIComponent(APP)}&access_type=offline&client_id=evil&state=evil&Redirect_Uri=evil`,
      { redirect: "manual" },
    );
    expect(response.status).toBe(302);
    const location = new URL(response.headers.get("location") as string);
    expect(`${location.origin}${location.pathname}`).toBe(`${standIn.url}/login/oauth/authorize`);
    const params = location.searchParams;
    expect(params.get("client_id")).toBe(standIn.clientId);
    expect(params.get("redirect_uri")).toBe(callbackUrl());
    expect(params.get("response_type")).toBe("code");
    expect(params.get("scope")).toBe("user:email repo gist");
    expect(params.get("access_type")).toBe("offline");
    expect(params.getAll("state")).toHaveLength(1);
    expect(params.has("Redirect_Uri")).toBe(false);
    const flow = await one<{ provider_type: string; authentication_method: string; referrer: string; code_challenge: string | null }>(
      database.db,
      sql`SELECT provider_type, authentication_method, referrer, code_challenge FROM ${server.table("flow_state")} WHERE id = ${params.get("state")}`,
    );
    expect(flow).toEqual({ provider_type: "github", authentication_method: "oauth", referrer: APP, code_challenge: null });
  });

  it("signs a new GitHub user in with the implicit flow: the session and the provider's tokens in the fragment", async () => {
    const address = email("octo");
    standIn.setUser(githubUser(address));
    const location = await signIn(client(server, "implicit"), "github");
    expect(location.startsWith(`${APP}#`)).toBe(true);
    const values = fragment(location);
    expect(values.get("token_type")).toBe("bearer");
    expect(values.get("provider_token")).toMatch(/^gho_/);
    expect(values.get("provider_refresh_token")).toMatch(/^ghr_/);
    expect(values.get("refresh_token")).toBeTruthy();
    expect(values.has("sb")).toBe(true);
    const user = await getUser(values.get("access_token") as string);
    expect(user.email).toBe(address);
    expect(user.identities.map((i) => i.provider)).toEqual(["github"]);
    expect(user.identities[0]?.identity_data).toMatchObject({
      email: address,
      email_verified: true,
      phone_verified: false,
      iss: `${standIn.url}/api/v3`,
      provider_id: expect.any(String),
      user_name: expect.stringMatching(/^octo/),
    });
    expect(user.user_metadata).toMatchObject({ user_name: expect.stringMatching(/^octo/), email_verified: true });
    const row = await userRow(user.id);
    expect(row.email_confirmed_at).not.toBeNull();
    expect(row.raw_app_meta_data).toEqual({ provider: "github", providers: ["github"] });
    // The implicit flow's row is gone once the session is issued.
    const { rows } = await database.db.query(
      sql`SELECT 1 FROM ${server.table("flow_state")} WHERE provider_type = 'github' AND user_id = ${user.id}`,
    );
    expect(rows).toHaveLength(0);
  });

  it("signs in with PKCE: ?code= at the app, then exchangeCodeForSession with the provider's tokens; the code and the state work once", async () => {
    const address = email("pkce");
    standIn.setUser(githubUser(address));
    const browser = client(server, "pkce");
    const { data } = await browser.signInWithOAuth({ provider: "github", options: { skipBrowserRedirect: true, redirectTo: APP } });
    const authorize = await fetch(data.url as string, { redirect: "manual" });
    const toProvider = authorize.headers.get("location") as string;
    const state = query(toProvider).get("state") as string;
    const atCallback = (await fetch(toProvider, { redirect: "manual" })).headers.get("location") as string;
    const location = await browse(atCallback, SITE);
    const code = query(location).get("code") as string;
    expect(location.startsWith(`${APP}?code=`)).toBe(true);
    // The same state again: this PKCE flow is already used.
    const again = await browse(atCallback, SITE);
    expect(query(again).get("error_code")).toBe("flow_state_already_used");
    const { data: session, error } = await browser.exchangeCodeForSession(code);
    expect(error).toBeNull();
    expect(session.session?.provider_token).toMatch(/^gho_/);
    expect(session.session?.provider_refresh_token).toMatch(/^ghr_/);
    expect(session.user?.email).toBe(address);
    expect(session.user?.app_metadata.provider).toBe("github");
    // Once exchanged, the flow is gone: its state is unknown.
    const late = await fetch(`${server.url}/callback?state=${state}&code=x`, { redirect: "manual" });
    expect(late.status).toBe(303);
    expect(query(late.headers.get("location") as string).get("error_code")).toBe("bad_oauth_state");
    const { error: reused } = await browser.exchangeCodeForSession(code);
    expect(reused?.message).toMatch(/code verifier|flow state/);
  });

  it("refuses missing, malformed, unknown and expired states with a redirect to SITE_URL", async () => {
    const check = async (path: string, code: string, description: string) => {
      const response = await server.request(path, { redirect: "manual" });
      expect(response.status).toBe(303);
      const location = response.headers.get("location") as string;
      expect(location.startsWith(`${SITE}?`) || location.startsWith(`${SITE}/?`)).toBe(true);
      expect(Object.fromEntries(query(location))).toEqual({ error: "invalid_request", error_code: code, error_description: description });
    };
    await check("/callback?code=x", "bad_oauth_callback", "OAuth state parameter missing");
    await check("/callback?code=x&state=not-a-uuid", "bad_oauth_state", "OAuth state parameter is invalid");
    await check(`/callback?code=x&state=${crypto.randomUUID()}`, "bad_oauth_state", "OAuth state not found or expired");
    const response = await server.request(`/authorize?provider=github&redirect_to=${encodeURIComponent(APP)}`, { redirect: "manual" });
    const state = query(response.headers.get("location") as string).get("state") as string;
    await database.db.query(sql`UPDATE ${server.table("flow_state")} SET created_at = now() - interval '301 seconds' WHERE id = ${state}`);
    await check(`/callback?code=x&state=${state}`, "bad_oauth_state", "OAuth state has expired");
  });

  it("ends at SITE_URL when redirect_to is not allowed, and passes the provider's own error on", async () => {
    standIn.setUser(githubUser(email("site")));
    const location = await signIn(client(server, "implicit"), "github", { redirectTo: "https://evil.example/steal" });
    expect(location.startsWith(`${SITE}#access_token=`) || location.startsWith(`${SITE}/#access_token=`)).toBe(true);
    const start = await server.request(`/authorize?provider=github&redirect_to=${encodeURIComponent(APP)}`, { redirect: "manual" });
    const state = query(start.headers.get("location") as string).get("state") as string;
    const denied = await server.request(`/callback?state=${state}&error=access_denied&error_description=The+user+said+no`, {
      redirect: "manual",
    });
    expect(denied.status).toBe(302);
    const target = denied.headers.get("location") as string;
    expect(target.startsWith(`${APP}?`)).toBe(true);
    expect(Object.fromEntries(query(target))).toEqual({ error: "access_denied", error_description: "The user said no" });
    expect(Object.fromEntries(fragment(target))).toEqual({ error: "access_denied", error_description: "The user said no", sb: "" });
  });

  it("links a provider identity to the account holding its verified address, and to nothing else", async () => {
    const { user, address } = await createConfirmedUser(admin, "linked");
    standIn.setUser(githubUser(address));
    const values = fragment(await signIn(client(server, "implicit"), "github"));
    const signedIn = await getUser(values.get("access_token") as string);
    expect(signedIn.id).toBe(user.id);
    expect(signedIn.identities.map((i) => i.provider).sort()).toEqual(["email", "github"]);
    expect((await userRow(user.id)).raw_app_meta_data).toEqual({ provider: "email", providers: ["email", "github"] });
  });

  it("does not link on an unverified address: the existing account is untouched and the sign-in refused", async () => {
    const { user, address } = await createConfirmedUser(admin, "victim");
    standIn.setUser(githubUser(address, false));
    const location = await signIn(client(server, "implicit"), "github");
    expect(Object.fromEntries(query(location))).toEqual({
      error: "access_denied",
      error_code: "provider_email_needs_verification",
      error_description: "Unverified email with github. Verify the email with github in order to sign in",
    });
    const { rows } = await database.db.query<{ n: number }>(
      sql`SELECT count(*)::int AS n FROM ${server.table("identities")} WHERE user_id = ${user.id}`,
    );
    expect(rows[0]?.n).toBe(1);
  });

  it("creates an unconfirmed account for a new unverified address, sends a confirmation and refuses the sign-in", async () => {
    const address = email("unverified");
    const before = server.outbox.length;
    standIn.setUser(githubUser(address, false));
    const location = await signIn(client(server, "implicit"), "github");
    expect(query(location).get("error_code")).toBe("provider_email_needs_verification");
    expect(query(location).get("error_description")).toBe(
      "Unverified email with github. A confirmation email has been sent to your github email",
    );
    expect(server.outbox.slice(before).map((m) => [m.kind, m.to])).toEqual([["confirmation", address]]);
    const row = await one<{ email_confirmed_at: string | null }>(
      database.db,
      sql`SELECT email_confirmed_at FROM ${server.table("users")} WHERE email = ${address}`,
    );
    expect(row.email_confirmed_at).toBeNull();
  });

  it("exchanges GitLab's code with the credentials in the body when Basic is refused, and reads its confirmed primary address", async () => {
    const address = email("gitlab");
    standIn.setUser(githubUser(address, true, { emails: [{ email: email("other"), verified: true, primary: false }] }));
    const location = await signIn(client(server, "pkce"), "gitlab");
    expect(query(location).get("code")).toBeTruthy();
    const calls = standIn.tokenCalls.filter((c) => c.path === "/oauth/token").slice(-2);
    expect(calls.map((c) => c.basic)).toEqual([true, false]);
    expect(calls[1]?.body.get("client_secret")).toBe(standIn.secret);
  });

  it("signs in with Google through discovery and a verified ID token, keeping hd as a custom claim", async () => {
    const address = email("google");
    oidc.setClaims({
      sub: "google-1",
      email: address,
      email_verified: true,
      name: "Goo Gle",
      picture: "https://p.example/1",
      hd: "example.com",
    });
    const browser = client(server, "pkce");
    const location = await signIn(browser, "google");
    const { data, error } = await browser.exchangeCodeForSession(query(location).get("code") as string);
    expect(error).toBeNull();
    const identity = data.user?.identities?.[0];
    expect(identity?.provider).toBe("google");
    expect(identity?.identity_data).toMatchObject({
      iss: oidc.issuer,
      sub: "google-1",
      email: address,
      email_verified: true,
      full_name: "Goo Gle",
      avatar_url: "https://p.example/1",
      custom_claims: { hd: "example.com" },
    });
    expect(data.session?.provider_token).toBeTruthy();
  });

  it("refuses an ID token for another audience", async () => {
    oidc.setClaims({ sub: "google-2", email: email("aud"), email_verified: true, aud: "someone-else" });
    const location = await signIn(client(server, "implicit"), "google");
    expect(Object.fromEntries(query(location))).toEqual({
      error: "server_error",
      error_code: "unexpected_failure",
      error_description: "Error getting user profile from external provider",
    });
  });

  it("takes Apple's form_post callback and the name it sends only the first time", async () => {
    const address = email("apple");
    oidc.setClaims({ sub: "apple-1", email: address, is_private_email: "true" });
    const { data } = await client(server, "implicit").signInWithOAuth({
      provider: "apple",
      options: { skipBrowserRedirect: true, redirectTo: APP },
    });
    expect(query(data.url as string).get("provider")).toBe("apple");
    const location = await browse(data.url as string, SITE, callbackUrl(), {
      user: JSON.stringify({ name: { firstName: "Ap", lastName: "Ple" } }),
    });
    const user = await getUser(fragment(location).get("access_token") as string);
    expect(user.email).toBe(address);
    expect(user.user_metadata).toMatchObject({ full_name: "Ap Ple", name: "Ap Ple", custom_claims: { is_private_email: true } });
  });

  it("signs in with Azure; a domain-unverified address (xms_edov false) does not confirm the account", async () => {
    const address = email("azure");
    oidc.setClaims({ sub: "azure-1", email: address, name: "Az Ure", preferred_username: address, tid: "tenant" });
    const user = await getUser(fragment(await signIn(client(server, "implicit"), "azure")).get("access_token") as string);
    expect(user.identities[0]?.identity_data).toMatchObject({ full_name: "Az Ure", custom_claims: { email: address, tid: "tenant" } });
    oidc.setClaims({ sub: "azure-2", email: email("edov"), xms_edov: false });
    const refused = await signIn(client(server, "implicit"), "azure");
    expect(query(refused).get("error_code")).toBe("provider_email_needs_verification");
  });

  it("signs in with Twitter's OAuth 1.0a: every request signed (checked by the provider), the state carried on the callback URL", async () => {
    const address = email("tweety");
    twitter.setUser({ id: "9001", screenName: "tweety", name: "Tweety Bird", email: address });
    const response = await server.request(`/authorize?provider=twitter&redirect_to=${encodeURIComponent(APP)}`, { redirect: "manual" });
    expect(response.status).toBe(302);
    const toTwitter = response.headers.get("location") as string;
    expect(toTwitter.startsWith(`${twitter.url}/oauth/authenticate?oauth_token=rt`)).toBe(true);
    const atCallback = (await fetch(toTwitter, { redirect: "manual" })).headers.get("location") as string;
    expect(query(atCallback).get("state")).toMatch(/^[0-9a-f-]{36}$/);
    const location = await browse(atCallback, SITE);
    const values = fragment(location);
    expect(values.get("provider_token")).toMatch(/^at/);
    expect(values.has("provider_refresh_token")).toBe(false);
    const user = await getUser(values.get("access_token") as string);
    expect(user.email).toBe(address);
    expect(user.identities[0]?.identity_data).toMatchObject({
      sub: "9001",
      user_name: "tweety",
      preferred_username: "tweety",
      full_name: "Tweety Bird",
      iss: `${twitter.url}/1.1/account/verify_credentials.json`,
    });
    expect(twitter.badSignatures).toBe(0);
  });

  it("answers an unexpected failure without its text and keeps nothing of the sign-in", async () => {
    // PostgreSQL's jsonb cannot hold NUL: the write fails in the driver, inside the transaction.
    const address = email("nul");
    standIn.setUser(githubUser(address, true, { name: "bad\u0000name" }));
    const location = await signIn(client(server, "implicit"), "github");
    expect(Object.fromEntries(query(location))).toEqual({
      error: "server_error",
      error_code: "unexpected_failure",
      error_description: "Unexpected failure, please check server logs for more information",
    });
    const { rows } = await database.db.query(sql`SELECT 1 FROM ${server.table("users")} WHERE email = ${address}`);
    expect(rows).toHaveLength(0);
  });

  it("deletes flows abandoned for a day as new ones start", async () => {
    const fresh = await startTestServer(database.db, {
      AUTH_EXTERNAL_GITHUB_ENABLED: "true",
      AUTH_EXTERNAL_GITHUB_CLIENT_ID: standIn.clientId,
      AUTH_EXTERNAL_GITHUB_SECRET: standIn.secret,
      AUTH_EXTERNAL_GITHUB_REDIRECT_URI: callbackUrl(),
      AUTH_EXTERNAL_GITHUB_URL: standIn.url,
    });
    try {
      const old = crypto.randomUUID();
      await database.db.query(
        sql`INSERT INTO ${server.table("flow_state")} (id, provider_type, authentication_method, created_at) VALUES (${old}, 'github', 'oauth', now() - interval '25 hours')`,
      );
      await database.db.query(
        sql`INSERT INTO ${server.table("oauth_client_states")} (id, provider_type, code_verifier, created_at) VALUES (${old}, 'x', 'v', now() - interval '25 hours')`,
      );
      const recent = (await fresh.request("/authorize?provider=github", { redirect: "manual" })).headers.get("location") as string;
      const count = async (table: string, id: string) =>
        (await database.db.query(sql`SELECT 1 FROM ${server.table(table)} WHERE id = ${id}`)).rows.length;
      expect(await count("flow_state", old)).toBe(0);
      expect(await count("oauth_client_states", old)).toBe(0);
      expect(await count("flow_state", query(recent).get("state") as string)).toBe(1);
    } finally {
      await fresh.close();
    }
  });

  it("signs in without an address only with EMAIL_OPTIONAL (kept in the flow from /authorize)", async () => {
    const github = (extra: Record<string, string>) =>
      startTestServer(database.db, {
        AUTH_EXTERNAL_GITHUB_ENABLED: "true",
        AUTH_EXTERNAL_GITHUB_CLIENT_ID: standIn.clientId,
        AUTH_EXTERNAL_GITHUB_SECRET: standIn.secret,
        AUTH_EXTERNAL_GITHUB_REDIRECT_URI: callbackUrl(),
        AUTH_EXTERNAL_GITHUB_URL: standIn.url,
        AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
        ...extra,
      });
    // The flow's settings are kept in its flow_state row, so this server's callback (the shared
    // redirect URI) completes flows started by the other ones.
    const start = async (other: TestServer) =>
      browse(
        (
          await browserClient(other.url, "implicit").signInWithOAuth({
            provider: "github",
            options: { skipBrowserRedirect: true, redirectTo: APP },
          })
        ).data.url as string,
        SITE,
      );
    const optional = await github({ AUTH_EXTERNAL_GITHUB_EMAIL_OPTIONAL: "true" });
    const strict = await github({});
    try {
      standIn.setUser(githubUser("", true, { emails: [] }));
      expect(query(await start(strict)).get("error_description")).toBe("Error getting user email from external provider");
      const signedIn = await getUser(fragment(await start(optional)).get("access_token") as string);
      expect(signedIn.email).toBe("");
      expect(signedIn.identities.map((i) => i.provider)).toEqual(["github"]);
    } finally {
      await optional.close();
      await strict.close();
    }
  });

  it("accepts an invite through a provider that knows the invited address", async () => {
    const address = email("invited");
    const { data: invited, error } = await admin.inviteUserByEmail(address);
    expect(error).toBeNull();
    const token = server.outbox.find((m) => m.to === address && m.kind === "invite")?.tokenHash as string;
    expect(token).toBeTruthy();
    const unknown = await server.request("/authorize?provider=github&invite_token=nope");
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ error_code: "user_not_found", msg: "User identified by token not found" });
    // A provider account with another address cannot take the invite.
    standIn.setUser(githubUser(email("not-invited")));
    const start = async () => {
      const response = await server.request(`/authorize?provider=github&invite_token=${token}&redirect_to=${encodeURIComponent(APP)}`, {
        redirect: "manual",
      });
      return browse(response.headers.get("location") as string, SITE);
    };
    expect(query(await start()).get("error_description")).toBe("Invited email does not match emails from external provider");
    standIn.setUser(githubUser(address, false));
    const user = await getUser(fragment(await start()).get("access_token") as string);
    expect(user.id).toBe(invited.user?.id);
    expect(user.identities.map((i) => i.provider)).toEqual(["github"]);
    const row = await userRow(user.id);
    expect(row.email_confirmed_at).not.toBeNull();
    expect(row.raw_app_meta_data).toEqual({ provider: "github", providers: ["github"] });
  });

  it("links and unlinks identities by hand, and upgrades an anonymous user", async () => {
    const { address, password } = await createConfirmedUser(admin, "manual");
    const sent = () => server.outbox.filter((m) => m.to === address).map((m) => [m.kind, m.provider]);
    const browser = client(server, "implicit");
    await browser.signInWithPassword({ email: address, password });
    standIn.setUser(githubUser(email("second-address")));
    const { data, error } = await browser.linkIdentity({ provider: "gitlab", options: { skipBrowserRedirect: true, redirectTo: APP } });
    expect(error).toBeNull();
    const linkedAt = await browse(data.url as string, SITE, callbackUrl());
    expect(fragment(linkedAt).get("access_token")).toBeTruthy();
    const { data: identities } = await browser.getUserIdentities();
    expect(identities?.identities.map((i) => i.provider).sort()).toEqual(["email", "gitlab"]);
    expect(sent()).toEqual([["identity_linked_notification", "gitlab"]]);
    // The same identity again: already linked.
    const again = await browse(
      (await browser.linkIdentity({ provider: "gitlab", options: { skipBrowserRedirect: true, redirectTo: APP } })).data.url as string,
      SITE,
      callbackUrl(),
    );
    expect(query(again).get("error_code")).toBe("identity_already_exists");
    expect(query(again).get("error_description")).toBe("Identity is already linked");
    // Another user's provider identity cannot be linked here.
    const owner = githubUser(email("owner"));
    standIn.setUser(owner);
    await signIn(client(server, "implicit"), "github");
    const taken = await browse(
      (await browser.linkIdentity({ provider: "github", options: { skipBrowserRedirect: true, redirectTo: APP } })).data.url as string,
      SITE,
      callbackUrl(),
    );
    // GoTrue's oauthErrorMap has no entry for 422: `error` is server_error.
    expect(Object.fromEntries(query(taken))).toEqual({
      error: "server_error",
      error_code: "identity_already_exists",
      error_description: "Identity is already linked to another user",
    });
    const gitlab = identities?.identities.find((i) => i.provider === "gitlab");
    expect((await browser.unlinkIdentity(gitlab as never)).error).toBeNull();
    expect(sent()).toEqual([
      ["identity_linked_notification", "gitlab"],
      ["identity_unlinked_notification", "gitlab"],
    ]);
    const email_ = identities?.identities.find((i) => i.provider === "email");
    const { error: last } = await browser.unlinkIdentity(email_ as never);
    expect(last?.message).toBe("User must have at least 1 identity after unlinking");

    const anonymous = client(server, "implicit");
    await anonymous.signInAnonymously();
    const upgraded = email("upgraded");
    standIn.setUser(githubUser(upgraded));
    const { data: link } = await anonymous.linkIdentity({ provider: "github", options: { skipBrowserRedirect: true, redirectTo: APP } });
    const at = await browse(link.url as string, SITE, callbackUrl());
    const user = await getUser(fragment(at).get("access_token") as string);
    expect(user.email).toBe(upgraded);
    expect((await userRow(user.id)).is_anonymous).toBe(false);
  });

  it("answers manual_linking_disabled when manual linking is off, and refuses malformed identity ids", async () => {
    const off = await startTestServer(database.db, {});
    try {
      const response = await off.request("/user/identities/authorize?provider=github");
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error_code: "manual_linking_disabled", msg: "Manual linking is disabled" });
    } finally {
      await off.close();
    }
    const { address, password } = await createConfirmedUser(admin, "malformed");
    const browser = client(server, "implicit");
    const { data } = await browser.signInWithPassword({ email: address, password });
    const response = await server.request("/user/identities/not-a-uuid", {
      method: "DELETE",
      headers: { authorization: `Bearer ${data.session?.access_token}` },
    });
    expect(response.status).toBe(404);
    expect(await response.json()).toMatchObject({ error_code: "validation_failed", msg: "identity_id must be an UUID" });
  });
  describe("grant_type=id_token", () => {
    const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
    const grant = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
      server.request("/token?grant_type=id_token", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
    const refusal = async (body: Record<string, unknown>) => {
      const response = await grant(body);
      expect(response.status).toBe(400);
      return response.json();
    };

    it("signs in with a Google ID token through signInWithIdToken, comparing the nonce's SHA-256", async () => {
      const address = email("native");
      const token = await oidc.idToken({
        sub: "native-1",
        aud: standIn.clientId,
        email: address,
        email_verified: true,
        nonce: sha256("raw-nonce"),
      });
      const { data, error } = await client(server, "implicit").signInWithIdToken({ provider: "google", token, nonce: "raw-nonce" });
      expect(error).toBeNull();
      expect(data.user?.email).toBe(address);
      expect(data.user?.identities?.[0]).toMatchObject({ provider: "google", identity_data: { sub: "native-1", email_verified: true } });
      expect(data.session?.access_token).toBeTruthy();
      expect(data.session).not.toHaveProperty("provider_token");
      // The same subject again is the same account.
      const again = await client(server, "implicit").signInWithIdToken({
        provider: "google",
        token: await oidc.idToken({ sub: "native-1", aud: standIn.clientId, email: address, email_verified: true }),
      });
      expect(again.data.user?.id).toBe(data.user?.id);
    });

    it("refuses wrong audiences, issuers, signatures, expiry, nonces and access-token hashes as GoTrue does", async () => {
      const good = { sub: "strict-1", aud: standIn.clientId, email: email("strict"), email_verified: true };
      expect(await refusal({ provider: "google", id_token: await oidc.idToken({ ...good, aud: "someone-else" }) })).toEqual({
        error: "invalid request",
        error_description: "Unacceptable audience in id_token: [someone-else]",
      });
      const bad = { error: "invalid request", error_description: "Bad ID token" };
      expect(await refusal({ provider: "google", id_token: await oidc.idToken({ ...good, iss: "https://accounts.example" }) })).toEqual(
        bad,
      );
      expect(
        await refusal({ provider: "google", id_token: await oidc.idToken({ ...good, exp: Math.floor(Date.now() / 1000) - 60 }) }),
      ).toEqual(bad);
      const token = await oidc.idToken(good);
      const [header, payload] = token.split(".");
      const forged = `${header}.${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload as string, "base64url").toString()), sub: "someone" })).toString("base64url")}.${token.split(".")[2]}`;
      expect(await refusal({ provider: "google", id_token: forged })).toEqual(bad);
      const stranger = await startOidcProvider();
      try {
        expect(await refusal({ provider: "google", id_token: await stranger.idToken({ ...good, iss: oidc.issuer }) })).toEqual(bad);
      } finally {
        await stranger.close();
      }
      expect(
        await refusal({
          provider: "google",
          id_token: await oidc.idToken({ ...good, at_hash: "AAAAAAAAAAAAAAAAAAAAAA" }),
          access_token: "an-access-token",
        }),
      ).toEqual(bad);
      expect(await refusal({ provider: "google", id_token: await oidc.idToken({ ...good, nonce: sha256("n") }) })).toEqual({
        error: "invalid request",
        error_description: "Passed nonce and nonce in id_token should either both exist or not.",
      });
      // A raw nonce in the token (what some SDKs do) does not match the hash of the request's.
      expect(await refusal({ provider: "google", id_token: await oidc.idToken({ ...good, nonce: "n" }), nonce: "n" })).toEqual({
        error: "invalid nonce",
        error_description: "Nonces mismatch",
      });
      expect(await refusal({ provider: "google" })).toEqual({ error: "invalid request", error_description: "id_token required" });
      expect(await refusal({ id_token: "x" })).toEqual({
        error: "invalid request",
        error_description: "provider or client_id and issuer required",
      });
    });

    it("answers provider_disabled for a provider that is not enabled, and refuses issuers not allowed", async () => {
      let response = await grant({ provider: "facebook", id_token: "x.y.z" });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({
        error_code: "provider_disabled",
        msg: 'Provider (issuer "https://www.facebook.com") is not enabled',
      });
      response = await grant({ issuer: "https://issuer.example", client_id: "c", id_token: "x.y.z" });
      expect(response.status).toBe(400);
      expect(await response.json()).toMatchObject({ error_code: "validation_failed", msg: 'Custom OIDC provider "" not allowed' });
    });

    it("links an identity from an ID token to the signed-in user (link_identity), and needs a bearer to", async () => {
      const { address, password } = await createConfirmedUser(admin, "idlink");
      const browser = client(server, "implicit");
      await browser.signInWithPassword({ email: address, password });
      const token = await oidc.idToken({
        sub: "linked-by-token",
        aud: standIn.clientId,
        email: email("apple-relay"),
        email_verified: true,
      });
      const { error } = await browser.linkIdentity({ provider: "apple", token });
      expect(error).toBeNull();
      const { data } = await browser.getUserIdentities();
      expect(data?.identities.map((i) => i.provider).sort()).toEqual(["apple", "email"]);
      expect(await refusal({ provider: "apple", id_token: token, link_identity: true })).toEqual({
        error: "invalid request",
        error_description: "Linking requires a valid user access token in Authorization",
      });
    });
  });
});

describe("provider answers", () => {
  it("are read up to 1 MB, refused beyond without buffering the rest", async () => {
    const { boundedText, ProviderCallError } = await import("../src/domain/external/oauth-client.js");
    expect(await boundedText(new Response("x".repeat(1_048_576)))).toHaveLength(1_048_576);
    // A declared length over the limit is refused before reading.
    const declared = new Response("{}", { headers: { "content-length": "2000000" } });
    await expect(boundedText(declared)).rejects.toBeInstanceOf(ProviderCallError);
    // A streamed body is cut once it passes the limit.
    let pulled = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled += 1;
        controller.enqueue(new Uint8Array(65_536));
      },
    });
    await expect(boundedText(new Response(endless))).rejects.toThrow("larger than 1048576 bytes");
    expect(pulled).toBeLessThan(40);
  });
});
