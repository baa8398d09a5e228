/**
 * Kriti templates (https://github.com/hasura/kriti-lang): `compileKriti` parses once (a
 * `KritiError` with `ParseErrorCode` for a bad template), `render` evaluates against named
 * values with Kriti's basic functions and any extra ones.
 */
import { evaluate, type Json, type KritiFunction } from "./eval.js";
import { BASIC_FUNCTIONS } from "./functions.js";
import { type Node, parse } from "./parser.js";

export { KritiError } from "./errors.js";
export { type Json, type KritiFunction, KritiFunctionError } from "./eval.js";
export { escapeUri } from "./functions.js";

/** Evaluation steps one rendering may take (a step is a node of the template evaluated once). */
export const MAX_STEPS = 1_000_000;

export interface KritiTemplate {
  readonly source: string;
  render(bindings: Record<string, Json>, functions?: Record<string, KritiFunction>): Json;
}

export function compileKriti(source: string): KritiTemplate {
  const tree: Node = parse(source);
  return {
    source,
    render: (bindings, functions = {}) => evaluate(tree, bindings, { basic: BASIC_FUNCTIONS, functions, maxSteps: MAX_STEPS }),
  };
}
