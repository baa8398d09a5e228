/**
 * Fastify validator compiler for the routes' JSON schemas that coerces query and path values
 * the way FastAPI/pydantic did for the original and reports failures in FastAPI's shape:
 * `{"detail": [{"type", "loc", "msg", "input", "ctx"?}]}` with status 422.
 */
import type { FastifySchemaCompiler } from "fastify";
import { errors, type ValidationItem } from "../domain/errors.js";

export interface ParamSchema {
  type: "integer" | "number" | "boolean" | "string" | "array";
  default?: unknown;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  items?: { type: "string" };
  description?: string;
  /** Documentation only: the handlers check these values themselves (400, as the original). */
  enum?: readonly string[];
  /** Documentation only: the handler parses it (422 with its own message, as the original). */
  format?: "date-time";
}

export interface ObjectSchema {
  type: "object";
  properties: Record<string, ParamSchema>;
  /** Missing -> 422 from validation. */
  required?: readonly string[];
  /** Required too, but a missing value reaches the handler, which answers it (documented as required). */
  checkedByHandler?: readonly string[];
}

/** Integers are exact in JSON and JS up to 2^53 - 1; beyond that the original failed in its driver. */
const INT_MAX = BigInt(Number.MAX_SAFE_INTEGER);
const INT_MIN = BigInt(Number.MIN_SAFE_INTEGER);
const TRUE = new Set(["1", "on", "t", "true", "y", "yes"]);
const FALSE = new Set(["0", "off", "f", "false", "n", "no"]);
const FLOAT = /^[+-]?(\d+\.?\d*([eE][+-]?\d+)?|\.\d+([eE][+-]?\d+)?|inf|infinity|nan)$/i;

type Outcome = { value: unknown } | { error: Omit<ValidationItem, "loc"> };

/** pydantic's key order: type, loc, msg, input, ctx. */
function item(error: Omit<ValidationItem, "loc">, loc: ValidationItem["loc"]): ValidationItem {
  const { type, msg, input, ctx } = error;
  return ctx === undefined ? { type, loc, msg, input } : { type, loc, msg, input, ctx };
}

function bound(kind: "ge" | "le", limit: number, input: unknown): Outcome {
  const ge = kind === "ge";
  return {
    error: {
      type: ge ? "greater_than_equal" : "less_than_equal",
      msg: `Input should be ${ge ? "greater" : "less"} than or equal to ${limit}`,
      input,
      ctx: { [kind]: limit },
    },
  };
}

function coerce(schema: ParamSchema, raw: string): Outcome {
  switch (schema.type) {
    case "integer": {
      const text = raw.trim();
      if (!/^[+-]?\d+$/.test(text)) {
        return { error: { type: "int_parsing", msg: "Input should be a valid integer, unable to parse string as an integer", input: raw } };
      }
      const big = BigInt(text);
      if (schema.minimum !== undefined && big < BigInt(schema.minimum)) return bound("ge", schema.minimum, raw);
      if (schema.maximum !== undefined && big > BigInt(schema.maximum)) return bound("le", schema.maximum, raw);
      if (big > INT_MAX) return bound("le", Number.MAX_SAFE_INTEGER, raw);
      if (big < INT_MIN) return bound("ge", Number.MIN_SAFE_INTEGER, raw);
      return { value: Number(big) };
    }
    case "number": {
      const text = raw.trim();
      if (!FLOAT.test(text)) {
        return { error: { type: "float_parsing", msg: "Input should be a valid number, unable to parse string as a number", input: raw } };
      }
      const lower = text.toLowerCase();
      const value = lower.includes("nan")
        ? Number.NaN
        : lower.includes("inf")
          ? lower.startsWith("-")
            ? -Infinity
            : Infinity
          : Number(lower);
      return { value };
    }
    case "boolean": {
      const key = raw.trim().toLowerCase();
      if (TRUE.has(key)) return { value: true };
      if (FALSE.has(key)) return { value: false };
      return { error: { type: "bool_parsing", msg: "Input should be a valid boolean, unable to interpret input", input: raw } };
    }
    default: {
      if (schema.minLength !== undefined && [...raw].length < schema.minLength) {
        const n = schema.minLength;
        return {
          error: {
            type: "string_too_short",
            msg: `String should have at least ${n} character${n === 1 ? "" : "s"}`,
            input: raw,
            ctx: { min_length: n },
          },
        };
      }
      return { value: raw };
    }
  }
}

/** Validates one part (query or path) of a request against its object schema. */
export function validatePart(
  schema: ObjectSchema,
  data: unknown,
  part: "query" | "path",
): { value: Record<string, unknown> } | { items: ValidationItem[] } {
  const input = (data ?? {}) as Record<string, unknown>;
  const value: Record<string, unknown> = {};
  const items: ValidationItem[] = [];
  const required = new Set(schema.required ?? []);
  for (const [name, property] of Object.entries(schema.properties)) {
    const raw = input[name];
    if (property.type === "array") {
      value[name] = raw === undefined ? [] : Array.isArray(raw) ? raw.map(String) : [String(raw)];
      continue;
    }
    // A repeated scalar parameter takes its last value, as Starlette's query dict does.
    const single = Array.isArray(raw) ? raw[raw.length - 1] : raw;
    if (single === undefined) {
      if (required.has(name)) items.push({ type: "missing", loc: [part, name], msg: "Field required", input: null });
      else value[name] = property.default;
      continue;
    }
    const outcome = coerce(property, String(single));
    if ("error" in outcome) items.push(item(outcome.error, [part, name]));
    else value[name] = outcome.value;
  }
  return items.length > 0 ? { items } : { value };
}

export const validatorCompiler: FastifySchemaCompiler<ObjectSchema> = ({ schema, httpPart }) => {
  const part = httpPart === "params" ? "path" : "query";
  return (data: unknown) => {
    const result = validatePart(schema, data, part);
    return "items" in result ? { error: errors.validation(result.items) } : { value: result.value };
  };
};
