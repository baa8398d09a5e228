/** `<Scalar>_comparison_exp` input types. */

import type { GraphQLInputFieldConfigMap } from "graphql";
import { GraphQLBoolean, GraphQLInputObjectType, type GraphQLInputType, GraphQLList, GraphQLNonNull, GraphQLString } from "graphql";
import { arrayColumnList } from "./pg-array.js";

const TEXT_OPS = ["_like", "_nlike", "_ilike", "_nilike", "_similar", "_nsimilar", "_regex", "_nregex", "_iregex", "_niregex"];

export function comparisonType(
  name: string,
  scalar: GraphQLInputType,
  kind: { text: boolean; jsonb: boolean; ordered: boolean },
  jsonbScalar: () => GraphQLInputType,
  /** String_comparison_exp, for `_cast: {String: ...}` on jsonb. */
  stringComparison?: () => GraphQLInputType,
): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${name}_comparison_exp`,
    description: `Boolean expression to compare columns of type "${name}". All fields are combined with logical 'AND'.`,
    fields: () => {
      const list = new GraphQLList(new GraphQLNonNull(scalar));
      const fields: GraphQLInputFieldConfigMap = {
        _eq: { type: scalar },
        _in: { type: list },
        _is_null: { type: GraphQLBoolean },
        _neq: { type: scalar },
        _nin: { type: list },
      };
      if (kind.ordered)
        Object.assign(fields, { _gt: { type: scalar }, _gte: { type: scalar }, _lt: { type: scalar }, _lte: { type: scalar } });
      if (kind.text) for (const op of TEXT_OPS) fields[op] = { type: scalar };
      if (kind.jsonb) {
        Object.assign(fields, {
          _contained_in: { type: jsonbScalar() },
          _contains: { type: jsonbScalar() },
          _has_key: { type: GraphQLString },
          _has_keys_all: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
          _has_keys_any: { type: new GraphQLList(new GraphQLNonNull(GraphQLString)) },
        });
        if (stringComparison) fields._cast = { type: castType(name, { String: stringComparison }) };
      }
      return sortFields(fields);
    },
  });
}

/**
 * `<Scalar>_array_comparison_exp` for array columns (Hasura v2.29+): the operands are arrays of
 * the element scalar, `_in`/`_nin` take lists of arrays, and `_contains`/`_contained_in` are
 * PostgreSQL's `@>`/`<@`. No pattern operators, whatever the element type.
 */
export function arrayComparisonType(name: string, element: GraphQLInputType): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${name}_array_comparison_exp`,
    description: `Boolean expression to compare columns of type "${name}". All fields are combined with logical 'AND'.`,
    fields: () => {
      const array = arrayColumnList(new GraphQLNonNull(element));
      const arrays = new GraphQLList(new GraphQLNonNull(array));
      return sortFields<GraphQLInputFieldConfigMap[string]>({
        _contained_in: { type: array, description: "is the array contained in the given array value" },
        _contains: { type: array, description: "does the array contain the given value" },
        _eq: { type: array },
        _gt: { type: array },
        _gte: { type: array },
        _in: { type: arrays },
        _is_null: { type: GraphQLBoolean },
        _lt: { type: array },
        _lte: { type: array },
        _neq: { type: array },
        _nin: { type: arrays },
      });
    },
  });
}

/** Hasura lists fields alphabetically. */
export function sortFields<T>(fields: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

/** `<Scalar>_cast_exp`: the column compared as another type (`jsonb_cast_exp { String: String_comparison_exp }`). */
function castType(name: string, targets: Record<string, () => GraphQLInputType>): GraphQLInputObjectType {
  return new GraphQLInputObjectType({
    name: `${name}_cast_exp`,
    fields: () => Object.fromEntries(Object.entries(targets).map(([target, type]) => [target, { type: type() }])),
  });
}
