/**
 * The metadata API's check of request and response transforms (create_action, update_action,
 * pg_create_event_trigger, create_cron_trigger, test_webhook_transform), as Hasura's
 * validateTransforms does (server/src-lib/Hasura/RQL/DDL/Webhook/Transform/Validation.hs): a
 * transform of the wrong shape is `parse-failed`; a template that does not parse is
 * `validation-failed` with Kriti's errors in `internal`, the response transform checked first.
 */
import { transformValidationFailed } from "../errors/index.js";
import { parseRequestTransform, parseResponseTransform, type Transforms, transformProblems } from "../transforms/config.js";
import { at, type Json } from "./args.js";

export function checkTransforms(conf: Json, path: string): Transforms {
  const response = parseResponseTransform(conf.response_transform, at(path, "response_transform"));
  const request = parseRequestTransform(conf.request_transform, at(path, "request_transform"));
  const responseProblems = transformProblems(response);
  if (responseProblems.length > 0) throw transformValidationFailed("response", responseProblems);
  const requestProblems = transformProblems(request);
  if (requestProblems.length > 0) throw transformValidationFailed("request", requestProblems);
  return { request, response };
}
