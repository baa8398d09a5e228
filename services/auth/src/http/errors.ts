/**
 * GoTrue's two error body shapes (internal/api/errors.go), chosen by the request's
 * X-Supabase-Api-Version: legacy `{code: <status>, error_code, msg}` and 2024-01-01
 * `{code: <error_code>, message}`. OAuth-style errors are `{error, error_description}` in both.
 */
import { STATUS_CODES } from "node:http";
import type { AppError } from "@platform/core";
import type { FastifyError, FastifyRequest } from "fastify";
import { AuthError, errors } from "../domain/errors.js";

export const API_VERSION_HEADER = "x-supabase-api-version";
export const API_VERSION_2024 = "2024-01-01";
export const MAX_BODY_BYTES = 1024 * 1024;

/** "2024-01-01" when the request asks for that version or a later one; undefined for the legacy shape. */
export function requestedApiVersion(request: FastifyRequest): string | undefined {
  const raw = request.headers[API_VERSION_HEADER];
  if (typeof raw !== "string" || !/^\d{4}-\d{2}-\d{2}$/.test(raw)) return undefined;
  const date = new Date(`${raw}T00:00:00Z`);
  if (Number.isNaN(date.getTime()) || date.toISOString().slice(0, 10) !== raw) return undefined;
  return raw >= API_VERSION_2024 ? API_VERSION_2024 : undefined;
}

export function renderError(error: AppError, request: FastifyRequest) {
  const details = error instanceof AuthError ? error.details : undefined;
  if (details?.oauth) return { status: 400, body: { error: details.oauth.error, error_description: details.oauth.description } };
  const modern = requestedApiVersion(request) !== undefined;
  const body: Record<string, unknown> = modern
    ? { code: error.code, message: error.message }
    : { code: error.status, error_code: error.code, msg: error.message, ...(error.status >= 500 ? { error_id: request.id } : {}) };
  if (details?.weakPassword) body.weak_password = { reasons: details.weakPassword.reasons };
  return { status: error.status, body, headers: { "x-sb-error-code": error.code } };
}

const UNEXPECTED = "Unexpected failure, please check server logs for more information";

export function renderInternal(id: string, request: FastifyRequest) {
  return requestedApiVersion(request) !== undefined
    ? { code: "unexpected_failure", message: UNEXPECTED }
    : { code: 500, error_code: "unexpected_failure", msg: UNEXPECTED, error_id: id };
}

/** Fastify's own errors in GoTrue's terms: schema mismatches read as bad JSON, as Go's decoder reports them. */
export function mapFrameworkError(error: FastifyError): AppError | undefined {
  if (error.code === "FST_ERR_CTP_BODY_TOO_LARGE") return errors.bodyTooLarge(MAX_BODY_BYTES);
  if (error.validation) {
    const first = error.validation[0];
    const where = `${error.validationContext ?? "body"}${first?.instancePath ?? ""}`;
    return errors.badJson(`${where} ${first?.message ?? "is invalid"}`);
  }
  if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY" || error.code === "FST_ERR_CTP_EMPTY_JSON_BODY") return errors.badJson();
  const status = error.statusCode;
  if (status !== undefined && status >= 400 && status < 500) {
    return new AuthError(status, status === 404 ? "not_found" : "validation_failed", STATUS_CODES[status] ?? "Bad Request");
  }
  return undefined;
}
