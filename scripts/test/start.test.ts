/**
 * The first run, as a newcomer does it: the real `npm start` on a fresh data directory, then
 * sign-up and sign-in with supabase-js (auth-js) through the gateway, the MetaGame project in
 * GraphQL with the session token (a player at once: me, createQuest, createQuestCompletion, read
 * back through relationships, refused what its permissions forbid) and with the service_role key
 * (as admin), the catalog through the gateway; then a restart that keeps the keys, the users and
 * their data.
 */
import { existsSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { openScratchDatabase, type ScratchDatabase, sql } from "@platform/core";
import { createClient } from "@supabase/supabase-js";
import { Secret, TOTP } from "otpauth";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import ws from "ws";
import { browse, type ProviderStandIn, startProviderStandIn } from "../../services/auth/test/support/oauth-providers.js";
import { freePorts, type Platform, portEnv, startPlatform } from "./support/platform.js";

const dir = mkdtempSync(join(tmpdir(), "platform-start-"));
const dataDir = join(dir, "data");
let env: Record<string, string>;
let platform: Platform | undefined;
/** A GitHub stand-in: sign-in with a provider is configured as a deployment would configure it. */
let github: ProviderStandIn;

beforeAll(async () => {
  github = await startProviderStandIn();
  const ports = await freePorts();
  env = {
    PLATFORM_DATA_DIR: dataDir,
    ...portEnv(ports),
    AUTH_EXTERNAL_GITHUB_ENABLED: "true",
    AUTH_EXTERNAL_GITHUB_CLIENT_ID: github.clientId,
    AUTH_EXTERNAL_GITHUB_SECRET: github.secret,
    AUTH_EXTERNAL_GITHUB_REDIRECT_URI: `http://localhost:${ports.gateway}/auth/v1/callback`,
    AUTH_EXTERNAL_GITHUB_URL: github.url,
  };
});

afterAll(async () => {
  await platform?.stop();
  await github?.close();
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
    expect(first.notes.join("\n")).toMatch(/sign-up confirmations, .* caught here, not sent: http:\/\/127\.0\.0\.1:\d+\/_mail/);
    expect(statSync(join(dataDir, "secrets.json")).mode & 0o777).toBe(0o600);
    const messages = platform.lines.map((line) => line.msg);
    expect(messages).toContain("creating the embedded PostgreSQL database for auth and graphql (first start only, a few seconds)");
    // Probes are polled during start-up; they stay out of the info log.
    expect(platform.lines.filter((line) => line.msg === "request" && /health/.test(String(line.url)))).toEqual([]);
    console.info(`fresh start: healthy after ${first.seconds} s`);
  });

  it("signs a user up with supabase-js through the gateway, confirmed by the link in the caught mail", async () => {
    const gateway = first.urls.gateway as string;
    const supabase = client(gateway, first.keys["anon key"] as string);
    const signUp = await supabase.auth.signUp(user);
    expect(signUp.error).toBeNull();
    // Not signed in yet: the confirmation mail is waiting at /_mail.
    expect(signUp.data.session).toBeNull();
    const mailbox = /http:\/\/127\.0\.0\.1:\d+\/_mail/.exec(first.notes.join("\n"))?.[0] as string;
    const list = await (await fetch(mailbox)).text();
    expect(list).toContain(user.email);
    const caught = (await (await fetch(`${mailbox}.json?to=${user.email}`)).json()) as Array<{ subject: string; link: string }>;
    expect(caught.map((mail) => mail.subject)).toEqual(["Confirm Your Signup"]);
    const link = caught[0]?.link as string;
    expect(link, link).toMatch(new RegExp(`^${gateway}/auth/v1/verify\\?token=`));
    const opened = await fetch(link, { redirect: "manual" });
    expect(opened.status).toBe(303);
    expect(opened.headers.get("location")).toMatch(/^http:\/\/localhost:3000\/?#access_token=.*type=signup/);
    const signIn = await supabase.auth.signInWithPassword(user);
    expect(signIn.error).toBeNull();
    const { data } = await supabase.auth.getUser();
    expect(data.user?.email).toBe(user.email);
    const wrong = await supabase.auth.signInWithPassword({ ...user, password: "wrong password" });
    expect(wrong.error?.message).toBe("Invalid login credentials");
  });

  it("signs in with GitHub through the gateway: supabase-js's PKCE flow, the callback at the gateway's /auth/v1", async () => {
    const gateway = first.urls.gateway as string;
    const supabase = createClient(gateway, first.keys["anon key"] as string, {
      auth: { persistSession: false, autoRefreshToken: false, flowType: "pkce" },
      realtime: { transport: ws as never },
    });
    const address = "octocat@example.com";
    github.setUser({
      id: 583231,
      login: "octocat",
      name: "The Octocat",
      email: address,
      emails: [{ email: address, verified: true, primary: true }],
    });
    const { data, error } = await supabase.auth.signInWithOAuth({ provider: "github", options: { skipBrowserRedirect: true } });
    expect(error).toBeNull();
    expect(data.url).toMatch(new RegExp(`^${gateway}/auth/v1/authorize\\?provider=github`));
    // The browser: the gateway's /authorize, GitHub, the gateway's /callback, then the site with ?code=.
    const location = await browse(data.url as string, "http://localhost:3000");
    const code = new URL(location).searchParams.get("code") as string;
    expect(code).toBeTruthy();
    const exchanged = await supabase.auth.exchangeCodeForSession(code);
    expect(exchanged.error).toBeNull();
    expect(exchanged.data.session?.provider_token).toMatch(/^gho_/);
    expect(exchanged.data.user).toMatchObject({ email: address, app_metadata: { provider: "github" } });
    expect((await supabase.auth.getUser()).data.user?.user_metadata.user_name).toBe("octocat");
  });

  it("protects an account with a TOTP factor through the gateway: enrol, verify, aal2, and aal2 asked for at the next sign-in", async () => {
    const gateway = first.urls.gateway as string;
    const admin = client(gateway, first.keys["service_role key"] as string);
    const account = { email: "mfa-user@example.com", password: "mfa-password-1" };
    expect((await admin.auth.admin.createUser({ ...account, email_confirm: true })).error).toBeNull();
    const supabase = client(gateway, first.keys["anon key"] as string);
    expect((await supabase.auth.signInWithPassword(account)).error).toBeNull();
    const { data: factor, error } = await supabase.auth.mfa.enroll({ factorType: "totp", friendlyName: "phone" });
    expect(error).toBeNull();
    const code = () => new TOTP({ secret: Secret.fromBase32(factor?.totp.secret as string) }).generate();
    const verified = await supabase.auth.mfa.challengeAndVerify({ factorId: factor?.id as string, code: code() });
    expect(verified.error).toBeNull();
    expect((await supabase.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: "aal2", nextLevel: "aal2" });
    const again = client(gateway, first.keys["anon key"] as string);
    expect((await again.auth.signInWithPassword(account)).error).toBeNull();
    expect((await again.auth.mfa.getAuthenticatorAssuranceLevel()).data).toMatchObject({ currentLevel: "aal1", nextLevel: "aal2" });
  });

  it("makes the signed-up user a MetaGame player at once: me, a quest and a completion, read back through relationships", async () => {
    const gateway = first.urls.gateway as string;
    const anonKey = first.keys["anon key"] as string;
    const serviceKey = first.keys["service_role key"] as string;
    const supabase = client(gateway, anonKey);
    const { data } = await supabase.auth.signInWithPassword(user);
    const session = data.session;
    if (!session) throw new Error("no session");
    const asUser = { apikey: anonKey, authorization: `Bearer ${session.access_token}` };
    const endpoint = `${gateway}/graphql/v1`;

    // The auth user is a player from the first request on: the webhook created the player.
    const me = await graphql(endpoint, asUser, "{ me { id player { id profile { playerId } } } }");
    expect(me).toEqual({
      data: { me: [{ id: session.user.id, player: { id: session.user.id, profile: { playerId: session.user.id } } }] },
    });

    // The demo world is there to play in.
    const world = await graphql(
      endpoint,
      asUser,
      `{
      skill(where: {name: {_eq: "TypeScript"}}) { id }
      guild(where: {guildname: {_eq: "metafam"}}) { id }
      player_aggregate { aggregate { count } }
    }`,
    );
    const skill = (world.data?.skill as Array<{ id: string }> | undefined)?.[0]?.id;
    const guild = (world.data?.guild as Array<{ id: string }> | undefined)?.[0]?.id;
    expect(skill).toBeTruthy();
    expect((world.data?.player_aggregate as { aggregate: { count: number } } | undefined)?.aggregate.count).toBeGreaterThanOrEqual(51);

    const created = await graphql(
      endpoint,
      asUser,
      `mutation ($quest: CreateQuestInput!) { createQuest(quest: $quest) { success error quest_id quest { title createdByPlayerId } } }`,
      { quest: { guildId: guild, title: "Write the platform a guide", roleIds: ["WRITER"], skillIds: [skill], repetition: "PERSONAL" } },
    );
    const createQuest = created.data?.createQuest as { success: boolean; quest_id: string; quest: unknown };
    expect(created.errors).toBeUndefined();
    expect(createQuest).toMatchObject({
      success: true,
      error: null,
      quest: { title: "Write the platform a guide", createdByPlayerId: session.user.id },
    });

    const completion = await graphql(
      endpoint,
      asUser,
      `mutation ($c: CreateQuestCompletionInput!) { createQuestCompletion(questCompletion: $c) { success error quest_completion { status submissionText } } }`,
      { c: { questId: createQuest.quest_id, submissionText: "Done: see the README" } },
    );
    expect(completion).toEqual({
      data: {
        createQuestCompletion: {
          success: true,
          error: null,
          quest_completion: { status: "PENDING", submissionText: "Done: see the README" },
        },
      },
    });
    // A second one for a PERSONAL quest is refused by the rule, as success: false.
    const again = await graphql(
      endpoint,
      asUser,
      `mutation ($c: CreateQuestCompletionInput!) { createQuestCompletion(questCompletion: $c) { success error } }`,
      { c: { questId: createQuest.quest_id, submissionText: "again" } },
    );
    expect(again).toEqual({
      data: { createQuestCompletion: { success: false, error: "You already submitted a completion this personal/unique quest" } },
    });

    const readBack = await graphql(
      endpoint,
      asUser,
      `query ($id: uuid!) { quest_by_pk(id: $id) {
        guild { guildname } player { id } quest_roles { role PlayerRole { label } } quest_skills { skill { name } }
        quest_completions { player { id } status }
      } }`,
      { id: createQuest.quest_id },
    );
    expect(readBack).toEqual({
      data: {
        quest_by_pk: {
          guild: { guildname: "metafam" },
          player: { id: session.user.id },
          quest_roles: [{ role: "WRITER", PlayerRole: { label: "Writer" } }],
          quest_skills: [{ skill: { name: "TypeScript" } }],
          quest_completions: [{ player: { id: session.user.id }, status: "PENDING" }],
        },
      },
    });

    // What the permissions forbid: inserting quests directly (backend only), the enum tables,
    // and other players' profiles (the filter leaves nothing to update).
    const direct = await graphql(endpoint, asUser, 'mutation { insert_quest_one(object: {title: "x"}) { id } }');
    expect(direct.errors?.[0]?.extensions?.code).toBe("validation-failed");
    const hidden = await graphql(endpoint, asUser, "{ QuestStatus { status } }");
    expect(hidden.errors?.[0]?.extensions?.code).toBe("validation-failed");
    const others = await graphql(
      endpoint,
      asUser,
      `mutation ($me: uuid!) { update_profile(where: {playerId: {_neq: $me}}, _set: {name: "mine now"}) { affected_rows } }`,
      { me: session.user.id },
    );
    expect(others).toEqual({ data: { update_profile: { affected_rows: 0 } } });
    // Without a session the gateway's anon key is role public: the world is readable, `me` is not there.
    const asPublic = await graphql(endpoint, { apikey: anonKey }, "{ me { id } }");
    expect(asPublic.errors?.[0]?.extensions?.code).toBe("validation-failed");
    // The service_role key is admin: the admin-only root fields.
    const asAdmin = await graphql(`${gateway}/v1/graphql`, { authorization: `Bearer ${serviceKey}` }, "{ QuestStatus { status } }");
    expect(asAdmin).toEqual({ data: { QuestStatus: [{ status: "OPEN" }, { status: "CLOSED" }] } });
    // The engine straight, without the gateway, trusts the same token.
    const direct2 = await graphql(
      `${first.urls["graphql (direct)"]}`,
      { authorization: `Bearer ${session.access_token}` },
      "{ me { id } }",
    );
    expect(direct2).toEqual({ data: { me: [{ id: session.user.id }] } });
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
      "{ me { player { quests { title } } } }",
    );
    expect(rows).toEqual({ data: { me: [{ player: { quests: [{ title: "Write the platform a guide" }] } }] } });
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

  it("runs auth and graphql on it and loads the demo catalog and MetaGame's demo world into it", async () => {
    const url = scratch.url as string;
    onPostgres = await startPlatform({
      PLATFORM_DATA_DIR: join(pgDir, "data"),
      DATABASE_URL: url,
      HASURA_GRAPHQL_DATABASE_URL: url,
      ENDPOINT_CATALOG_DB: url,
      ...portEnv(await freePorts()),
    });
    const messages = onPostgres.lines.map((line) => line.msg);
    expect(messages).toContain("no catalog yet: generated the demo catalog");
    expect(messages).toContain("no players yet: loaded MetaGame's demo world (guilds, 50 players, quests and completions)");
    const players = await scratch.db.query<{ n: string }>(sql`SELECT count(*) AS n FROM public.player`);
    expect(Number(players.rows[0]?.n)).toBe(50);
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
