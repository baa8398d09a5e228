/**
 * This service as an OAuth 2.0 client of a provider: the code exchange and the calls that read
 * the user. The token request is made by oauth4webapi (client authentication, the form body,
 * the PKCE verifier). Its answer is read as golang.org/x/oauth2 reads it for GoTrue, which real
 * providers rely on: JSON or form-encoded (GitHub without an Accept header), `token_type` optional
 * (LinkedIn and Figma send none), an `error` field a failure even with status 200. Client
 * credentials go as HTTP Basic first and, when the provider refuses that, in the body, which is
 * then remembered for the token endpoint (x/oauth2's AuthStyleAutoDetect); kakao's go in the body
 * from the start.
 */
import * as oauth from "oauth4webapi";
import type { ProviderConfig } from "../../config/providers.js";
import type { Endpoints, ProviderTokens } from "./types.js";

const TIMEOUT_MS = 10_000;
/** The most of a provider's answer that is read; more is refused, not buffered. */
const MAX_ANSWER_BYTES = 1_048_576;

export class ProviderCallError extends Error {}

/** The body of `response`, refused past MAX_ANSWER_BYTES without reading the rest. */
export async function boundedText(response: Response): Promise<string> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > MAX_ANSWER_BYTES) {
    await response.body?.cancel();
    throw new ProviderCallError(`the provider's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
  }
  if (!response.body) return "";
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of response.body as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > MAX_ANSWER_BYTES) throw new ProviderCallError(`the provider's answer is larger than ${MAX_ANSWER_BYTES} bytes`);
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString("utf8");
}

function parseTokenAnswer(contentType: string, body: string): Record<string, unknown> {
  const type = contentType.split(";")[0]?.trim().toLowerCase() ?? "";
  if (type === "application/x-www-form-urlencoded" || type === "text/plain") {
    return Object.fromEntries(new URLSearchParams(body));
  }
  try {
    const parsed: unknown = JSON.parse(body);
    if (parsed !== null && typeof parsed === "object" && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch {
    // Not JSON: reported below as an answer without a token.
  }
  return {};
}

const bodyStyle = new Set<string>();

async function tokenRequest(
  config: ProviderConfig,
  endpoints: Endpoints,
  code: string,
  verifier: string | undefined,
  inBody: boolean,
): Promise<{ ok: boolean; status: number; answer: Record<string, unknown> }> {
  const as: oauth.AuthorizationServer = { issuer: new URL(endpoints.token).origin, token_endpoint: endpoints.token };
  const client: oauth.Client = { client_id: config.clientId ?? "" };
  const secret = config.secret ?? "";
  const auth = inBody ? oauth.ClientSecretPost(secret) : oauth.ClientSecretBasic(secret);
  const parameters = oauth.validateAuthResponse(as, client, new URLSearchParams({ code }), oauth.skipStateCheck);
  const response = await oauth.authorizationCodeGrantRequest(
    as,
    client,
    auth,
    parameters,
    config.redirectUri ?? "",
    verifier ?? oauth.nopkce,
    {
      [oauth.allowInsecureRequests]: true,
      signal: AbortSignal.timeout(TIMEOUT_MS),
    },
  );
  const answer = parseTokenAnswer(response.headers.get("content-type") ?? "", await boundedText(response));
  return { ok: response.ok && answer.error === undefined, status: response.status, answer };
}

export async function exchangeCode(
  config: ProviderConfig,
  endpoints: Endpoints,
  code: string,
  options: { verifier?: string | undefined; credentialsInBody?: boolean | undefined },
): Promise<ProviderTokens> {
  const startInBody = options.credentialsInBody === true || bodyStyle.has(endpoints.token);
  let result = await tokenRequest(config, endpoints, code, options.verifier, startInBody);
  if (!result.ok && !startInBody) {
    const retry = await tokenRequest(config, endpoints, code, options.verifier, true);
    if (retry.ok) bodyStyle.add(endpoints.token);
    result = retry;
  }
  const { answer } = result;
  if (!result.ok) {
    const reason =
      typeof answer.error === "string" ? `${answer.error} ${String(answer.error_description ?? "")}`.trim() : `status ${result.status}`;
    throw new ProviderCallError(`the token endpoint refused the code: ${reason}`);
  }
  if (typeof answer.access_token !== "string" || answer.access_token === "") {
    throw new ProviderCallError("the token endpoint answered without an access_token");
  }
  return {
    accessToken: answer.access_token,
    refreshToken: typeof answer.refresh_token === "string" ? answer.refresh_token : "",
    idToken: typeof answer.id_token === "string" ? answer.id_token : undefined,
    raw: answer,
  };
}

/** GET `url` with the provider's access token; its JSON answer (GoTrue's makeRequest). */
export async function getJson(url: string, tokens: ProviderTokens, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${tokens.accessToken}`, accept: "application/json", ...headers },
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const body = await boundedText(response);
  if (!response.ok) throw new ProviderCallError(`${new URL(url).pathname} answered ${response.status}`);
  try {
    return JSON.parse(body);
  } catch {
    throw new ProviderCallError(`${new URL(url).pathname} did not answer JSON`);
  }
}
