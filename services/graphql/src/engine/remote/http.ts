/**
 * One POST to a remote schema, as Hasura's execRemoteGQ sends it
 * (server/src-lib/Hasura/GraphQL/RemoteServer.hs): the URL from `url` (`{{ENV}}` templates
 * resolved) or `url_from_env`; headers by priority configured > the session's variables >
 * the client's (when `forward_client_headers`; never its `x-hasura-*` ones nor the common ones
 * Hasura drops, mkClientHeadersForward in server/src-lib/Hasura/Server/Utils.hs), with
 * `X-Forwarded-Host/User-Agent/Origin` and a JSON Content-Type; `timeout_seconds` to answer.
 * A failure to reach the remote or a timeout is Hasura's http_exception.
 */

import {
  remoteHeaderEnvMissing,
  remoteHttpException,
  remoteUrlEnvMissing,
  remoteUrlFromEnvInvalid,
  remoteUrlTemplateInvalid,
} from "../errors/index.js";
import { PostFailure, type PostResult, postJson } from "../executors/http-post.js";
import { forwardableHeaders } from "../request/client-headers.js";
import { VERSION } from "../version.js";
import { resolveTemplate } from "./env-template.js";
import type { RemoteSchemaDefinition } from "./types.js";

export type Env = Record<string, string | undefined>;

const SHOWN = new Set(["Content-Type", "User-Agent"]);

function validUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    // Not a URL at all: the caller answers with Hasura's message.
    return false;
  }
}

/** The URL to call and how Hasura names it in errors (the template or the variable, never the resolved URL). */
export function remoteUrl(definition: RemoteSchemaDefinition, env: Env): { url: string; label: string } {
  if (definition.urlFromEnv !== null) {
    const url = env[definition.urlFromEnv];
    if (url === undefined) throw remoteUrlEnvMissing(definition.urlFromEnv);
    if (!validUrl(url)) throw remoteUrlFromEnvInvalid(definition.urlFromEnv);
    return { url, label: definition.urlFromEnv };
  }
  const template = definition.url ?? "";
  const url = resolveTemplate(template, env, remoteUrlEnvMissing);
  if (!validUrl(url)) throw remoteUrlTemplateInvalid(template);
  return { url, label: template };
}

/** Who is calling: the session's variables (with `x-hasura-role`) and the client's headers, lower-case names. */
export interface RemoteCaller {
  sessionVariables: Record<string, string>;
  clientHeaders: Record<string, string>;
}

/** The headers sent: configured ones win over the session's, which win over the client's. */
export function remoteHeaders(definition: RemoteSchemaDefinition, env: Env, caller: RemoteCaller): Record<string, string> {
  const byName = new Map<string, [string, string]>();
  const add = (name: string, value: string) => byName.set(name.toLowerCase(), [name, value]);
  if (definition.forwardClientHeaders) for (const [name, value] of forwardableHeaders(caller.clientHeaders)) add(name, value);
  for (const [name, value] of Object.entries(caller.sessionVariables)) add(name, value);
  for (const header of definition.headers) {
    if (header.valueFromEnv === undefined) add(header.name, header.value ?? "");
    else {
      const value = env[header.valueFromEnv];
      if (value === undefined) throw remoteHeaderEnvMissing(header.valueFromEnv);
      add(header.name, value);
    }
  }
  add("Content-Type", "application/json");
  add("User-Agent", `hasura-graphql-engine/${VERSION}`);
  return Object.fromEntries(byName.values());
}

/** POSTs `body`; a remote that cannot be reached or answers too late is Hasura's http_exception. */
export async function postToRemote(
  definition: RemoteSchemaDefinition,
  env: Env,
  caller: RemoteCaller,
  body: string,
  signal?: AbortSignal,
): Promise<PostResult> {
  const { url, label } = remoteUrl(definition, env);
  const headers = remoteHeaders(definition, env, caller);
  try {
    return await postJson(url, headers, body, { timeoutMs: definition.timeoutSeconds * 1000, signal });
  } catch (error) {
    if (!(error instanceof PostFailure)) throw error;
    const target = new URL(url);
    const secure = target.protocol === "https:";
    throw remoteHttpException(label, {
      type: "http_exception",
      message: error.timedOut ? "Response timeout" : `Connection failure: ${error.message}`,
      request: {
        host: target.hostname,
        method: "POST",
        path: target.pathname,
        port: Number(target.port || (secure ? 443 : 80)),
        queryString: target.search,
        // Values of configured and forwarded headers may be secrets: only their names are reported.
        requestHeaders: Object.fromEntries(Object.entries(headers).map(([n, v]) => [n, SHOWN.has(n) ? v : "<REDACTED>"])),
        responseTimeout: `ResponseTimeoutMicro ${definition.timeoutSeconds * 1_000_000}`,
        secure,
      },
    });
  }
}
