/**
 * GraphQL validation of a document against a role's schema, as Hasura validates it, cached per
 * (role, query): graphql-js's rules minus NoUnusedVariables (Hasura accepts variables an
 * operation does not use), with our own rules where Hasura words the error differently: literal
 * values checked as Hasura parses them (coercion-rule.ts), unknown fields and arguments, unknown,
 * misplaced or repeated directives, and fragment cycles (validation-rules.ts).
 */
import {
  type DocumentNode,
  FieldsOnCorrectTypeRule,
  type GraphQLError,
  type GraphQLSchema,
  KnownArgumentNamesRule,
  KnownDirectivesRule,
  KnownTypeNamesRule,
  NoFragmentCyclesRule,
  NoUnusedVariablesRule,
  SingleFieldSubscriptionsRule,
  specifiedRules,
  UniqueDirectivesPerLocationRule,
  type ValidationRule,
  ValuesOfCorrectTypeRule,
  VariablesInAllowedPositionRule,
  validate,
} from "graphql";
import type { HasuraError } from "../errors/index.js";
import { HasuraValuesRule } from "./coercion-rule.js";
import { Lru } from "./lru.js";
import { toHasuraError } from "./validation-errors.js";
import {
  HasuraArgumentsRule,
  HasuraDirectivesRule,
  HasuraFieldsRule,
  HasuraFragmentCyclesRule,
  HasuraKnownTypeNamesRule,
  HasuraVariablesInAllowedPositionRule,
} from "./validation-rules.js";

const REPLACED = new Map<unknown, ValidationRule | null>([
  [NoUnusedVariablesRule, null],
  // Hasura counts a subscription's root fields when it plans it, and words the error its own way
  // (executors/subscription.ts); `@_multiple_top_level_fields` lifts the rule there.
  [SingleFieldSubscriptionsRule, null],
  [ValuesOfCorrectTypeRule, HasuraValuesRule],
  [FieldsOnCorrectTypeRule, HasuraFieldsRule],
  [KnownArgumentNamesRule, HasuraArgumentsRule],
  [KnownDirectivesRule, HasuraDirectivesRule],
  [UniqueDirectivesPerLocationRule, null],
  [NoFragmentCyclesRule, HasuraFragmentCyclesRule],
  [KnownTypeNamesRule, HasuraKnownTypeNamesRule],
  [VariablesInAllowedPositionRule, HasuraVariablesInAllowedPositionRule],
]);
const RULES = specifiedRules.flatMap((rule) => {
  const replacement = REPLACED.get(rule);
  return replacement === undefined ? [rule] : replacement === null ? [] : [replacement];
});

export class Validator {
  private readonly cache = new Lru<HasuraError | true>(4000, 1_000_000, 32_000);

  /** Throws the first validation error of `document` on `schema`, as Hasura reports it; `key` names the pair for the cache. */
  check(schema: GraphQLSchema, document: DocumentNode, key: string): void {
    let valid = this.cache.get(key);
    if (!valid) {
      const errors = validate(schema, document, RULES);
      valid = errors.length > 0 ? toHasuraError(errors[0] as GraphQLError, document) : true;
      this.cache.set(key, valid);
    }
    if (valid !== true) throw valid;
  }
}
