/** GraphQL types from a TypeRef (a type as metadata or a remote's introspection writes it). */
import { GraphQLList, GraphQLNonNull, type GraphQLType } from "graphql";
import type { TypeRef } from "../model/types.js";

/** The type `type` describes, its named type made by `named`. */
export function wrappedType(type: TypeRef, named: (name: string) => GraphQLType): GraphQLType {
  const inner = type.kind === "named" ? named(type.name) : new GraphQLList(wrappedType(type.of, named));
  return type.nullable ? inner : new GraphQLNonNull(inner);
}
