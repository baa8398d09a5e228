/**
 * Sign-in with the group-b external providers (linkedin_oidc, slack, slack_oidc, snapchat,
 * spotify, twitch, vercel_marketplace, workos, x, zoom), each a round trip as @supabase/auth-js
 * and a browser drive it: signInWithOAuth, GET /authorize, the provider (a local stand-in serving
 * each provider's real paths and answer shapes at its EXTERNAL_<X>_URL; the OpenID ones' ID
 * tokens signed by an oauth2-mock-server provider named by EXTERNAL_<X>_TEST_ISSUER), GET
 * /callback, then the session and the identity. Checked per provider: the authorize endpoint
 * and scopes, the identity_data / user_metadata mapping (GoTrue's Claims keys), the address and
 * whether it confirmed the account (AUTH_MAILER_AUTOCONFIRM=false), and each provider's quirks.
 */
import { sql } from "@platform/core";
import type { Provider } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browse, browserClient, fragment, type OidcProvider, query, startOidcProvider } from "./support/oauth-providers.js";
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
import {
  type Answers,
  GROUP_B_PROVIDERS,
  type GroupBProvider,
  SNAPCHAT_QUERY,
  type StandInB,
  startStandInB,
} from "./support/stand-in-b.js";

const SITE = "http://localhost:3000";
const APP = "http://localhost:3000/welcome";

const client = (server: TestServer, flowType: "implicit" | "pkce") => browserClient(server.url, flowType);

const unique = (label: string) => `${label}${crypto.randomUUID().slice(0, 8)}`;

interface SignedInUser {
  id: string;
  email: string;
  identities: { id: string; provider: string; identity_data: Record<string, unknown> }[];
  user_metadata: Record<string, unknown>;
  app_metadata: Record<string, unknown>;
}

describe.each(backends)("group b external providers on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let standIn: StandInB;
  let oidc: OidcProvider;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    oidc = await startOidcProvider();
    standIn = await startStandInB(oidc);
    const port = await freePort();
    const env: Record<string, string> = {
      AUTH_MAILER_AUTOCONFIRM: "false",
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
    };
    for (const provider of GROUP_B_PROVIDERS) {
      const key = `AUTH_EXTERNAL_${provider.toUpperCase()}`;
      env[`${key}_ENABLED`] = "true";
      env[`${key}_CLIENT_ID`] = standIn.clientId;
      env[`${key}_SECRET`] = standIn.secret;
      env[`${key}_REDIRECT_URI`] = `http://127.0.0.1:${port}/callback`;
      env[`${key}_URL`] = standIn.base(provider);
    }
    env.AUTH_EXTERNAL_LINKEDIN_OIDC_TEST_ISSUER = oidc.issuer;
    env.AUTH_EXTERNAL_VERCEL_MARKETPLACE_TEST_ISSUER = oidc.issuer;
    server = await startTestServer(database.db, env, { port });
  });
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    await oidc?.close();
    await database?.dispose();
  });

  const callbackUrl = () => `${server.url}/callback`;

  /** signInWithOAuth, then the browser through the provider and back to the app: the final Location. */
  const signIn = async (
    provider: GroupBProvider,
    answers: Answers,
    options: { scopes?: string; queryParams?: Record<string, string> } = {},
    browser = client(server, "implicit"),
  ) => {
    standIn.setAnswers(provider, answers);
    const { data, error } = await browser.signInWithOAuth({
      provider: provider as Provider,
      options: { skipBrowserRedirect: true, redirectTo: APP, ...options },
    });
    if (error) throw error;
    return browse(data.url as string, SITE, callbackUrl());
  };
  const getUser = async (accessToken: string) =>
    readJson<SignedInUser>(await server.request("/user", { headers: { authorization: `Bearer ${accessToken}` } }));
  /** The signed-in user of an implicit flow's final Location. */
  const signedIn = async (location: string) => {
    expect(location.startsWith(`${APP}#`)).toBe(true);
    const values = fragment(location);
    expect(values.get("access_token")).toBeTruthy();
    return { user: await getUser(values.get("access_token") as string), values };
  };
  const confirmedAt = async (address: string) =>
    (
      await one<{ email_confirmed_at: string | null }>(
        database.db,
        sql`SELECT email_confirmed_at FROM ${server.table("users")} WHERE email = ${address}`,
      )
    ).email_confirmed_at;
  const identityData = async (provider: string, sub: string) =>
    (
      await one<{ identity_data: Record<string, unknown> }>(
        database.db,
        sql`SELECT identity_data FROM ${server.table("identities")} WHERE provider = ${provider} AND provider_id = ${sub}`,
      )
    ).identity_data;
  const lastAuthorize = (provider: GroupBProvider) => standIn.authorizeCalls.filter((c) => c.provider === provider).at(-1);
  const lastToken = (provider: GroupBProvider) => standIn.tokenCalls.filter((c) => c.provider === provider).at(-1);
  const lastUserCall = (provider: GroupBProvider) => standIn.userCalls.filter((c) => c.provider === provider).at(-1);
  /** What the authorize request the provider received said. */
  const expectAuthorize = (provider: GroupBProvider, path: string, scope: string | null) => {
    const call = lastAuthorize(provider);
    expect(call?.path).toBe(path);
    expect(call?.params.get("scope")).toBe(scope);
    expect(call?.params.get("client_id")).toBe(standIn.clientId);
    expect(call?.params.get("redirect_uri")).toBe(callbackUrl());
    expect(call?.params.get("response_type")).toBe("code");
    if (provider !== "x") expect(call?.params.has("code_challenge")).toBe(false);
  };
  const expectRefusedUnverified = (location: string, provider: GroupBProvider) =>
    expect(Object.fromEntries(query(location))).toEqual({
      error: "access_denied",
      error_code: "provider_email_needs_verification",
      error_description: `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`,
    });

  it("linkedin_oidc: api.linkedin.com's paths, openid email profile, the user from a verified ID token", async () => {
    const address = email("linkedin");
    const sub = unique("li");
    const location = await signIn("linkedin_oidc", {
      idToken: {
        sub,
        email: address,
        email_verified: "true",
        given_name: "Lin",
        family_name: "Ked",
        locale: "en_US",
        picture: "https://media.licdn.example/p.jpg",
      },
    });
    expectAuthorize("linkedin_oidc", "/oauth/v2/authorization", "openid email profile");
    expect(lastToken("linkedin_oidc")?.path).toBe("/oauth/v2/accessToken");
    const { user, values } = await signedIn(location);
    expect(values.get("provider_token")).toMatch(/^linkedin_oidc-/);
    expect(user.email).toBe(address);
    expect(user.identities.map((i) => i.provider)).toEqual(["linkedin_oidc"]);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: oidc.issuer,
      sub,
      name: "Lin Ked",
      given_name: "Lin",
      family_name: "Ked",
      locale: "en_US",
      picture: "https://media.licdn.example/p.jpg",
      provider_id: sub,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(user.user_metadata).toMatchObject({ name: "Lin Ked", picture: "https://media.licdn.example/p.jpg", email_verified: true });
    expect(user.app_metadata).toMatchObject({ provider: "linkedin_oidc", providers: ["linkedin_oidc"] });
    expect(await confirmedAt(address)).not.toBeNull();

    // email_verified "false": the account is not confirmed and the sign-in refused.
    const unverified = email("linkedin-unverified");
    expectRefusedUnverified(await signIn("linkedin_oidc", { idToken: { email: unverified, email_verified: "false" } }), "linkedin_oidc");
    expect(await confirmedAt(unverified)).toBeNull();
    // An ID token for another client, and no ID token at all, give no user.
    const stranger = await signIn("linkedin_oidc", { idToken: { email: email("aud"), email_verified: "true", aud: "someoneelse" } });
    expect(query(stranger).get("error_description")).toBe("Error getting user profile from external provider");
    const none = await signIn("linkedin_oidc", { idToken: null });
    expect(query(none).get("error_code")).toBe("unexpected_failure");
    expect(query(none).get("error_description")).toMatch(/^Error getting user (profile|email) from external provider$/);
  });

  it("vercel_marketplace: no default scopes, the user from the ID token, global_user_id as subject, always verified", async () => {
    const address = email("vercel");
    const globalId = unique("gu");
    const location = await signIn("vercel_marketplace", {
      idToken: {
        sub: "account:acc1:user:u1",
        global_user_id: globalId,
        user_email: address,
        user_name: "Ver Cel",
        user_avatar_url: "https://vercel.example/avatar.png",
        user_role: "ADMIN",
      },
    });
    expectAuthorize("vercel_marketplace", "/oauth/v2/authorization", null);
    expect(lastToken("vercel_marketplace")?.path).toBe("/oauth/v2/accessToken");
    const { user } = await signedIn(location);
    expect(user.email).toBe(address);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: oidc.issuer,
      sub: `global_user_id:${globalId}`,
      provider_id: `global_user_id:${globalId}`,
      name: "Ver Cel",
      picture: "https://vercel.example/avatar.png",
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(address)).not.toBeNull();

    // Without global_user_id the token's subject; `?scopes=` adds scopes to none.
    const second = email("vercel-sub");
    const again = await signIn("vercel_marketplace", { idToken: { sub: unique("acct"), user_email: second } }, { scopes: "read-write" });
    expect(lastAuthorize("vercel_marketplace")?.params.get("scope")).toBe("read-write");
    expect((await signedIn(again)).user.identities[0]?.identity_data.sub).toMatch(/^acct/);
    // No ID token in the token answer: refused.
    const none = await signIn("vercel_marketplace", { idToken: null });
    expect(query(none).get("error_description")).toBe("Error getting user profile from external provider");
  });

  it("slack (legacy): /oauth/authorize and /api/oauth.access, the user from openid.connect.userInfo, the address taken as verified", async () => {
    const address = email("slack");
    const id = unique("U");
    const location = await signIn("slack", {
      user: {
        ok: true,
        sub: id,
        "https://slack.com/user_id": id,
        "https://slack.com/team_id": "T0TEAM",
        email: address,
        email_verified: false,
        name: "Sla Ck",
        picture: "https://avatars.slack-edge.example/1.png",
        "https://slack.com/team_name": "Team",
      },
    });
    expectAuthorize("slack", "/oauth/authorize", "profile email openid");
    expect(lastToken("slack")?.path).toBe("/api/oauth.access");
    expect(lastUserCall("slack")?.url).toBe("/api/openid.connect.userInfo");
    const { user } = await signedIn(location);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: `${standIn.base("slack")}/api`,
      sub: id,
      name: "Sla Ck",
      picture: "https://avatars.slack-edge.example/1.png",
      custom_claims: { "https://slack.com/team_id": "T0TEAM" },
      avatar_url: "https://avatars.slack-edge.example/1.png",
      full_name: "Sla Ck",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(user.user_metadata).toMatchObject({ full_name: "Sla Ck", custom_claims: { "https://slack.com/team_id": "T0TEAM" } });
    expect(await confirmedAt(address)).not.toBeNull();
  });

  it("slack_oidc: /openid/connect/authorize and /api/openid.connect.token; email_verified from userInfo decides", async () => {
    const address = email("slackoidc");
    const id = unique("U");
    const slackUser = (userId: string, mail: string, verified: boolean) => ({
      ok: true,
      sub: userId,
      "https://slack.com/user_id": userId,
      "https://slack.com/team_id": "T0OIDC",
      email: mail,
      email_verified: verified,
      date_email_verified: 1622128723,
      name: "Oidc Slack",
      picture: "https://avatars.slack-edge.example/2.png",
      given_name: "Oidc",
      family_name: "Slack",
      locale: "en-US",
    });
    const location = await signIn("slack_oidc", { user: slackUser(id, address, true) });
    expectAuthorize("slack_oidc", "/openid/connect/authorize", "profile email openid");
    expect(lastToken("slack_oidc")?.path).toBe("/api/openid.connect.token");
    const { user } = await signedIn(location);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: `${standIn.base("slack_oidc")}/api`,
      sub: id,
      name: "Oidc Slack",
      picture: "https://avatars.slack-edge.example/2.png",
      custom_claims: { "https://slack.com/team_id": "T0OIDC" },
      avatar_url: "https://avatars.slack-edge.example/2.png",
      full_name: "Oidc Slack",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(address)).not.toBeNull();

    const unverified = email("slackoidc-unverified");
    const otherId = unique("U");
    expectRefusedUnverified(await signIn("slack_oidc", { user: slackUser(otherId, unverified, false) }), "slack_oidc");
    expect(await confirmedAt(unverified)).toBeNull();
    expect(await identityData("slack_oidc", otherId)).toMatchObject({ email: unverified, email_verified: false });
  });

  it("snapchat: the Login Kit scopes, the profile from a GraphQL GET on /v1/me, its address verified", async () => {
    const address = email("snap");
    const externalId = unique("snapid");
    const location = await signIn("snapchat", {
      user: {
        data: {
          me: {
            externalId,
            displayName: "Snap Chat",
            bitmoji: { avatar: "https://sdk.bitmoji.example/me.png", id: "bitmoji-1" },
            email: address,
          },
        },
      },
    });
    expectAuthorize(
      "snapchat",
      "/accounts/oauth2/auth",
      [
        "https://auth.snapchat.com/oauth2/api/user.external_id",
        "https://auth.snapchat.com/oauth2/api/user.display_name",
        "https://auth.snapchat.com/oauth2/api/user.bitmoji.avatar",
      ].join(" "),
    );
    expect(lastToken("snapchat")?.path).toBe("/accounts/oauth2/token");
    const call = lastUserCall("snapchat");
    expect(call?.url).toBe(`/v1/me?${new URLSearchParams({ query: SNAPCHAT_QUERY })}`);
    expect(call?.url).toContain("query=%7Bme+%7B+externalId+displayName+bitmoji+%7B+avatar+id+%7D+email+%7D+%7D");
    const { user, values } = await signedIn(location);
    expect(values.get("provider_refresh_token")).toMatch(/^snap-refresh-/);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: "https://accounts.snapchat.com/accounts/oauth2/token",
      sub: externalId,
      name: "Snap Chat",
      picture: "https://sdk.bitmoji.example/me.png",
      slug: "Snap Chat",
      avatar_url: "https://sdk.bitmoji.example/me.png",
      full_name: "Snap Chat",
      provider_id: externalId,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(address)).not.toBeNull();

    // Without an address (Snapchat's default scopes ask none), refused unless EMAIL_OPTIONAL.
    const none = await signIn("snapchat", { user: { data: { me: { externalId: unique("snapid"), displayName: "No Mail" } } } });
    expect(query(none).get("error_description")).toBe("Error getting user email from external provider");
  });

  it("spotify: /authorize and /api/token, the largest image as picture; its address is never verified", async () => {
    const address = email("spotify");
    const id = unique("sp");
    const location = await signIn("spotify", {
      user: {
        country: "SE",
        display_name: "Spo Tify",
        email: address,
        id,
        images: [
          { url: "https://i.scdn.example/small.jpg", height: 64, width: 64 },
          { url: "https://i.scdn.example/large.jpg", height: 300, width: 300 },
          { url: "https://i.scdn.example/unknown.jpg", height: null, width: null },
        ],
        product: "premium",
        type: "user",
        uri: `spotify:user:${id}`,
      },
    });
    expectAuthorize("spotify", "/authorize", "user-read-email");
    expect(lastToken("spotify")?.path).toBe("/api/token");
    expect(lastUserCall("spotify")?.url).toBe("/me");
    expectRefusedUnverified(location, "spotify");
    expect(server.outbox.filter((m) => m.to === address).map((m) => m.kind)).toEqual(["confirmation"]);
    expect(await confirmedAt(address)).toBeNull();
    expect(await identityData("spotify", id)).toEqual({
      iss: standIn.base("spotify"),
      sub: id,
      name: "Spo Tify",
      picture: "https://i.scdn.example/large.jpg",
      avatar_url: "https://i.scdn.example/large.jpg",
      full_name: "Spo Tify",
      provider_id: id,
      email: address,
      email_verified: false,
      phone_verified: false,
    });
  });

  it("twitch: /oauth2/authorize and /oauth2/token, helix/users with the Client-Id header, login as name", async () => {
    const address = email("twitch");
    const id = String(100000 + Math.floor(Math.random() * 900000));
    const location = await signIn("twitch", {
      user: {
        data: [
          {
            id,
            login: "twitchlogin",
            display_name: "TwitchLogin",
            type: "",
            broadcaster_type: "affiliate",
            description: "Streams",
            profile_image_url: "https://static-cdn.jtvnw.example/p.png",
            offline_image_url: "",
            view_count: 0,
            email: address,
            created_at: "2016-12-14T20:32:28Z",
          },
        ],
      },
    });
    expectAuthorize("twitch", "/oauth2/authorize", "user:read:email");
    expect(lastToken("twitch")?.path).toBe("/oauth2/token");
    const call = lastUserCall("twitch");
    expect(call?.url).toBe("/helix/users");
    expect(call?.clientId).toBe(standIn.clientId);
    expect(call?.authorization).toMatch(/^Bearer twitch-/);
    const { user } = await signedIn(location);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: standIn.base("twitch"),
      sub: id,
      picture: "https://static-cdn.jtvnw.example/p.png",
      name: "twitchlogin",
      nickname: "TwitchLogin",
      custom_claims: { broadcaster_type: "affiliate", description: "Streams", type: "", offline_image_url: "", view_count: 0 },
      slug: "TwitchLogin",
      avatar_url: "https://static-cdn.jtvnw.example/p.png",
      full_name: "twitchlogin",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(address)).not.toBeNull();
    // Helix without a user: no profile.
    const empty = await signIn("twitch", { user: { data: [] } });
    expect(query(empty).get("error_description")).toBe("Error getting user profile from external provider");
  });

  it("workos: /sso/authorize with connection, organization and workos_provider as provider; the profile from the token answer", async () => {
    const address = email("workos");
    const id = unique("prof_");
    const location = await signIn(
      "workos",
      {
        profile: {
          object: "profile",
          id,
          connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5",
          connection_type: "GoogleOAuth",
          organization_id: "org_01EHWNCE74X7JSDV0X3SZ3KJNY",
          email: address,
          first_name: "Work",
          last_name: "Os",
          idp_id: "103456789012345678901",
          raw_attributes: {},
        },
      },
      {
        queryParams: {
          connection: "conn_01E4ZCR3C56J083X43JQXF3JK5",
          organization: "org_01EHWNCE74X7JSDV0X3SZ3KJNY",
          workos_provider: "GoogleOAuth",
        },
      },
    );
    expectAuthorize("workos", "/sso/authorize", null);
    const params = lastAuthorize("workos")?.params;
    expect(params?.get("connection")).toBe("conn_01E4ZCR3C56J083X43JQXF3JK5");
    expect(params?.get("organization")).toBe("org_01EHWNCE74X7JSDV0X3SZ3KJNY");
    expect(params?.get("provider")).toBe("GoogleOAuth");
    expect(params?.has("workos_provider")).toBe(false);
    expect(lastToken("workos")?.path).toBe("/sso/token");
    expect(lastUserCall("workos")).toBeUndefined();
    const { user } = await signedIn(location);
    expect(user.identities[0]?.identity_data).toEqual({
      iss: standIn.base("workos"),
      sub: id,
      name: "Work Os",
      custom_claims: { connection_id: "conn_01E4ZCR3C56J083X43JQXF3JK5", organization_id: "org_01EHWNCE74X7JSDV0X3SZ3KJNY" },
      full_name: "Work Os",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(address)).not.toBeNull();
  });

  it("x: PKCE with the provider (a verifier kept in oauth_client_states), users/me with user.fields, confirmed_email verified", async () => {
    const address = email("x");
    const id = String(Date.now());
    standIn.setAnswers("x", {
      user: {
        data: {
          id,
          name: "Ex Person",
          username: "experson",
          confirmed_email: address,
          profile_image_url: "https://pbs.twimg.example/p.jpg",
          url: "https://exper.son",
          created_at: "2013-12-14T04:35:55.000Z",
        },
      },
    });
    // The app's own flow is PKCE too: two verifiers, the app's and this service's with X.
    const browser = client(server, "pkce");
    const { data } = await browser.signInWithOAuth({ provider: "x", options: { skipBrowserRedirect: true, redirectTo: APP } });
    const toProvider = (await fetch(data.url as string, { redirect: "manual" })).headers.get("location") as string;
    const params = query(toProvider);
    expect(`${new URL(toProvider).origin}${new URL(toProvider).pathname}`).toBe(`${standIn.base("x")}/i/oauth2/authorize`);
    expect(params.get("scope")).toBe("users.email tweet.read users.read offline.access");
    expect(params.get("code_challenge_method")).toBe("S256");
    expect(params.get("code_challenge")).toMatch(/^[A-Za-z0-9_-]{43}$/);
    // Between /authorize and /callback the verifier waits in oauth_client_states, tied to the flow.
    const flow = await one<{ oauth_client_state_id: string | null; code_challenge: string | null }>(
      database.db,
      sql`SELECT oauth_client_state_id, code_challenge FROM ${server.table("flow_state")} WHERE id = ${params.get("state")}`,
    );
    expect(flow.oauth_client_state_id).toBeTruthy();
    expect(flow.code_challenge).toBeTruthy();
    const stateRow = () =>
      database.db.query<{ provider_type: string; code_verifier: string }>(
        sql`SELECT provider_type, code_verifier FROM ${server.table("oauth_client_states")} WHERE id = ${flow.oauth_client_state_id}`,
      );
    const { rows } = await stateRow();
    expect(rows).toHaveLength(1);
    expect(rows[0]?.provider_type).toBe("x");
    const location = await browse(toProvider, SITE);
    expect(location.startsWith(`${APP}?code=`)).toBe(true);
    // The stand-in compared the verifier it got with the challenge it was shown; the row is used up.
    expect(lastToken("x")?.path).toBe("/2/oauth2/token");
    expect(lastToken("x")?.pkce).toBe("ok");
    expect(lastToken("x")?.body.get("code_verifier")).toBe(rows[0]?.code_verifier);
    expect((await stateRow()).rows).toHaveLength(0);
    expect(lastUserCall("x")?.url).toBe("/2/users/me?user.fields=id,name,username,confirmed_email,profile_image_url,url,created_at");

    const { data: session, error } = await browser.exchangeCodeForSession(query(location).get("code") as string);
    expect(error).toBeNull();
    expect(session.session?.provider_token).toMatch(/^x-/);
    expect(session.session?.provider_refresh_token).toMatch(/^x-refresh-/);
    expect(session.user?.email).toBe(address);
    expect(session.user?.identities?.[0]?.identity_data).toEqual({
      iss: standIn.base("x"),
      sub: id,
      name: "Ex Person",
      preferred_username: "experson",
      picture: "https://pbs.twimg.example/p.jpg",
      profile: "https://x.com/experson",
      website: "https://exper.son",
      custom_claims: { created_at: "2013-12-14T04:35:55.000Z" },
      avatar_url: "https://pbs.twimg.example/p.jpg",
      full_name: "Ex Person",
      provider_id: id,
      user_name: "experson",
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(address)).not.toBeNull();

    // Without its oauth_client_states row the callback is refused before any code exchange.
    const lost = await client(server, "implicit").signInWithOAuth({
      provider: "x",
      options: { skipBrowserRedirect: true, redirectTo: APP },
    });
    const lostAt = (await fetch(lost.data.url as string, { redirect: "manual" })).headers.get("location") as string;
    await database.db.query(
      sql`DELETE FROM ${server.table("oauth_client_states")} WHERE id = (SELECT oauth_client_state_id FROM ${server.table("flow_state")} WHERE id = ${query(lostAt).get("state")})`,
    );
    const calls = standIn.tokenCalls.length;
    const refused = await browse(lostAt, SITE);
    expect(query(refused).get("error_code")).toBe("oauth_client_state_not_found");
    expect(standIn.tokenCalls.length).toBe(calls);
  });

  it("zoom: /oauth/authorize and /oauth/token, no scopes, /v2/users/me; only an unconfirmed Zoom email login is unverified", async () => {
    const zoomUser = (mail: string, loginType: string, verified: number) => ({
      id: unique("z"),
      first_name: "Zo",
      last_name: "Om",
      email: mail,
      type: 1,
      pic_url: "https://zoom.example/p.jpg",
      verified,
      login_type: loginType,
      account_id: "acc",
      status: "active",
    });
    // An email login (login_type "100") that confirmed its address.
    const confirmed = email("zoom");
    const answer = zoomUser(confirmed, "100", 1);
    const { user } = await signedIn(await signIn("zoom", { user: answer }));
    expectAuthorize("zoom", "/oauth/authorize", null);
    expect(lastToken("zoom")?.path).toBe("/oauth/token");
    expect(lastUserCall("zoom")?.url).toBe("/v2/users/me");
    expect(user.identities[0]?.identity_data).toEqual({
      iss: `${standIn.base("zoom")}/v2`,
      sub: answer.id,
      name: "Zo Om",
      picture: "https://zoom.example/p.jpg",
      avatar_url: "https://zoom.example/p.jpg",
      full_name: "Zo Om",
      provider_id: answer.id,
      email: confirmed,
      email_verified: true,
      phone_verified: false,
    });
    expect(await confirmedAt(confirmed)).not.toBeNull();
    // Another login type (a Google login, 1) counts as verified even with `verified` 0.
    const google = email("zoom-google");
    await signedIn(await signIn("zoom", { user: zoomUser(google, "1", 0) }));
    expect(await confirmedAt(google)).not.toBeNull();
    // A Zoom email login that never confirmed: unverified.
    const unconfirmed = email("zoom-unconfirmed");
    expectRefusedUnverified(await signIn("zoom", { user: zoomUser(unconfirmed, "100", 0) }), "zoom");
    expect(await confirmedAt(unconfirmed)).toBeNull();
  });
});
