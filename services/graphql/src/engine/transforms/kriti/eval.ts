/**
 * The evaluator of Kriti templates, with Kriti's semantics and error messages
 * (https://github.com/hasura/kriti-lang, src/Kriti/Eval.hs): a missing variable or field is an
 * error unless looked up optionally (`$body?.a.b` is null as soon as a step is missing); `??`
 * replaces null; `if` needs a boolean; `range` an array; `in` looks for a key in an object or a
 * value in an array; comparisons order values of different kinds as Aeson does (object < array
 * < string < number < boolean < null). In a string template, strings are inserted as they are
 * and other values as JSON.
 *
 * Evaluation is bounded: every node evaluated counts one step, and a template (say a range
 * inside a range over a request's arrays) that takes more than `maxSteps` steps fails with
 * `LimitErrorCode` instead of growing without limit.
 */

import { jsonKind } from "../../json/kind.js";
import { JsonNumber, jsonText } from "../../json/number.js";
import { KritiError, type Span } from "./errors.js";
import type { Field, Node } from "./parser.js";

/** A JSON value; a number JavaScript cannot hold exactly is a JsonNumber keeping its digits. */
export type Json = null | boolean | number | JsonNumber | string | Json[] | { [key: string]: Json };
export type KritiFunction = (value: Json) => Json;

/** A function's refusal: becomes a `FunctionErrorCode` error at the call. */
export class KritiFunctionError extends Error {}

export interface EvalOptions {
  /** Kriti's basic functions, then the caller's own (which win on a clash). */
  basic: Record<string, KritiFunction>;
  functions: Record<string, KritiFunction>;
  maxSteps: number;
}

const isObject = (value: Json): value is { [key: string]: Json } =>
  typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber);

/** An integer as a bigint, or null for a number with a fraction or an exponent. */
function exactInteger(value: number | JsonNumber): bigint | null {
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : null;
  return /^-?\d+$/.test(value.text) ? BigInt(value.text) : null;
}

/** A number as a double (a JsonNumber's nearest one), for comparisons. */
export const numeric = (value: number | JsonNumber): number => (typeof value === "number" ? value : Number(value.text));

export const typeName = (value: Json): string => (value instanceof JsonNumber ? "Number" : jsonKind(value));

const RANK: Record<string, number> = { Object: 0, Array: 1, String: 2, Number: 3, Boolean: 4, Null: 5 };

/** Aeson's derived order on values: by kind first, then by content. */
export function compare(a: Json, b: Json): number {
  const [ta, tb] = [typeName(a), typeName(b)];
  if (ta !== tb) return (RANK[ta] ?? 0) - (RANK[tb] ?? 0);
  if (ta === "Number") {
    // Integers compare exactly, however long; other numbers as doubles.
    const [i, j] = [exactInteger(a as number | JsonNumber), exactInteger(b as number | JsonNumber)];
    if (i !== null && j !== null) return i === j ? 0 : i < j ? -1 : 1;
    const [x, y] = [numeric(a as number | JsonNumber), numeric(b as number | JsonNumber)];
    return x === y ? 0 : x < y ? -1 : 1;
  }
  if (typeof a === "boolean") return a === b ? 0 : !a ? -1 : 1;
  if (typeof a === "string") return a === b ? 0 : a < (b as string) ? -1 : 1;
  if (Array.isArray(a)) {
    const other = b as Json[];
    for (let i = 0; i < Math.min(a.length, other.length); i++) {
      const c = compare(a[i] as Json, other[i] as Json);
      if (c !== 0) return c;
    }
    return a.length - other.length;
  }
  if (isObject(a) && isObject(b)) {
    const pairs = (o: { [key: string]: Json }): Json =>
      Object.keys(o)
        .sort()
        .map((k) => [k, o[k] as Json]);
    return compare(pairs(a), pairs(b));
  }
  return 0;
}

export const equal = (a: Json, b: Json): boolean => compare(a, b) === 0;

const encode = (value: Json): string => (typeof value === "string" ? value : jsonText(value));

function typeError(span: Span, value: Json, expected: string): KritiError {
  return new KritiError("TypeErrorCode", `Couldn't match expected type '${expected}' with actual type '${typeName(value)}'`, span);
}

function lookup(target: Json, key: Json, span: Span, targetSpan: Span): Json {
  if (isObject(target)) {
    if (typeof key !== "string") throw typeError(targetSpan, target, "String");
    if (!Object.hasOwn(target, key)) throw new KritiError("AttributeErrorCode", `'Object' has no attribute '${key}'.`, span);
    return target[key] as Json;
  }
  if (Array.isArray(target)) {
    if (typeof key !== "number" || !Number.isInteger(key)) throw typeError(span, key, "Integer");
    if (key < 0 || key >= target.length) throw new KritiError("IndexErrorCode", "Index out of range", span);
    return target[key] as Json;
  }
  throw typeError(targetSpan, target, "Object");
}

function step(value: Json, key: Json): Json | undefined {
  if (isObject(value) && typeof key === "string") return Object.hasOwn(value, key) ? value[key] : undefined;
  if (Array.isArray(value) && typeof key === "number" && Number.isInteger(key)) return key >= 0 ? value[key] : undefined;
  return undefined;
}

class Evaluation {
  steps = 0;

  constructor(
    private readonly bindings: Record<string, Json>,
    private readonly options: EvalOptions,
  ) {}

  field(key: Field, scope: Map<string, Json>): Json {
    return typeof key === "string" ? key : this.run(key, scope);
  }

  run(node: Node, scope: Map<string, Json>): Json {
    const { options } = this;
    if (++this.steps > options.maxSteps)
      throw new KritiError("LimitErrorCode", `The template needs more than ${options.maxSteps} evaluation steps.`, node.span);
    switch (node.k) {
      case "string":
      case "number":
      case "bool":
        return node.value;
      case "null":
        return null;
      case "template":
        return node.parts.map((part) => encode(this.run(part, scope))).join("");
      case "array":
        return node.items.map((item) => this.run(item, scope));
      case "object": {
        const out: { [key: string]: Json } = {};
        // As in Kriti, the first of two fields with one name is kept.
        for (const [key, value] of node.fields) if (!Object.hasOwn(out, key)) out[key] = this.run(value, scope);
        return out;
      }
      case "var": {
        if (scope.has(node.name)) return scope.get(node.name) as Json;
        if (Object.hasOwn(this.bindings, node.name)) return this.bindings[node.name] as Json;
        throw new KritiError("NameErrorCode", `Variable '${node.name}' not in scope`, node.span);
      }
      case "field":
        return lookup(this.run(node.target, scope), this.field(node.key, scope), node.span, node.target.span);
      case "optional": {
        let value: Json;
        try {
          value = this.run(node.target, scope);
        } catch (error) {
          if (error instanceof KritiError && error.code !== "LimitErrorCode") value = null;
          else throw error;
        }
        const path = node.path.map((key) => this.field(key, scope));
        if (value === null) return null;
        if (!isObject(value) && !Array.isArray(value)) throw typeError(node.target.span, value, "Object");
        let current: Json | undefined = value;
        for (const key of path) {
          current = step(current, key);
          if (current === undefined) return null;
        }
        return current;
      }
      case "if": {
        for (const [condition, then] of node.branches) {
          const test = this.run(condition, scope);
          if (typeof test !== "boolean") throw typeError(condition.span, test, "Boolean");
          if (test) return this.run(then, scope);
        }
        return this.run(node.otherwise, scope);
      }
      case "range": {
        const over = this.run(node.over, scope);
        if (!Array.isArray(over)) throw typeError(node.span, over, "Array");
        return over.map((item, i) => {
          const inner = new Map(scope).set(node.binder, item);
          if (node.index !== null) inner.set(node.index, i);
          return this.run(node.body, inner);
        });
      }
      case "call": {
        const arg = this.run(node.arg, scope);
        const own = (table: Record<string, KritiFunction>) => (Object.hasOwn(table, node.name) ? table[node.name] : undefined);
        const fn = own(options.functions) ?? own(options.basic);
        if (!fn) throw new KritiError("NameErrorCode", `Variable '${node.name}' not in scope`, node.span);
        try {
          return fn(arg);
        } catch (error) {
          if (error instanceof KritiFunctionError) throw new KritiError("FunctionErrorCode", error.message, node.arg.span);
          throw error;
        }
      }
      case "binary":
        return this.binary(node, scope);
    }
  }

  binary(node: Extract<Node, { k: "binary" }>, scope: Map<string, Json>): Json {
    const left = this.run(node.left, scope);
    if (node.op === "??") return left === null ? this.run(node.right, scope) : left;
    const right = this.run(node.right, scope);
    switch (node.op) {
      case "==":
        return equal(left, right);
      case "!=":
        return !equal(left, right);
      case "<":
        return compare(left, right) < 0;
      case ">":
        return compare(left, right) > 0;
      case "<=":
        return compare(left, right) <= 0;
      case ">=":
        return compare(left, right) >= 0;
      case "&&":
      case "||":
        if (typeof left !== "boolean") throw typeError(node.span, left, "Boolean");
        if (typeof right !== "boolean") throw typeError(node.span, right, "Boolean");
        return node.op === "&&" ? left && right : left || right;
      case "in":
        if (isObject(right)) {
          if (typeof left !== "string") throw typeError(node.span, left, "String");
          return Object.hasOwn(right, left);
        }
        if (Array.isArray(right)) return right.some((item) => equal(item, left));
        throw typeError(node.span, right, "Array");
    }
  }
}

export function evaluate(template: Node, bindings: Record<string, Json>, options: EvalOptions): Json {
  return new Evaluation(bindings, options).run(template, new Map());
}
