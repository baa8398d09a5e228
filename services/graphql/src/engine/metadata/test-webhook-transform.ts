/**
 * test_webhook_transform (https://hasura.io/docs/latest/api-reference/metadata-api/manage-metadata/#metadata-test-webhook-transform):
 * the request a request transform makes of a sample, without sending it, as Hasura's
 * runTestWebhookTransform answers it (server/src-lib/Hasura/RQL/DDL/Metadata.hs):
 * `{webhook_url, method, headers, body}`. `{{VAR}}` in the URL and the headers' values are read
 * from the sample `env` only, never the engine's environment. As in Hasura, the sample request
 * is a GET with the body and headers given, and a transform that fails is answered as a failed
 * validation with its errors in `internal`.
 */
import { sampleEnvMissing, sampleWebhookEnvMissing, transformValidationFailed } from "../errors/index.js";
import { resolveTemplate } from "../remote/env-template.js";
import { jsonOrNull, requestContext, TransformFailure, transformRequest } from "../transforms/apply.js";
import { argsObject, at, isObject, type Json, parseFailed, requireKey } from "./args.js";
import { ARGS, type Operation } from "./edit.js";
import { checkTransforms } from "./transform-checks.js";

/** `{{VAR}}` replaced from the sample environment as a handler's URL is from the real one, with Hasura's refusal for a missing one. */
const fromSampleEnv = (text: string, env: Record<string, string>) => resolveTemplate(text, env, sampleEnvMissing);

function stringRecord(value: unknown, path: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isObject(value) || !Object.values(value).every((v) => typeof v === "string"))
    throw parseFailed("expected an object of strings", path);
  return value as Record<string, string>;
}

function headerPairs(value: unknown, path: string): Array<[string, string]> {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || !value.every((h) => Array.isArray(h) && h.length === 2 && h.every((x) => typeof x === "string")))
    throw parseFailed("expected an array of [name, value] pairs", path);
  return value as Array<[string, string]>;
}

export const testWebhookTransform: Operation = (metadata, raw) => {
  const args = argsObject(raw, ARGS);
  const env = stringRecord(args.env, at(ARGS, "env"));
  const session =
    args.session_variables === undefined || args.session_variables === null
      ? null
      : stringRecord(args.session_variables, at(ARGS, "session_variables"));
  const webhook = requireKey(args, "webhook_url", ARGS);
  let url: string;
  if (typeof webhook === "string") url = fromSampleEnv(webhook, env);
  else if (isObject(webhook) && typeof webhook.from_env === "string") {
    const value = env[webhook.from_env];
    if (value === undefined) throw sampleWebhookEnvMissing();
    url = value;
  } else throw parseFailed("expected a URL or {from_env}", at(ARGS, "webhook_url"));
  const body = requireKey(args, "body", ARGS) as Json;
  requireKey(args, "request_transform", ARGS);
  const { request: transform } = checkTransforms(args, ARGS);
  const headers = headerPairs(args.request_headers, at(ARGS, "request_headers")).map(([n, v]): [string, string] => [
    n,
    fromSampleEnv(v, env),
  ]);
  try {
    new URL(url);
  } catch {
    throw transformValidationFailed("request", [
      { error_code: "Request Initialization Error", message: `InvalidUrlException "${url}" "Invalid URL"` },
    ]);
  }
  const original = { method: "GET", url, headers, body: JSON.stringify(body) };
  try {
    const sent = transform ? transformRequest(transform, original, requestContext(original, body as never, session)) : original;
    const decoded = jsonOrNull(sent.body);
    return {
      metadata,
      result: {
        webhook_url: sent.url,
        method: sent.method,
        headers: sent.headers.map(([name, value]) => [name.toLowerCase(), value]),
        // A form-encoded body is answered as a string, as Hasura decodes it.
        body: decoded === null && sent.body ? sent.body : decoded,
      },
    };
  } catch (error) {
    if (error instanceof TransformFailure) throw transformValidationFailed("request", error.errors);
    throw error;
  }
};
