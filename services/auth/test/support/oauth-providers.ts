/**
 * Identity providers for the external sign-in suites, on 127.0.0.1 at random ports:
 * - an OpenID Connect provider (oauth2-mock-server: discovery, keys, an authorize endpoint that
 *   answers at once with a code, a token endpoint issuing signed ID tokens), standing in for
 *   Google, Apple and Azure through their EXTERNAL_<X>_TEST_ISSUER;
 * - stand-ins of GitHub's and GitLab's OAuth 2.0 and user APIs (the paths and answer shapes of
 *   github.com / api.github.com under /api/v3, and of gitlab.com), reached through
 *   EXTERNAL_<X>_URL as GoTrue's own tests reach theirs.
 * `browse` follows a sign-in's redirects as a browser would, posting Apple's form_post callback.
 */
import { createHmac, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { GoTrueClient } from "@supabase/auth-js";
import { OAuth2Server } from "oauth2-mock-server";

export interface OidcProvider {
  issuer: string;
  server: OAuth2Server;
  /** Claims every ID token carries next (sub, email, email_verified, ...); reset with {}. */
  setClaims(claims: Record<string, unknown>): void;
  /** Mints an ID token with the provider's key (for grant_type=id_token). */
  idToken(claims: Record<string, unknown>): Promise<string>;
  close(): Promise<void>;
}

export async function startOidcProvider(): Promise<OidcProvider> {
  const server = new OAuth2Server();
  await server.issuer.keys.generate("RS256");
  await server.start(0, "127.0.0.1");
  const issuer = server.issuer.url as string;
  let claims: Record<string, unknown> = {};
  server.service.on("beforeTokenSigning", (token: { payload: Record<string, unknown> }) => {
    // The ID token is the one with an audience (the access token has none).
    if (token.payload.aud !== undefined) Object.assign(token.payload, claims);
  });
  return {
    issuer,
    server,
    setClaims: (next) => {
      claims = next;
    },
    idToken: (values) =>
      server.issuer.buildToken({
        scopesOrTransform: (_header: unknown, payload: Record<string, unknown>) => Object.assign(payload, values),
      }),
    close: () => server.stop(),
  };
}

export interface StandInUser {
  id: number;
  login: string;
  name: string;
  email: string;
  /** GitHub's /user/emails, or GitLab's extra addresses. */
  emails: { email: string; verified: boolean; primary: boolean }[];
  /** GitLab: set when the account is confirmed. */
  confirmed?: boolean;
}

export interface ProviderStandIn {
  url: string;
  clientId: string;
  secret: string;
  /** The user the next authorization signs in. */
  setUser(user: StandInUser): void;
  /** How the token endpoint was called, newest last. */
  tokenCalls: { path: string; basic: boolean; body: URLSearchParams; accept: string }[];
  close(): Promise<void>;
}

export async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

export function json(response: ServerResponse, status: number, body: unknown) {
  response.writeHead(status, { "content-type": "application/json" });
  response.end(JSON.stringify(body));
}

/** GitHub and GitLab on one host: each provider's paths are distinct. */
export async function startProviderStandIn(): Promise<ProviderStandIn> {
  // No characters that form-encoding changes: oauth2-mock-server does not decode the Basic credentials.
  const clientId = "standinclient";
  const secret = "stand-in-secret";
  let current: StandInUser | undefined;
  const codes = new Map<string, StandInUser>();
  const tokens = new Map<string, StandInUser>();
  const tokenCalls: ProviderStandIn["tokenCalls"] = [];

  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", "http://stand-in");
      const path = url.pathname;
      if (request.method === "GET" && (path === "/login/oauth/authorize" || path === "/oauth/authorize")) {
        if (url.searchParams.get("client_id") !== clientId || !current) return json(response, 400, { error: "invalid_request" });
        const code = randomUUID();
        codes.set(code, current);
        const back = new URL(url.searchParams.get("redirect_uri") ?? "");
        back.searchParams.set("code", code);
        back.searchParams.set("state", url.searchParams.get("state") ?? "");
        response.writeHead(302, { location: back.toString() });
        return response.end();
      }
      if (request.method === "POST" && (path === "/login/oauth/access_token" || path === "/oauth/token")) {
        const body = new URLSearchParams(await readBody(request));
        const header = request.headers.authorization ?? "";
        const basic = header.startsWith("Basic ");
        tokenCalls.push({ path, basic, body, accept: String(request.headers.accept ?? "") });
        const [id, pass] = basic
          ? Buffer.from(header.slice(6), "base64").toString().split(":")
          : [body.get("client_id"), body.get("client_secret")];
        // GitLab's stand-in takes the credentials in the body only, to exercise the fallback.
        if (path === "/oauth/token" && basic) return json(response, 401, { error: "invalid_client" });
        if (id !== clientId || pass !== secret) return json(response, 401, { error: "invalid_client" });
        const user = codes.get(body.get("code") ?? "");
        if (!user) return json(response, 400, { error: "bad_verification_code" });
        codes.delete(body.get("code") ?? "");
        const token = `gho_${randomUUID()}`;
        tokens.set(token, user);
        const answer = { access_token: token, token_type: "bearer", scope: "user:email", refresh_token: `ghr_${randomUUID()}` };
        // GitHub answers a form unless asked for JSON.
        if (path === "/login/oauth/access_token" && !String(request.headers.accept).includes("json")) {
          response.writeHead(200, { "content-type": "application/x-www-form-urlencoded" });
          return response.end(new URLSearchParams(answer).toString());
        }
        return json(response, 200, answer);
      }
      const user = tokens.get((request.headers.authorization ?? "").replace(/^Bearer /, ""));
      if (!user) return json(response, 401, { message: "Bad credentials" });
      if (path === "/api/v3/user")
        return json(response, 200, {
          id: user.id,
          login: user.login,
          name: user.name,
          email: user.email,
          avatar_url: `https://avatars.example/${user.id}`,
        });
      if (path === "/api/v3/user/emails") return json(response, 200, user.emails);
      if (path === "/api/v4/user") {
        return json(response, 200, {
          id: user.id,
          username: user.login,
          name: user.name,
          email: user.email,
          avatar_url: "",
          confirmed_at: user.confirmed ? "2024-01-01T00:00:00Z" : null,
        });
      }
      if (path === "/api/v4/user/emails")
        return json(
          response,
          200,
          user.emails.map((e, i) => ({ id: i, email: e.email })),
        );
      return json(response, 404, { message: "Not Found" });
    })().catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    clientId,
    secret,
    setUser: (user) => {
      current = user;
    },
    tokenCalls,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Follows redirects from `url` until one leaves for `stopAt` (the app), as a browser would; a
 * redirect to `callback` carrying response_mode=form_post in its authorize URL is posted as a form.
 * Answers the last Location (or the response when one is not a redirect).
 */
export async function browse(url: string, stopAt: string, callback?: string, form: Record<string, string> = {}): Promise<string> {
  let next = url;
  let formPost = false;
  for (let hop = 0; hop < 10; hop++) {
    if (next.startsWith(stopAt)) return next;
    if (new URL(next).searchParams.get("response_mode") === "form_post") formPost = true;
    let response: Response;
    if (formPost && callback && next.startsWith(callback)) {
      const target = new URL(next);
      for (const [key, value] of Object.entries(form)) target.searchParams.set(key, value);
      response = await fetch(`${target.origin}${target.pathname}`, {
        method: "POST",
        redirect: "manual",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: target.searchParams.toString(),
      });
    } else {
      response = await fetch(next, { redirect: "manual" });
    }
    const location = response.headers.get("location");
    if (!location) throw new Error(`${next} answered ${response.status} without a redirect: ${await response.text()}`);
    next = new URL(location, next).toString();
  }
  throw new Error("too many redirects");
}

export interface TwitterStandIn {
  url: string;
  key: string;
  secret: string;
  setUser(user: { id: string; screenName: string; name: string; email: string }): void;
  /** Requests refused because their OAuth 1.0a signature did not check out. */
  badSignatures: number;
  close(): Promise<void>;
}

/** RFC 5849 section 3.6 percent-encoding. */
const rfc3986 = (text: string) => encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/** Checks an OAuth 1.0a HMAC-SHA1 signature as a provider does (RFC 5849 sections 3.4.1 and 3.4.2), written here independently of the service's signer. */
function signatureValid(method: string, url: URL, header: string, body: URLSearchParams, consumerSecret: string, tokenSecret: string) {
  const oauth = new Map<string, string>();
  for (const match of header.replace(/^OAuth\s+/, "").matchAll(/([a-z_]+)="([^"]*)"/g)) {
    oauth.set(decodeURIComponent(match[1] as string), decodeURIComponent(match[2] as string));
  }
  const signature = oauth.get("oauth_signature") ?? "";
  const pairs: [string, string][] = [...oauth].filter(([k]) => k !== "oauth_signature" && k !== "realm");
  pairs.push(...url.searchParams, ...body);
  const normalized = pairs
    .map(([k, v]) => [rfc3986(k), rfc3986(v)] as const)
    .sort(([ak, av], [bk, bv]) => (ak === bk ? (av < bv ? -1 : 1) : ak < bk ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join("&");
  const base = [method, rfc3986(`${url.origin}${url.pathname}`), rfc3986(normalized)].join("&");
  const expected = createHmac("sha1", `${rfc3986(consumerSecret)}&${rfc3986(tokenSecret)}`)
    .update(base)
    .digest("base64");
  return { valid: expected === signature, oauth };
}

/** Twitter's OAuth 1.0a endpoints and verify_credentials, checking every signature. */
export async function startTwitterStandIn(): Promise<TwitterStandIn> {
  const key = "twitterkey";
  const secret = "twitter-consumer-secret";
  let current = { id: "1", screenName: "tweety", name: "Tweety", email: "" };
  const requestTokens = new Map<string, { callback: string; verifier: string }>();
  const accessTokens = new Map<string, { secret: string; user: typeof current }>();
  const standIn: TwitterStandIn = {
    url: "",
    key,
    secret,
    setUser: (user) => {
      current = user;
    },
    badSignatures: 0,
    close: async () => undefined,
  };
  const form = (response: ServerResponse, values: Record<string, string>) => {
    response.writeHead(200, { "content-type": "application/x-www-form-urlencoded" });
    response.end(new URLSearchParams(values).toString());
  };
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? "/", standIn.url);
      const body = new URLSearchParams(await readBody(request));
      const header = request.headers.authorization ?? "";
      const check = (tokenSecret: string) => {
        const result = signatureValid(request.method ?? "GET", url, header, body, secret, tokenSecret);
        if (!result.valid || result.oauth.get("oauth_consumer_key") !== key) {
          standIn.badSignatures += 1;
          return undefined;
        }
        return result.oauth;
      };
      if (request.method === "POST" && url.pathname === "/oauth/request_token") {
        const oauth = check("");
        if (!oauth?.get("oauth_callback")) return json(response, 401, { errors: [{ code: 32, message: "Could not authenticate you." }] });
        const token = `rt${randomUUID().replaceAll("-", "")}`;
        requestTokens.set(token, { callback: oauth.get("oauth_callback") as string, verifier: randomUUID() });
        return form(response, { oauth_token: token, oauth_token_secret: "request-secret", oauth_callback_confirmed: "true" });
      }
      if (request.method === "GET" && url.pathname === "/oauth/authenticate") {
        const pending = requestTokens.get(url.searchParams.get("oauth_token") ?? "");
        if (!pending) return json(response, 400, { error: "unknown request token" });
        const back = new URL(pending.callback);
        back.searchParams.set("oauth_token", url.searchParams.get("oauth_token") as string);
        back.searchParams.set("oauth_verifier", pending.verifier);
        response.writeHead(302, { location: back.toString() });
        return response.end();
      }
      if (request.method === "POST" && url.pathname === "/oauth/access_token") {
        const oauth = check("");
        const pending = requestTokens.get(oauth?.get("oauth_token") ?? "");
        if (!oauth || !pending || pending.verifier !== oauth.get("oauth_verifier")) return json(response, 401, { errors: [{ code: 89 }] });
        requestTokens.delete(oauth.get("oauth_token") as string);
        const token = `at${randomUUID().replaceAll("-", "")}`;
        const tokenSecret = randomUUID();
        accessTokens.set(token, { secret: tokenSecret, user: current });
        return form(response, {
          oauth_token: token,
          oauth_token_secret: tokenSecret,
          user_id: current.id,
          screen_name: current.screenName,
        });
      }
      if (request.method === "GET" && url.pathname === "/1.1/account/verify_credentials.json") {
        const token = /oauth_token="([^"]*)"/.exec(header)?.[1] ?? "";
        const access = accessTokens.get(decodeURIComponent(token));
        if (!access || !check(access.secret) || url.searchParams.get("include_email") !== "true") {
          return json(response, 401, { errors: [{ code: 89 }] });
        }
        const { user } = access;
        return json(response, 200, {
          id_str: user.id,
          screen_name: user.screenName,
          name: user.name,
          email: user.email,
          profile_image_url_https: `https://pbs.example/${user.id}.jpg`,
        });
      }
      return json(response, 404, { errors: [{ code: 34 }] });
    })().catch((error: unknown) => json(response, 500, { message: String(error) }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  standIn.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.close = () => new Promise((resolve) => server.close(() => resolve()));
  return standIn;
}

/** A browser's auth-js client keeping its session and PKCE verifier in memory. */
export function browserClient(url: string, flowType: "implicit" | "pkce"): GoTrueClient {
  const items = new Map<string, string>();
  return new GoTrueClient({
    url,
    flowType,
    autoRefreshToken: false,
    persistSession: true,
    storageKey: `oauth-${randomUUID()}`,
    storage: {
      getItem: (key: string) => items.get(key) ?? null,
      setItem: (key: string, value: string) => void items.set(key, value),
      removeItem: (key: string) => void items.delete(key),
    },
  });
}

/** The parameters of a redirect's fragment and of its query. */
export const fragment = (location: string) => new URLSearchParams(new URL(location).hash.slice(1));
export const query = (location: string) => new URLSearchParams(new URL(location).search);
