/**
 * One local stand-in for the group-b providers (linkedin_oidc, slack, slack_oidc, snapchat,
 * spotify, twitch, vercel_marketplace, workos, x, zoom), on 127.0.0.1 at a random port. Each
 * provider lives under its own prefix (`/spotify`, `/x`, ...), which its EXTERNAL_<X>_URL names,
 * and serves there the paths GoTrue calls and the answer shapes the real provider gives:
 * the authorize page (answering at once with a code), the token endpoint (client credentials,
 * code, redirect_uri, and for x the PKCE verifier against the challenge it was shown) and the
 * user APIs. The OpenID ones (linkedin_oidc, vercel_marketplace) hand out ID tokens signed by
 * the oauth2-mock-server provider their EXTERNAL_<X>_TEST_ISSUER names.
 */
import { createHash, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { json, type OidcProvider, readBody } from "./oauth-providers.js";

export const GROUP_B_PROVIDERS = [
  "linkedin_oidc",
  "slack",
  "slack_oidc",
  "snapchat",
  "spotify",
  "twitch",
  "vercel_marketplace",
  "workos",
  "x",
  "zoom",
] as const;
export type GroupBProvider = (typeof GROUP_B_PROVIDERS)[number];

/** What the provider answers for the next sign-in. */
export interface Answers {
  /** The user API's JSON (its whole answer, in the provider's shape). */
  user?: unknown;
  /** WorkOS: the `profile` of the token answer. */
  profile?: Record<string, unknown>;
  /** OpenID ones: claims of the ID token (sub, aud, iss, at_hash are filled in unless given); null: no ID token. */
  idToken?: Record<string, unknown> | null;
}

export interface AuthorizeCall {
  provider: GroupBProvider;
  path: string;
  params: URLSearchParams;
}
export interface TokenCall {
  provider: GroupBProvider;
  path: string;
  basic: boolean;
  body: URLSearchParams;
  /** x: whether the code_verifier matched the code_challenge of the authorize request. */
  pkce?: "ok" | "mismatch" | "missing";
}
export interface UserCall {
  provider: GroupBProvider;
  /** Path and query as received. */
  url: string;
  authorization: string;
  clientId: string | undefined;
}

export interface StandInB {
  url: string;
  clientId: string;
  secret: string;
  /** EXTERNAL_<X>_URL of `provider`. */
  base(provider: GroupBProvider): string;
  /** What `provider` answers for its next authorizations. */
  setAnswers(provider: GroupBProvider, answers: Answers): void;
  authorizeCalls: AuthorizeCall[];
  tokenCalls: TokenCall[];
  userCalls: UserCall[];
  close(): Promise<void>;
}

interface Route {
  authorize: string;
  token: string;
  /** The token endpoint's answer besides the access token. */
  tokenAnswer(grant: Grant, accessToken: string): Promise<Record<string, unknown>>;
  /** User API paths (after the prefix) and their answer; undefined: not this provider's path. */
  user?: (path: string, url: URL, grant: Grant, request: IncomingMessage) => { status: number; body: unknown } | undefined;
}

interface Grant {
  provider: GroupBProvider;
  answers: Answers;
  redirectUri: string;
  challenge?: { value: string; method: string } | undefined;
}

/** The Snapchat Login Kit GraphQL query GoTrue sends to /v1/me. */
export const SNAPCHAT_QUERY = "{me { externalId displayName bitmoji { avatar id } email } }";
export const X_USER_FIELDS = "id,name,username,confirmed_email,profile_image_url,url,created_at";

/** OpenID Connect Core 3.1.3.6 for RS256. */
const atHash = (accessToken: string) => createHash("sha256").update(accessToken).digest().subarray(0, 16).toString("base64url");

export async function startStandInB(oidc: OidcProvider): Promise<StandInB> {
  // No characters that form-encoding changes (the Basic credentials are compared as sent).
  const clientId = "standinbclient";
  const secret = "standinbsecret";
  const answers = new Map<GroupBProvider, Answers>();
  const codes = new Map<string, Grant>();
  const tokens = new Map<string, Grant>();
  const authorizeCalls: AuthorizeCall[] = [];
  const tokenCalls: TokenCall[] = [];
  const userCalls: UserCall[] = [];

  const idToken = async (grant: Grant, accessToken: string) => {
    if (grant.answers.idToken === null) return {};
    const claims = { sub: randomUUID(), aud: clientId, at_hash: atHash(accessToken), ...grant.answers.idToken };
    return { id_token: await oidc.idToken(claims) };
  };
  const plain = (path: string, body: (grant: Grant) => unknown) => (at: string, _url: URL, grant: Grant) =>
    at === path ? { status: 200, body: body(grant) } : undefined;

  const routes: Record<GroupBProvider, Route> = {
    linkedin_oidc: {
      authorize: "/oauth/v2/authorization",
      token: "/oauth/v2/accessToken",
      tokenAnswer: async (grant, accessToken) => ({
        expires_in: 5183999,
        scope: "email,openid,profile",
        token_type: "Bearer",
        ...(await idToken(grant, accessToken)),
      }),
    },
    vercel_marketplace: {
      authorize: "/oauth/v2/authorization",
      token: "/oauth/v2/accessToken",
      tokenAnswer: async (grant, accessToken) => ({ token_type: "Bearer", ...(await idToken(grant, accessToken)) }),
    },
    // Legacy Sign in with Slack: no token_type, `ok` beside the token.
    slack: {
      authorize: "/oauth/authorize",
      token: "/api/oauth.access",
      tokenAnswer: async () => ({ ok: true, scope: "identity.basic,identity.email", team_id: "T0TEAM", user_id: "U0USER" }),
      user: plain("/api/openid.connect.userInfo", (grant) => grant.answers.user),
    },
    slack_oidc: {
      authorize: "/openid/connect/authorize",
      token: "/api/openid.connect.token",
      // Slack's ID token is not read (GoTrue asks the userInfo endpoint): an opaque one will do.
      tokenAnswer: async () => ({ ok: true, token_type: "Bearer", id_token: "eyJhbGciOiJub25lIn0.e30." }),
      user: plain("/api/openid.connect.userInfo", (grant) => grant.answers.user),
    },
    snapchat: {
      authorize: "/accounts/oauth2/auth",
      token: "/accounts/oauth2/token",
      tokenAnswer: async () => ({ refresh_token: `snap-refresh-${randomUUID()}`, token_type: "Bearer", expires_in: 3600, scope: "" }),
      user: (path, url, grant) => {
        if (path !== "/v1/me") return undefined;
        if (url.searchParams.get("query") !== SNAPCHAT_QUERY) return { status: 400, body: { errors: [{ message: "bad query" }] } };
        return { status: 200, body: grant.answers.user };
      },
    },
    spotify: {
      authorize: "/authorize",
      token: "/api/token",
      tokenAnswer: async () => ({ token_type: "Bearer", scope: "user-read-email", expires_in: 3600, refresh_token: `sp-${randomUUID()}` }),
      user: plain("/me", (grant) => grant.answers.user),
    },
    twitch: {
      authorize: "/oauth2/authorize",
      token: "/oauth2/token",
      tokenAnswer: async () => ({
        expires_in: 14124,
        refresh_token: `tw-${randomUUID()}`,
        scope: ["user:read:email"],
        token_type: "bearer",
      }),
      user: (path, _url, grant, request) => {
        if (path !== "/helix/users") return undefined;
        // Helix wants the client the token was issued to in Client-Id.
        if (request.headers["client-id"] !== clientId)
          return { status: 401, body: { error: "Unauthorized", status: 401, message: "Client ID and OAuth token do not match" } };
        return { status: 200, body: grant.answers.user };
      },
    },
    // WorkOS answers the profile with the token; there is no user API to call.
    workos: {
      authorize: "/sso/authorize",
      token: "/sso/token",
      tokenAnswer: async (grant) => ({ token_type: "Bearer", expires_in: 600, profile: grant.answers.profile }),
    },
    x: {
      authorize: "/i/oauth2/authorize",
      token: "/2/oauth2/token",
      tokenAnswer: async () => ({
        token_type: "bearer",
        expires_in: 7200,
        scope: "users.email tweet.read users.read offline.access",
        refresh_token: `x-refresh-${randomUUID()}`,
      }),
      user: (path, url, grant) => {
        if (path !== "/2/users/me") return undefined;
        if (url.searchParams.get("user.fields") !== X_USER_FIELDS) return { status: 400, body: { title: "Invalid Request" } };
        return { status: 200, body: grant.answers.user };
      },
    },
    zoom: {
      authorize: "/oauth/authorize",
      token: "/oauth/token",
      tokenAnswer: async () => ({ token_type: "bearer", refresh_token: `zm-${randomUUID()}`, expires_in: 3599, scope: "user:read" }),
      user: plain("/v2/users/me", (grant) => grant.answers.user),
    },
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const [, prefix = "", ...rest] = url.pathname.split("/");
    const provider = GROUP_B_PROVIDERS.find((p) => p === prefix);
    if (!provider) return json(response, 404, { message: "Not Found" });
    const route = routes[provider];
    const path = `/${rest.join("/")}`;

    if (request.method === "GET" && path === route.authorize) {
      const params = url.searchParams;
      authorizeCalls.push({ provider, path, params });
      const current = answers.get(provider);
      if (params.get("client_id") !== clientId || params.get("response_type") !== "code" || !current)
        return json(response, 400, { error: "invalid_request" });
      // WorkOS wants one of a connection, an organization or a provider.
      if (provider === "workos" && !params.get("connection") && !params.get("organization") && !params.get("provider"))
        return json(response, 422, { error: "invalid_request", error_description: "connection, organization or provider required" });
      // X refuses clients that do not use PKCE.
      if (provider === "x" && (params.get("code_challenge_method") !== "S256" || !params.get("code_challenge")))
        return json(response, 400, { error: "invalid_request", error_description: "Missing PKCE parameters" });
      const code = randomUUID();
      const challenge = params.get("code_challenge");
      codes.set(code, {
        provider,
        answers: current,
        redirectUri: params.get("redirect_uri") ?? "",
        challenge: challenge ? { value: challenge, method: params.get("code_challenge_method") ?? "plain" } : undefined,
      });
      const back = new URL(params.get("redirect_uri") ?? "");
      back.searchParams.set("code", code);
      back.searchParams.set("state", params.get("state") ?? "");
      response.writeHead(302, { location: back.toString() });
      return response.end();
    }

    if (request.method === "POST" && path === route.token) {
      const body = new URLSearchParams(await readBody(request));
      const header = request.headers.authorization ?? "";
      const basic = header.startsWith("Basic ");
      const call: TokenCall = { provider, path, basic, body };
      tokenCalls.push(call);
      const [id, pass] = basic
        ? Buffer.from(header.slice(6), "base64").toString().split(":")
        : [body.get("client_id"), body.get("client_secret")];
      if (id !== clientId || pass !== secret) return json(response, 401, { error: "invalid_client" });
      const code = body.get("code") ?? "";
      const grant = codes.get(code);
      if (body.get("grant_type") !== "authorization_code" || !grant || grant.redirectUri !== body.get("redirect_uri"))
        return json(response, 400, { error: "invalid_grant" });
      if (grant.challenge) {
        const verifier = body.get("code_verifier");
        call.pkce = !verifier
          ? "missing"
          : createHash("sha256").update(verifier).digest("base64url") === grant.challenge.value
            ? "ok"
            : "mismatch";
        if (call.pkce !== "ok")
          return json(response, 400, { error: "invalid_request", error_description: "Value passed for the code verifier was invalid." });
      }
      codes.delete(code);
      const accessToken = `${provider}-${randomUUID()}`;
      tokens.set(accessToken, grant);
      return json(response, 200, { access_token: accessToken, ...(await route.tokenAnswer(grant, accessToken)) });
    }

    if (request.method === "GET" && route.user) {
      const authorization = request.headers.authorization ?? "";
      const clientHeader = request.headers["client-id"];
      userCalls.push({
        provider,
        url: `${path}${url.search}`,
        authorization,
        clientId: typeof clientHeader === "string" ? clientHeader : undefined,
      });
      const grant = tokens.get(authorization.replace(/^Bearer /, ""));
      if (!grant || grant.provider !== provider) return json(response, 401, { message: "invalid access token" });
      const answer = route.user(path, url, grant, request);
      if (answer) return json(response, answer.status, answer.body);
    }
    return json(response, 404, { message: "Not Found" });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const url = `http://127.0.0.1:${port}`;
  return {
    url,
    clientId,
    secret,
    base: (provider) => `${url}/${provider}`,
    setAnswers: (provider, next) => {
      answers.set(provider, next);
    },
    authorizeCalls,
    tokenCalls,
    userCalls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
