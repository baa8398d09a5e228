/** Email addresses and phone numbers as GoTrue accepts and stores them. */
import { errors } from "./errors.js";

// The WHATWG "valid email address" grammar (what HTML forms accept).
const EMAIL =
  /^[a-zA-Z0-9.!#$%&'*+/=?^_`{|}~-]+@[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?(?:\.[a-zA-Z0-9](?:[a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?)*$/;
const E164 = /^[1-9][0-9]{1,14}$/;

/** The length of GoTrue's varchar(255) columns (users.role, users.aud, ...). */
const VARCHAR_LIMIT = 255;

/** Refuses a value its varchar(255) column cannot hold, naming it as `what`. */
export function checkFitsColumn(what: string, value: string | undefined): void {
  if (value !== undefined && [...value].length > VARCHAR_LIMIT) throw errors.tooLong(what, VARCHAR_LIMIT);
}

/** A valid email address, lower-cased. */
export function normalizeEmail(email: string): string {
  if (email === "") throw errors.validation("An email address is required");
  if (email.length > 255) throw errors.validation("An email address is too long");
  if (!EMAIL.test(email)) throw errors.validation("Unable to validate email address: invalid format");
  return email.toLowerCase();
}

/** Phone numbers are stored as E.164 digits without the `+`. */
export function formatPhone(phone: string): string {
  return phone.replace(/^\+/, "").replaceAll(" ", "");
}

export function normalizePhone(phone: string): string {
  const formatted = formatPhone(phone);
  if (!E164.test(formatted)) throw errors.validation("Invalid phone number format (E.164 required)");
  return formatted;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export const isUuid = (value: unknown): value is string => typeof value === "string" && UUID.test(value);
