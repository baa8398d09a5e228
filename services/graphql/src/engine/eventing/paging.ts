/**
 * `limit` and `offset` of the commands that list events and invocations: non-negative integers,
 * the limit capped so that no request reads an unbounded number of rows.
 */
import { type Json, parseFailed } from "../metadata/args.js";
import { ARGS } from "../metadata/edit.js";

/** The most rows one listing answers. */
export const MAX_LIMIT = 100_000;

export function paging(
  args: Json,
  { limitKey = "limit", offsetKey = "offset", defaultLimit = 100 } = {},
): { limit: number; offset: number } {
  const read = (key: string, fallback: number, max: number) => {
    const value = args[key];
    if (value === undefined || value === null) return fallback;
    if (typeof value !== "number" || !Number.isInteger(value) || value < 0)
      throw parseFailed(`${key} must be a non-negative integer`, ARGS);
    return Math.min(value, max);
  };
  return { limit: read(limitKey, defaultLimit, MAX_LIMIT), offset: read(offsetKey, 0, Number.MAX_SAFE_INTEGER) };
}
