/** GraphQL scalars and the shared input/enum types every role's schema uses. */
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInt,
  GraphQLScalarType,
  GraphQLString,
  valueFromASTUntyped,
} from "graphql";

const BUILT_IN: Record<string, GraphQLScalarType> = {
  Int: GraphQLInt,
  Float: GraphQLFloat,
  String: GraphQLString,
  Boolean: GraphQLBoolean,
  ID: GraphQLID,
};

/** A Postgres-named scalar (`uuid`, `jsonb`, `timestamptz`, ...): any JSON value in, Postgres' JSON out. */
function customScalar(name: string, description: string | null): GraphQLScalarType {
  return new GraphQLScalarType({
    name,
    ...(description ? { description } : {}),
    serialize: (value) => value,
    parseValue: (value) => value,
    parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
  });
}

export class ScalarRegistry {
  private readonly custom = new Map<string, GraphQLScalarType>();

  /** The scalar named `name`; `description` is used when it is first made (an action's custom scalar). */
  get(name: string, description: string | null = null): GraphQLScalarType {
    const builtIn = BUILT_IN[name];
    if (builtIn) return builtIn;
    let scalar = this.custom.get(name);
    if (!scalar) {
      scalar = customScalar(name, description);
      this.custom.set(name, scalar);
    }
    return scalar;
  }
}

export const orderByEnum = new GraphQLEnumType({
  name: "order_by",
  description: "column ordering options",
  values: {
    asc: { value: "asc", description: "in ascending order, nulls last" },
    asc_nulls_first: { value: "asc_nulls_first", description: "in ascending order, nulls first" },
    asc_nulls_last: { value: "asc_nulls_last", description: "in ascending order, nulls last" },
    desc: { value: "desc", description: "in descending order, nulls first" },
    desc_nulls_first: { value: "desc_nulls_first", description: "in descending order, nulls first" },
    desc_nulls_last: { value: "desc_nulls_last", description: "in descending order, nulls last" },
  },
});

export const cursorOrderingEnum = new GraphQLEnumType({
  name: "cursor_ordering",
  description: "ordering argument of a cursor",
  values: {
    ASC: { value: "ASC", description: "ascending ordering of the cursor" },
    DESC: { value: "DESC", description: "descending ordering of the cursor" },
  },
});
