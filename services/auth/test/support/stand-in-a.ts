/**
 * One local HTTP server standing in for the group A providers of the external sign-in suite
 * (bitbucket, discord, facebook, figma, fly, kakao, keycloak, linkedin, notion), each under its
 * own prefix, `/<provider>`, which is its EXTERNAL_<X>_URL (keycloak's is a realm URL below it).
 * Under that base each provider serves the paths GoTrue calls on the real one: its authorize
 * endpoint (answering at once with a code), its token endpoint (with the provider's answer
 * shape, `token_type` missing where the provider sends none), and its user endpoints, which
 * answer what the test set with `setUser` for the token's provider. It checks what real
 * providers check: the client, the redirect URI, the code, the Bearer token, and the quirks —
 * Kakao refuses credentials sent as HTTP Basic, Facebook refuses a wrong `appsecret_proof` and
 * answers only the `fields` asked for, Notion refuses a request without `Notion-Version`.
 * Every request is recorded in `calls`.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { json, readBody } from "./oauth-providers.js";

export const GROUP_A_PROVIDERS = ["bitbucket", "discord", "facebook", "figma", "fly", "kakao", "keycloak", "linkedin", "notion"] as const;
export type GroupAProvider = (typeof GROUP_A_PROVIDERS)[number];

interface Routes {
  /** Where EXTERNAL_<X>_URL points, below `/<provider>`. */
  base: string;
  authorize: string;
  token: string;
  /** The user endpoints (paths below the base, without the query). */
  user: readonly string[];
  /** The token endpoint's answer besides access_token (and refresh_token where the provider sends one). */
  tokenAnswer: (refreshToken: string) => Record<string, unknown>;
}

const ROUTES: Record<GroupAProvider, Routes> = {
  bitbucket: {
    base: "",
    authorize: "/site/oauth2/authorize",
    token: "/site/oauth2/access_token",
    user: ["/2.0/user", "/2.0/user/emails"],
    tokenAnswer: (refresh) => ({ scopes: "account email", expires_in: 7200, refresh_token: refresh, token_type: "bearer" }),
  },
  discord: {
    base: "",
    authorize: "/api/oauth2/authorize",
    token: "/api/oauth2/token",
    user: ["/api/users/@me"],
    tokenAnswer: (refresh) => ({ token_type: "Bearer", expires_in: 604800, refresh_token: refresh, scope: "email identify" }),
  },
  facebook: {
    base: "",
    authorize: "/dialog/oauth",
    token: "/oauth/access_token",
    user: ["/me"],
    tokenAnswer: () => ({ token_type: "bearer", expires_in: 5183944 }),
  },
  figma: {
    base: "",
    authorize: "/oauth",
    token: "/v1/oauth/token",
    user: ["/v1/me"],
    // Figma sends no token_type.
    tokenAnswer: (refresh) => ({ user_id: "figma-user", refresh_token: refresh, expires_in: 7776000 }),
  },
  fly: {
    base: "",
    authorize: "/oauth/authorize",
    token: "/oauth/token",
    user: ["/oauth/token/info"],
    tokenAnswer: (refresh) => ({ token_type: "Bearer", expires_in: 7199, refresh_token: refresh, scope: "read", created_at: 1696003692 }),
  },
  kakao: {
    base: "",
    authorize: "/oauth/authorize",
    token: "/oauth/token",
    user: ["/v2/user/me"],
    tokenAnswer: (refresh) => ({
      token_type: "bearer",
      expires_in: 21599,
      refresh_token: refresh,
      refresh_token_expires_in: 5183999,
      scope: "account_email profile_image profile_nickname",
    }),
  },
  keycloak: {
    base: "/realms/platform",
    authorize: "/protocol/openid-connect/auth",
    token: "/protocol/openid-connect/token",
    user: ["/protocol/openid-connect/userinfo"],
    tokenAnswer: (refresh) => ({
      expires_in: 300,
      refresh_expires_in: 1800,
      refresh_token: refresh,
      token_type: "Bearer",
      "not-before-policy": 0,
      session_state: randomUUID(),
      scope: "profile email",
    }),
  },
  linkedin: {
    base: "",
    authorize: "/oauth/v2/authorization",
    token: "/oauth/v2/accessToken",
    user: ["/v2/me", "/v2/emailAddress"],
    // LinkedIn sends no token_type (and no refresh token to most apps).
    tokenAnswer: () => ({ expires_in: 5183999 }),
  },
  notion: {
    base: "",
    authorize: "/v1/oauth/authorize",
    token: "/v1/oauth/token",
    user: ["/v1/users/me"],
    tokenAnswer: () => ({
      token_type: "bearer",
      bot_id: randomUUID(),
      workspace_name: "Stand-in workspace",
      workspace_icon: null,
      workspace_id: randomUUID(),
      duplicated_template_id: null,
    }),
  },
};

export interface RecordedCall {
  provider: GroupAProvider;
  method: string;
  /** Below the provider's base. */
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  /** The token request's form. */
  form?: URLSearchParams;
  /** The client credentials of a token request sent as HTTP Basic (form-decoded). */
  basic?: { id: string; secret: string };
}

export interface GroupAStandIn {
  /** The origin; each provider lives under `/<provider>`. */
  origin: string;
  clientId: string;
  secret: string;
  /** EXTERNAL_<X>_URL of a provider. */
  baseUrl(provider: GroupAProvider): string;
  /** The paths of a provider, as absolute URLs. */
  endpoint(provider: GroupAProvider, kind: "authorize" | "token"): string;
  /** What each user endpoint answers to the next sign-in with this provider, by path. */
  setUser(provider: GroupAProvider, answers: Record<string, unknown>): void;
  calls: RecordedCall[];
  /** The calls of one provider since `from` (an index into `calls`). */
  callsOf(provider: GroupAProvider, from?: number): RecordedCall[];
  close(): Promise<void>;
}

const FACEBOOK_DEFAULT_FIELDS = ["id", "name"];

/** RFC 6749 2.3.1: Basic credentials are form-encoded before base64. */
function basicCredentials(header: string | undefined): { id: string; secret: string } | undefined {
  if (!header?.startsWith("Basic ")) return undefined;
  const decoded = Buffer.from(header.slice(6), "base64").toString("utf8");
  const colon = decoded.indexOf(":");
  const formDecode = (value: string) => decodeURIComponent(value.replace(/\+/g, " "));
  return { id: formDecode(decoded.slice(0, colon)), secret: formDecode(decoded.slice(colon + 1)) };
}

/** Each provider's refusal of a missing or unknown token. */
function unauthorized(provider: GroupAProvider, response: ServerResponse) {
  if (provider === "facebook") {
    return json(response, 400, { error: { message: "Invalid OAuth access token data.", type: "OAuthException", code: 190 } });
  }
  if (provider === "notion")
    return json(response, 401, { object: "error", status: 401, code: "unauthorized", message: "API token is invalid." });
  return json(response, 401, { error: "invalid_token" });
}

export async function startGroupAStandIn(): Promise<GroupAStandIn> {
  // No characters that form-encoding changes (see oauth-providers.ts).
  const clientId = "standinaclient";
  const secret = "standinasecret";
  const calls: RecordedCall[] = [];
  const users = new Map<GroupAProvider, Record<string, unknown>>();
  const codes = new Map<string, { provider: GroupAProvider; redirectUri: string; answers: Record<string, unknown> }>();
  const tokens = new Map<string, { provider: GroupAProvider; answers: Record<string, unknown> }>();

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const url = new URL(request.url ?? "/", "http://stand-in");
    const [, first = "", ...rest] = url.pathname.split("/");
    if (!(GROUP_A_PROVIDERS as readonly string[]).includes(first)) return json(response, 404, { message: "Not Found" });
    const provider = first as GroupAProvider;
    const routes = ROUTES[provider];
    const full = `/${rest.join("/")}`;
    if (!full.startsWith(routes.base)) return json(response, 404, { message: "Not Found" });
    const path = full.slice(routes.base.length);
    const call: RecordedCall = { provider, method: request.method ?? "GET", path, query: url.searchParams, headers: request.headers };
    calls.push(call);

    if (request.method === "GET" && path === routes.authorize) {
      const query = url.searchParams;
      const answers = users.get(provider);
      if (query.get("client_id") !== clientId || query.get("response_type") !== "code" || !answers) {
        return json(response, 400, { error: "invalid_request" });
      }
      const redirectUri = query.get("redirect_uri") ?? "";
      const code = randomUUID();
      codes.set(code, { provider, redirectUri, answers });
      const back = new URL(redirectUri);
      back.searchParams.set("code", code);
      back.searchParams.set("state", query.get("state") ?? "");
      response.writeHead(302, { location: back.toString() });
      return response.end();
    }

    if (request.method === "POST" && path === routes.token) {
      const form = new URLSearchParams(await readBody(request));
      call.form = form;
      const basic = basicCredentials(request.headers.authorization);
      if (basic) call.basic = basic;
      // Kakao reads the client's credentials from the form only.
      if (provider === "kakao" && basic) {
        return json(response, 401, { error: "invalid_client", error_description: "Bad client credentials", error_code: "KOE010" });
      }
      const id = basic?.id ?? form.get("client_id");
      const pass = basic?.secret ?? form.get("client_secret");
      if (id !== clientId || pass !== secret) return json(response, 401, { error: "invalid_client" });
      const issued = codes.get(form.get("code") ?? "");
      if (form.get("grant_type") !== "authorization_code" || issued?.provider !== provider) {
        return json(response, 400, { error: "invalid_grant" });
      }
      if (form.get("redirect_uri") !== issued.redirectUri)
        return json(response, 400, { error: "invalid_grant", error_description: "redirect_uri" });
      codes.delete(form.get("code") ?? "");
      const accessToken = `${provider}_${randomUUID()}`;
      tokens.set(accessToken, { provider, answers: issued.answers });
      return json(response, 200, { access_token: accessToken, ...routes.tokenAnswer(`${provider}_refresh_${randomUUID()}`) });
    }

    if (request.method === "GET" && routes.user.includes(path)) {
      const bearer = (request.headers.authorization ?? "").replace(/^Bearer /, "");
      const token = tokens.get(bearer);
      if (token?.provider !== provider) return unauthorized(provider, response);
      if (provider === "notion" && request.headers["notion-version"] === undefined) {
        return json(response, 400, {
          object: "error",
          status: 400,
          code: "missing_version",
          message: "Notion-Version header failed validation: Notion-Version header should be defined, instead was `undefined`.",
        });
      }
      const answer = token.answers[path];
      if (answer === undefined) return json(response, 404, { message: "Not Found" });
      if (provider === "facebook") {
        const proof = createHmac("sha256", secret).update(bearer).digest("hex");
        if (url.searchParams.get("appsecret_proof") !== proof) {
          return json(response, 400, {
            error: { message: "Invalid appsecret_proof provided in the API argument", type: "GraphMethodException", code: 100 },
          });
        }
        const fields = url.searchParams.get("fields")?.split(",") ?? FACEBOOK_DEFAULT_FIELDS;
        const profile = answer as Record<string, unknown>;
        return json(response, 200, Object.fromEntries(Object.entries(profile).filter(([key]) => key === "id" || fields.includes(key))));
      }
      return json(response, 200, answer);
    }
    return json(response, 404, { message: "Not Found" });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  const baseUrl = (provider: GroupAProvider) => `${origin}/${provider}${ROUTES[provider].base}`;
  return {
    origin,
    clientId,
    secret,
    baseUrl,
    endpoint: (provider, kind) => `${baseUrl(provider)}${ROUTES[provider][kind]}`,
    setUser: (provider, answers) => {
      for (const path of Object.keys(answers)) {
        if (!ROUTES[provider].user.includes(path)) throw new Error(`${provider} has no user endpoint ${path}`);
      }
      users.set(provider, answers);
    },
    calls,
    callsOf: (provider, from = 0) => calls.slice(from).filter((c) => c.provider === provider),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
