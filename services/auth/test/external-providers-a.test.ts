/**
 * Sign-in with the group A providers (bitbucket, discord, facebook, figma, fly, kakao, keycloak,
 * the legacy linkedin, notion), driven as @supabase/auth-js and a browser drive it: GET
 * /authorize, the provider (one local stand-in, test/support/stand-in-a.ts, serving each
 * provider's real paths and answer shapes at its EXTERNAL_<X>_URL), GET /callback, then the
 * session. For each provider: the authorize endpoint and default scopes, the calls GoTrue makes
 * (and the provider's quirks), the identity_data and user_metadata GoTrue's Claims produce, the
 * address kept and whether it confirms the account (AUTH_MAILER_AUTOCONFIRM=false).
 */
import { createHmac, randomUUID } from "node:crypto";
import { sql } from "@platform/core";
import type { Provider } from "@supabase/auth-js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { keycloak } from "../src/domain/external/providers/keycloak.js";
import { browse, browserClient, fragment, query } from "./support/oauth-providers.js";
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
import { GROUP_A_PROVIDERS, type GroupAProvider, type GroupAStandIn, startGroupAStandIn } from "./support/stand-in-a.js";

const SITE = "http://localhost:3000";
const APP = "http://localhost:3000/welcome";

const client = (server: TestServer, flowType: "implicit" | "pkce") => browserClient(server.url, flowType);

const unique = () => randomUUID().slice(0, 8);

/** Each provider's default scopes, as GoTrue's constructors set them (notion: none, so no `scope`). */
const DEFAULT_SCOPES: Record<GroupAProvider, string | null> = {
  bitbucket: "account email",
  discord: "email identify",
  facebook: "email",
  figma: "current_user:read",
  fly: "read",
  kakao: "account_email profile_image profile_nickname",
  keycloak: "profile email",
  linkedin: "r_emailaddress r_liteprofile",
  notion: null,
};

interface UserJson {
  id: string;
  email: string;
  identities: { provider: string; identity_data: Record<string, unknown> }[];
  user_metadata: Record<string, unknown>;
}

describe("keycloak without EXTERNAL_KEYCLOAK_URL", () => {
  it("cannot build its endpoints, as GoTrue's NewKeycloakProvider refuses", () => {
    const calls = { name: "keycloak", config: { enabled: true, clientId: "c", secret: "s" } } as Parameters<typeof keycloak.endpoints>[0];
    expect(() => keycloak.endpoints(calls)).toThrow("unable to find URL for the Keycloak provider");
  });
});

describe.each(backends)("external providers, group A, on %s", (backend) => {
  let database: TestDatabase;
  let server: TestServer;
  let standIn: GroupAStandIn;
  let redirectUri: string;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
    standIn = await startGroupAStandIn();
    const port = await freePort();
    redirectUri = `http://127.0.0.1:${port}/callback`;
    const env: Record<string, string> = {
      AUTH_MAILER_AUTOCONFIRM: "false",
      AUTH_URI_ALLOW_LIST: "http://localhost:3000/**",
    };
    for (const provider of GROUP_A_PROVIDERS) {
      const key = `AUTH_EXTERNAL_${provider.toUpperCase()}`;
      env[`${key}_ENABLED`] = "true";
      env[`${key}_CLIENT_ID`] = standIn.clientId;
      env[`${key}_SECRET`] = standIn.secret;
      env[`${key}_REDIRECT_URI`] = redirectUri;
      // The realm URL with a trailing slash, which GoTrue drops.
      env[`${key}_URL`] = provider === "keycloak" ? `${standIn.baseUrl(provider)}/` : standIn.baseUrl(provider);
    }
    server = await startTestServer(database.db, env, { port });
  });
  afterAll(async () => {
    await server?.close();
    await standIn?.close();
    await database?.dispose();
  });

  /** signInWithOAuth, then the browser: the provider's authorize URL, and where the browser ends. */
  const signIn = async (provider: GroupAProvider, options: { flowType?: "implicit" | "pkce"; scopes?: string } = {}) => {
    const browser = client(server, options.flowType ?? "implicit");
    const { data, error } = await browser.signInWithOAuth({
      provider: provider as Provider,
      options: { skipBrowserRedirect: true, redirectTo: APP, ...(options.scopes ? { scopes: options.scopes } : {}) },
    });
    if (error) throw error;
    const first = await fetch(data.url as string, { redirect: "manual" });
    expect(first.status).toBe(302);
    const authorize = new URL(first.headers.get("location") as string);
    return { browser, authorize, location: await browse(authorize.toString(), SITE) };
  };
  const getUser = async (location: string) => {
    const accessToken = fragment(location).get("access_token");
    expect(accessToken, location).toBeTruthy();
    return readJson<UserJson>(await server.request("/user", { headers: { authorization: `Bearer ${accessToken}` } }));
  };
  const userRow = (address: string) =>
    one<{ id: string; email_confirmed_at: string | null; raw_user_meta_data: Record<string, unknown> } | undefined>(
      database.db,
      sql`SELECT id, email_confirmed_at, raw_user_meta_data FROM ${server.table("users")} WHERE email = ${address}`,
    );
  const identityOf = (provider: GroupAProvider, providerId: string) =>
    one<{ identity_data: Record<string, unknown> } | undefined>(
      database.db,
      sql`SELECT identity_data FROM ${server.table("identities")} WHERE provider = ${provider} AND provider_id = ${providerId}`,
    );
  /** A signed-in new user: one identity of `provider`, the address confirmed, the metadata its identity_data. */
  const expectConfirmed = async (location: string, provider: GroupAProvider, address: string) => {
    const user = await getUser(location);
    expect(user.email).toBe(address);
    expect(user.identities.map((i) => i.provider)).toEqual([provider]);
    const data = user.identities[0]?.identity_data as Record<string, unknown>;
    expect(user.user_metadata).toEqual(data);
    expect((await userRow(address))?.email_confirmed_at).not.toBeNull();
    return data;
  };
  /** GoTrue's answer to an unverified address: an unconfirmed account, a confirmation mail, the sign-in refused. */
  const expectUnconfirmed = async (location: string, provider: GroupAProvider, address: string, before: number) => {
    expect(location.startsWith(`${APP}?`)).toBe(true);
    expect(Object.fromEntries(query(location))).toEqual({
      error: "access_denied",
      error_code: "provider_email_needs_verification",
      error_description: `Unverified email with ${provider}. A confirmation email has been sent to your ${provider} email`,
    });
    expect((await userRow(address))?.email_confirmed_at).toBeNull();
    expect(server.outbox.slice(before).map((m) => [m.kind, m.to])).toEqual([["confirmation", address]]);
  };
  /** The token request: the code, the redirect URI, and how the client authenticated. */
  const tokenCalls = (provider: GroupAProvider, from: number) => standIn.callsOf(provider, from).filter((c) => c.method === "POST");
  /** The calls that read the user (every GET but the authorize one). */
  const userCalls = (provider: GroupAProvider, from: number) =>
    standIn
      .callsOf(provider, from)
      .filter((c) => c.method === "GET" && `${standIn.baseUrl(provider)}${c.path}` !== standIn.endpoint(provider, "authorize"));

  it("sends each provider's authorize endpoint, client, redirect URI and GoTrue's default scopes", async () => {
    for (const provider of GROUP_A_PROVIDERS) {
      const response = await server.request(`/authorize?provider=${provider}&redirect_to=${encodeURIComponent(APP)}`, {
        redirect: "manual",
      });
      expect(response.status, provider).toBe(302);
      const location = new URL(response.headers.get("location") as string);
      expect(`${location.origin}${location.pathname}`, provider).toBe(standIn.endpoint(provider, "authorize"));
      expect(location.searchParams.get("client_id")).toBe(standIn.clientId);
      expect(location.searchParams.get("redirect_uri")).toBe(redirectUri);
      expect(location.searchParams.get("response_type")).toBe("code");
      expect(location.searchParams.get("scope"), provider).toBe(DEFAULT_SCOPES[provider]);
      expect(location.searchParams.get("state")).toMatch(/^[0-9a-f-]{36}$/);
    }
  });

  it("bitbucket: the profile from /2.0/user, the addresses from the separate /2.0/user/emails call", async () => {
    const uuid = `{${randomUUID()}}`;
    const address = email("bitbucket");
    standIn.setUser("bitbucket", {
      "/2.0/user": {
        type: "user",
        uuid,
        account_id: `5f${unique()}`,
        nickname: "bucketeer",
        display_name: "Bit Bucket",
        // GoTrue reads `avatar.href` (the shape of its own tests), not `links.avatar.href`.
        avatar: { href: "https://avatar.example/bitbucket.png" },
        links: { avatar: { href: "https://bitbucket.org/account/bucketeer/avatar/" } },
      },
      "/2.0/user/emails": {
        pagelen: 10,
        page: 1,
        size: 2,
        values: [
          { type: "email", email: email("secondary"), is_primary: false, is_confirmed: false },
          { type: "email", email: address, is_primary: true, is_confirmed: true },
        ],
      },
    });
    const from = standIn.calls.length;
    const { authorize, location } = await signIn("bitbucket");
    expect(authorize.searchParams.get("scope")).toBe("account email");
    const data = await expectConfirmed(location, "bitbucket", address);
    const api = `${standIn.baseUrl("bitbucket")}/2.0`;
    expect(data).toEqual({
      iss: api,
      sub: uuid,
      name: "Bit Bucket",
      picture: "https://avatar.example/bitbucket.png",
      avatar_url: "https://avatar.example/bitbucket.png",
      full_name: "Bit Bucket",
      provider_id: uuid,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    const token = tokenCalls("bitbucket", from);
    expect(token.map((c) => [c.path, c.basic?.id, c.form?.get("redirect_uri")])).toEqual([
      ["/site/oauth2/access_token", standIn.clientId, redirectUri],
    ]);
    const reads = userCalls("bitbucket", from);
    expect(reads.map((c) => c.path)).toEqual(["/2.0/user", "/2.0/user/emails"]);
    const bearer = fragment(location).get("provider_token");
    for (const call of reads) expect(call.headers.authorization).toBe(`Bearer ${bearer}`);

    // An unconfirmed primary address does not confirm the account, even beside a confirmed one.
    const unconfirmed = email("bitbucket-unconfirmed");
    const other = `{${randomUUID()}}`;
    standIn.setUser("bitbucket", {
      "/2.0/user": { uuid: other, display_name: "Un Confirmed" },
      "/2.0/user/emails": {
        values: [
          { email: unconfirmed, is_primary: true, is_confirmed: false },
          { email: email("confirmed-secondary"), is_primary: false, is_confirmed: true },
        ],
      },
    });
    const before = server.outbox.length;
    await expectUnconfirmed((await signIn("bitbucket")).location, "bitbucket", unconfirmed, before);
  });

  it("discord: /api/users/@me, the name with its discriminator, the CDN picture, global_name in custom_claims, `verified`", async () => {
    const id = String(Date.now()) + unique().replace(/\D/g, "");
    const address = email("discord");
    standIn.setUser("discord", {
      "/api/users/@me": {
        id,
        username: "wumpus",
        discriminator: "1337",
        global_name: "Wumpus",
        avatar: "a_1269e74af4df7417b13759eae50c83dc",
        verified: true,
        email: address,
        flags: 0,
        banner: null,
        accent_color: null,
        premium_type: 0,
        public_flags: 0,
        mfa_enabled: false,
        locale: "en-US",
      },
    });
    const from = standIn.calls.length;
    const { authorize, location } = await signIn("discord", { scopes: "guilds,guilds.join" });
    expect(authorize.searchParams.get("scope")).toBe("email identify guilds guilds.join");
    const data = await expectConfirmed(location, "discord", address);
    const picture = `https://cdn.discordapp.com/avatars/${id}/a_1269e74af4df7417b13759eae50c83dc.gif`;
    expect(data).toEqual({
      iss: `${standIn.baseUrl("discord")}/api`,
      sub: id,
      name: "wumpus#1337",
      picture,
      avatar_url: picture,
      full_name: "wumpus",
      provider_id: id,
      custom_claims: { global_name: "Wumpus" },
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(tokenCalls("discord", from).map((c) => c.path)).toEqual(["/api/oauth2/token"]);

    // Unverified at Discord: not confirmed here. No avatar: the default one of discriminator % 5.
    const otherId = `${id}9`;
    const unverified = email("discord-unverified");
    standIn.setUser("discord", {
      "/api/users/@me": {
        id: otherId,
        username: "newbie",
        discriminator: "0",
        global_name: null,
        avatar: null,
        verified: false,
        email: unverified,
      },
    });
    const before = server.outbox.length;
    await expectUnconfirmed((await signIn("discord")).location, "discord", unverified, before);
    expect((await identityOf("discord", otherId))?.identity_data).toMatchObject({
      name: "newbie#0",
      picture: "https://cdn.discordapp.com/embed/avatars/0.png",
      custom_claims: { global_name: "" },
      email_verified: false,
    });

    // No avatar and a discriminator that is not a number: GoTrue cannot read the profile.
    standIn.setUser("discord", {
      "/api/users/@me": { id: `${id}8`, username: "odd", discriminator: "", avatar: null, verified: true, email: email("odd") },
    });
    const failed = (await signIn("discord")).location;
    expect(Object.fromEntries(query(failed))).toEqual({
      error: "server_error",
      error_code: "unexpected_failure",
      error_description: "Error getting user profile from external provider",
    });
  });

  it("facebook: /me with GoTrue's fields and the appsecret_proof the stand-in checks; the address counts as verified", async () => {
    const id = `10${Date.now()}`;
    const address = email("facebook");
    standIn.setUser("facebook", {
      "/me": {
        id,
        email: address,
        first_name: "Face",
        last_name: "Book",
        name: "Face Book Alias",
        picture: { data: { height: 50, is_silhouette: false, url: "https://platform-lookaside.example/fb.jpg", width: 50 } },
        birthday: "01/01/1990",
      },
    });
    const from = standIn.calls.length;
    const { authorize, location } = await signIn("facebook");
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${standIn.baseUrl("facebook")}/dialog/oauth`);
    const data = await expectConfirmed(location, "facebook", address);
    const profileUrl = `${standIn.baseUrl("facebook")}/me?fields=email,first_name,last_name,name,picture`;
    expect(data).toEqual({
      iss: profileUrl,
      sub: id,
      name: "Face Book",
      nickname: "Face Book Alias",
      slug: "Face Book Alias",
      picture: "https://platform-lookaside.example/fb.jpg",
      avatar_url: "https://platform-lookaside.example/fb.jpg",
      full_name: "Face Book",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(tokenCalls("facebook", from).map((c) => c.path)).toEqual(["/oauth/access_token"]);
    const [read] = userCalls("facebook", from);
    const providerToken = fragment(location).get("provider_token") as string;
    expect(read?.path).toBe("/me");
    expect(read?.query.get("fields")).toBe("email,first_name,last_name,name,picture");
    expect(read?.query.get("appsecret_proof")).toBe(createHmac("sha256", standIn.secret).update(providerToken).digest("hex"));
  });

  it("figma: /v1/me at api host, handle as name, img_url as avatar_url only, the address verified; no token_type in the answer", async () => {
    const id = `${Date.now()}`;
    const address = email("figma");
    standIn.setUser("figma", { "/v1/me": { id, email: address, handle: "figmate", img_url: "https://s3.example/figma.png" } });
    const from = standIn.calls.length;
    const { location } = await signIn("figma");
    const data = await expectConfirmed(location, "figma", address);
    expect(data).toEqual({
      iss: standIn.baseUrl("figma"),
      sub: id,
      name: "figmate",
      full_name: "figmate",
      avatar_url: "https://s3.example/figma.png",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(tokenCalls("figma", from).map((c) => c.path)).toEqual(["/v1/oauth/token"]);
    expect(fragment(location).get("provider_refresh_token")).toMatch(/^figma_refresh_/);
  });

  it("fly: the token's description at /oauth/token/info, user_name as full_name, the rest in custom_claims", async () => {
    const userId = `u${unique()}`;
    const address = email("fly");
    standIn.setUser("fly", {
      "/oauth/token/info": {
        resource_owner_id: `ro${unique()}`,
        scope: ["read"],
        expires_in: 7199,
        application: { uid: "fly-app-uid" },
        created_at: 1696003692,
        user_id: userId,
        user_name: "Fly User",
        email: address,
        organizations: [{ id: "org-1", role: "admin" }],
      },
    });
    const { location } = await signIn("fly");
    const data = await expectConfirmed(location, "fly", address);
    expect(data).toEqual({
      iss: standIn.baseUrl("fly"),
      sub: userId,
      full_name: "Fly User",
      provider_id: userId,
      custom_claims: {
        resource_owner_id: expect.stringMatching(/^ro/),
        organizations: [{ id: "org-1", role: "admin" }],
        application: { uid: "fly-app-uid" },
        scope: ["read"],
        created_at: 1696003692,
      },
      email: address,
      email_verified: true,
      phone_verified: false,
    });
  });

  it("kakao: the credentials in the token request's body only; verified only when verified and valid; PKCE with auth-js", async () => {
    const id = Math.floor(Math.random() * 1e12);
    const address = email("kakao");
    const kakaoUser = (userId: number, to: string, verified: boolean, valid: boolean) => ({
      "/v2/user/me": {
        id: userId,
        connected_at: "2024-01-01T00:00:00Z",
        properties: { nickname: "카카오", profile_image: "https://k.kakaocdn.example/p.jpg" },
        kakao_account: {
          profile_nickname_needs_agreement: false,
          profile_image_needs_agreement: false,
          profile: {
            nickname: "카카오",
            thumbnail_image_url: "https://k.kakaocdn.example/t.jpg",
            profile_image_url: "https://k.kakaocdn.example/p.jpg",
          },
          has_email: true,
          email_needs_agreement: false,
          is_email_valid: valid,
          is_email_verified: verified,
          email: to,
        },
      },
    });
    standIn.setUser("kakao", kakaoUser(id, address, true, true));
    const from = standIn.calls.length;
    const { browser, location } = await signIn("kakao", { flowType: "pkce" });
    expect(location.startsWith(`${APP}?code=`)).toBe(true);
    const { data: session, error } = await browser.exchangeCodeForSession(query(location).get("code") as string);
    expect(error).toBeNull();
    expect(session.user?.email).toBe(address);
    expect(session.session?.provider_token).toMatch(/^kakao_/);
    expect((await userRow(address))?.email_confirmed_at).not.toBeNull();
    expect(session.user?.identities?.[0]?.identity_data).toEqual({
      iss: standIn.baseUrl("kakao"),
      sub: String(id),
      name: "카카오",
      preferred_username: "카카오",
      user_name: "카카오",
      full_name: "카카오",
      avatar_url: "https://k.kakaocdn.example/p.jpg",
      provider_id: String(id),
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    // One token request, the credentials in the form (the stand-in refuses Basic, as Kakao does).
    const token = tokenCalls("kakao", from);
    expect(token).toHaveLength(1);
    expect(token[0]?.headers.authorization).toBeUndefined();
    expect(token[0]?.form?.get("client_id")).toBe(standIn.clientId);
    expect(token[0]?.form?.get("client_secret")).toBe(standIn.secret);

    // Verified but no longer valid: not verified.
    const invalid = email("kakao-invalid");
    standIn.setUser("kakao", kakaoUser(id + 1, invalid, true, false));
    const before = server.outbox.length;
    await expectUnconfirmed((await signIn("kakao")).location, "kakao", invalid, before);
  });

  it("keycloak: the realm's OpenID Connect endpoints under EXTERNAL_KEYCLOAK_URL, userinfo's other claims in custom_claims", async () => {
    const sub = randomUUID();
    const address = email("keycloak");
    const userinfo = (subject: string, to: string, verified: boolean) => ({
      "/protocol/openid-connect/userinfo": {
        sub: subject,
        email_verified: verified,
        name: "Key Cloak",
        preferred_username: "kc-user",
        given_name: "Key",
        family_name: "Cloak",
        email: to,
        realm_access: { roles: ["offline_access", "member"] },
      },
    });
    standIn.setUser("keycloak", userinfo(sub, address, true));
    const from = standIn.calls.length;
    const { authorize, location } = await signIn("keycloak");
    const realm = standIn.baseUrl("keycloak");
    expect(realm.endsWith("/keycloak/realms/platform")).toBe(true);
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${realm}/protocol/openid-connect/auth`);
    const data = await expectConfirmed(location, "keycloak", address);
    expect(data).toEqual({
      iss: realm,
      sub,
      name: "Key Cloak",
      full_name: "Key Cloak",
      provider_id: sub,
      custom_claims: {
        preferred_username: "kc-user",
        given_name: "Key",
        family_name: "Cloak",
        realm_access: { roles: ["offline_access", "member"] },
      },
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(standIn.callsOf("keycloak", from).map((c) => `${c.method} ${c.path}`)).toEqual([
      "GET /protocol/openid-connect/auth",
      "POST /protocol/openid-connect/token",
      "GET /protocol/openid-connect/userinfo",
    ]);

    const unverified = email("keycloak-unverified");
    standIn.setUser("keycloak", userinfo(randomUUID(), unverified, false));
    const before = server.outbox.length;
    await expectUnconfirmed((await signIn("keycloak")).location, "keycloak", unverified, before);
  });

  it("linkedin (legacy): /v2/me with GoTrue's projection, the localized names, the picture, the address from /v2/emailAddress", async () => {
    const id = `li${unique()}`;
    const address = email("linkedin");
    const name = (value: string) => ({
      localized: { en_US: value, de_DE: `${value}-de` },
      preferredLocale: { country: "US", language: "en" },
    });
    standIn.setUser("linkedin", {
      "/v2/me": {
        id,
        firstName: name("Linked"),
        lastName: name("In"),
        profilePicture: {
          displayImage: "urn:li:digitalmediaAsset:abc",
          "displayImage~": {
            elements: [
              { identifiers: [{ identifier: "https://media.licdn.example/100.jpg" }] },
              { identifiers: [{ identifier: "https://media.licdn.example/800.jpg" }] },
            ],
          },
        },
      },
      "/v2/emailAddress": { elements: [{ handle: "urn:li:emailAddress:1", "handle~": { emailAddress: address } }] },
    });
    const from = standIn.calls.length;
    const { authorize, location } = await signIn("linkedin");
    expect(`${authorize.origin}${authorize.pathname}`).toBe(`${standIn.baseUrl("linkedin")}/oauth/v2/authorization`);
    const data = await expectConfirmed(location, "linkedin", address);
    expect(data).toEqual({
      iss: standIn.baseUrl("linkedin"),
      sub: id,
      name: "Linked In",
      full_name: "Linked In",
      picture: "https://media.licdn.example/100.jpg",
      avatar_url: "https://media.licdn.example/100.jpg",
      provider_id: id,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    expect(tokenCalls("linkedin", from).map((c) => c.path)).toEqual(["/oauth/v2/accessToken"]);
    expect(userCalls("linkedin", from).map((c) => [c.path, Object.fromEntries(c.query)])).toEqual([
      ["/v2/me", { projection: "(id,firstName,lastName,profilePicture(displayImage~:playableStreams))" }],
      ["/v2/emailAddress", { q: "members", projection: "(elements*(handle~))" }],
    ]);

    // No name for the member's preferred locale (where GoTrue's GetName panics): the profile is refused.
    standIn.setUser("linkedin", {
      "/v2/me": {
        id: `${id}x`,
        firstName: { localized: { fr_FR: "Lin" }, preferredLocale: { country: "US", language: "en" } },
        lastName: name("X"),
      },
      "/v2/emailAddress": { elements: [{ handle: "urn:li:emailAddress:2", "handle~": { emailAddress: email("linkedin-fr") } }] },
    });
    expect(query((await signIn("linkedin")).location).get("error_description")).toBe("Error getting user profile from external provider");
  });

  it("notion: no scopes, /v1/users/me with Notion-Version: 2021-08-16, the bot's owner as the user", async () => {
    const ownerId = randomUUID();
    const address = email("notion");
    standIn.setUser("notion", {
      "/v1/users/me": {
        object: "user",
        id: randomUUID(),
        name: "Stand-in integration",
        avatar_url: null,
        type: "bot",
        bot: {
          owner: {
            type: "user",
            user: {
              object: "user",
              id: ownerId,
              name: "No Tion",
              avatar_url: "https://s3.notion.example/avatar.png",
              type: "person",
              person: { email: address },
            },
          },
          workspace_name: "Stand-in workspace",
        },
      },
    });
    const from = standIn.calls.length;
    const { authorize, location } = await signIn("notion");
    expect(authorize.searchParams.has("scope")).toBe(false);
    const data = await expectConfirmed(location, "notion", address);
    expect(data).toEqual({
      iss: standIn.baseUrl("notion"),
      sub: ownerId,
      name: "No Tion",
      full_name: "No Tion",
      picture: "https://s3.notion.example/avatar.png",
      avatar_url: "https://s3.notion.example/avatar.png",
      provider_id: ownerId,
      email: address,
      email_verified: true,
      phone_verified: false,
    });
    const token = tokenCalls("notion", from);
    expect(token.map((c) => [c.path, c.basic])).toEqual([["/v1/oauth/token", { id: standIn.clientId, secret: standIn.secret }]]);
    const [read] = userCalls("notion", from);
    expect(read?.path).toBe("/v1/users/me");
    expect(read?.headers["notion-version"]).toBe("2021-08-16");
    expect(read?.headers.authorization).toBe(`Bearer ${fragment(location).get("provider_token")}`);
  });
});
