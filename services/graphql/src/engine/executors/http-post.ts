/**
 * POSTing JSON to a handler over node's own HTTP client, with pooled keep-alive connections. Not
 * fetch: Hasura reports a handler's response headers with their names as sent (`Content-Type`),
 * which fetch lower-cases, and sends its own User-Agent (`hasura-graphql-engine/<version>`).
 */
import { type ClientRequest, Agent as HttpAgent, request as httpRequest, type IncomingMessage, type RequestOptions } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { urlToHttpOptions } from "node:url";
import { VERSION } from "../version.js";

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };
const USER_AGENT = `hasura-graphql-engine/${VERSION}`;

/** A handler URL as node's client reads it (what `request(new URL(url))` derives), with its agent. */
interface Target {
  secure: boolean;
  options: RequestOptions;
}

/**
 * Targets by URL text: a handler is called with the same URL again and again, and parsing it
 * (`new URL`, then node's urlToHttpOptions inside `request`) is a measurable part of a call.
 * Bounded: URLs come from metadata and the environment, so a few; dropped wholesale past the bound.
 */
const targets = new Map<string, Target>();
const MAX_TARGETS = 256;

function targetOf(url: string): Target | PostFailure {
  let target = targets.get(url);
  if (target) return target;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch (error) {
    return new PostFailure(`invalid URL: ${url}`, false, { cause: error });
  }
  const secure = parsed.protocol === "https:";
  if (!secure && parsed.protocol !== "http:") return new PostFailure(`unsupported protocol: ${parsed.protocol}`, false);
  // Only what node's client reads of the URL: the rest of urlToHttpOptions (href, search, ...) would be copied on every call.
  const { protocol, hostname, port, path, auth } = urlToHttpOptions(parsed);
  const options: RequestOptions = { protocol, hostname, port, path, method: "POST", agent: secure ? agents.https : agents.http };
  if (auth !== undefined) options.auth = auth;
  target = { secure, options };
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
}

export interface PostResult {
  status: number;
  /** Header names as the server sent them, in order. */
  headers: Array<[string, string]>;
  text: string;
}

/** Why a POST failed before an answer came: the handler's time ran out, or the connection failed. */
export class PostFailure extends Error {
  constructor(
    message: string,
    readonly timedOut: boolean,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "PostFailure";
  }
}

function pairs(raw: string[]): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (let i = 0; i + 1 < raw.length; i += 2) out.push([raw[i] as string, raw[i + 1] as string]);
  return out;
}

export interface PostOptions {
  timeoutMs: number;
  signal?: AbortSignal | undefined;
  /** Keeps at most this many bytes of the answer's body; the rest is not read. */
  maxResponseBytes?: number | undefined;
}

/** The headers every call starts from (a request transform may remove them). */
const DEFAULT_HEADERS: Readonly<Record<string, string>> = Object.freeze({ "User-Agent": USER_AGENT });

/** POSTs `body`; rejects with a PostFailure (or the signal's reason when it aborts first). */
export function postJson(url: string, headers: Record<string, string>, body: string, options: PostOptions): Promise<PostResult> {
  return sendHttp(url, "POST", { ...DEFAULT_HEADERS, ...headers }, body, options);
}

/** The request postJson sends, as a request transform starts from it. */
export function postRequest(url: string, headers: Record<string, string>, body: string): HttpRequest {
  return { method: "POST", url, headers: [...Object.entries(DEFAULT_HEADERS), ...Object.entries(headers)], body };
}

/** A request as a request transform shapes it (transforms/apply.ts). */
export interface HttpRequest {
  method: string;
  url: string;
  /** Names as sent, in order (a name may appear twice, as after `add_headers`). */
  headers: Array<[string, string]>;
  /** The body's text, or null for none. */
  body: string | null;
}

/** Sends a request a transform made. */
export function sendRequest(request: HttpRequest, options: PostOptions): Promise<PostResult> {
  return sendHttp(request.url, request.method, headerRecord(request.headers), request.body, options);
}

/** Headers as node's client takes them: a name given twice (any case) is sent twice. */
function headerRecord(headers: Array<[string, string]>): Record<string, string | string[]> {
  const byName = new Map<string, [string, string[]]>();
  for (const [name, value] of headers) {
    const entry = byName.get(name.toLowerCase());
    if (entry) entry[1].push(value);
    else byName.set(name.toLowerCase(), [name, [value]]);
  }
  return Object.fromEntries([...byName.values()].map(([name, values]) => [name, values.length === 1 ? (values[0] as string) : values]));
}

/**
 * Sends a request with exactly these headers (and Content-Length when there is a body), as a
 * request transform shapes it: any method, no body, or a body of any type.
 */
export function sendHttp(
  url: string,
  method: string,
  headers: Record<string, string | string[]>,
  body: string | null,
  options: PostOptions,
): Promise<PostResult> {
  return new Promise((resolve, reject) => {
    const target = targetOf(url);
    if (target instanceof PostFailure) {
      reject(target);
      return;
    }
    const send = target.secure ? httpsRequest : httpRequest;
    const requestOptions: RequestOptions = {
      ...target.options,
      method,
      headers: body === null ? headers : { ...headers, "Content-Length": Buffer.byteLength(body) },
    };
    let current: ClientRequest | undefined;
    let settled = false;
    const finish = (error: unknown, result?: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      if (error) reject(error);
      else resolve(result as PostResult);
    };
    const timer = setTimeout(() => {
      current?.destroy();
      finish(new PostFailure("Response timeout", true));
    }, options.timeoutMs);
    const onAbort = () => {
      current?.destroy();
      finish(options.signal?.reason);
    };
    options.signal?.addEventListener("abort", onAbort, { once: true });
    const attempt = (mayRetry: boolean) => {
      let request: ClientRequest;
      try {
        request = send(requestOptions);
      } catch (error) {
        // A method or header node refuses to send (a request transform's `method`, a header value
        // holding a line break): an HTTP exception, as Hasura's client reports one, not a fault.
        finish(new PostFailure((error as Error).message, false, { cause: error }));
        return;
      }
      current = request;
      let answered = false;
      request.on("error", (error: NodeJS.ErrnoException) => {
        // A pooled connection the server closed while it was idle fails as soon as it is reused,
        // before the request reaches the server: it is sent once more on a new connection
        // (https://nodejs.org/api/http.html#requestreusedsocket). Hasura's HTTP client does the
        // same (http-client, Network/HTTP/Client/Core.hs, httpRaw: "Connection was reused, and
        // might have been closed. Try again").
        if (mayRetry && !answered && !settled && request.reusedSocket && (error.code === "ECONNRESET" || error.code === "EPIPE"))
          attempt(false);
        else finish(new PostFailure(error.message, false, { cause: error }));
      });
      request.on("response", (response: IncomingMessage) => {
        answered = true;
        const chunks: Buffer[] = [];
        let size = 0;
        const done = () =>
          finish(null, {
            status: response.statusCode ?? 0,
            headers: pairs(response.rawHeaders),
            text: Buffer.concat(chunks).toString("utf8"),
          });
        response.on("data", (c: Buffer) => {
          const limit = options.maxResponseBytes;
          if (limit !== undefined && size + c.length > limit) {
            chunks.push(c.subarray(0, limit - size));
            size = limit;
            done();
            response.destroy();
            return;
          }
          chunks.push(c);
          size += c.length;
        });
        response.on("error", (error) => finish(new PostFailure(error.message, false, { cause: error })));
        response.on("end", done);
      });
      if (body === null) request.end();
      else request.end(body);
    };
    attempt(true);
  });
}
