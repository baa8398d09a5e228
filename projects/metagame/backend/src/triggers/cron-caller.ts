/**
 * The cron targets check their caller, as Hasura's docs advise for scheduled triggers
 * (https://hasura.io/docs/latest/scheduled-triggers/create-cron-trigger/: add a header whose
 * value comes from an environment variable, and check it in the webhook). The metadata's cron
 * triggers send `x-metagame-cron-secret` from METAGAME_CRON_SECRET; a call without it, or with
 * another value, is refused (401), and with no secret configured every cron call is (403).
 */
import { timingSafeEqual } from "node:crypto";
import type { IncomingHttpHeaders } from "node:http";
import { errors } from "../errors.js";

export const CRON_SECRET_HEADER = "x-metagame-cron-secret";

function same(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

export function checkCronCaller(headers: IncomingHttpHeaders, secret: string | undefined): void {
  if (!secret) throw errors.forbidden("cron targets are closed: METAGAME_CRON_SECRET is not set");
  const given = headers[CRON_SECRET_HEADER];
  if (typeof given !== "string" || !same(given, secret)) throw errors.unauthorized(`missing or wrong ${CRON_SECRET_HEADER} header`);
}
