/**
 * The introspection executor: a query with `__schema` or `__type` has its data fields compiled
 * and run as any query's, then graphql-js answers the whole operation on the role's schema, the
 * data fields' JSON as the root value.
 */
import { type DocumentNode, execute, type GraphQLError, type GraphQLSchema } from "graphql";
import type { Variables } from "../plan/values.js";
import { toHasuraError } from "../request/validation-errors.js";

export async function answerWithIntrospection(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
  variables: Variables,
  /** The response keys of the data fields, and their JSON texts. */
  keys: string[],
  results: string[],
): Promise<string> {
  const rootValue: Record<string, unknown> = {};
  keys.forEach((key, i) => {
    rootValue[key] = JSON.parse(results[i] ?? "null");
  });
  const result = await execute({
    schema,
    document,
    rootValue,
    variableValues: variables,
    ...(operationName ? { operationName } : {}),
    fieldResolver: (source, _args, _ctx, info) => (source as Record<string, unknown> | null)?.[info.path.key as string],
  });
  if (result.errors && result.errors.length > 0) throw toHasuraError(result.errors[0] as GraphQLError, document);
  return JSON.stringify({ data: result.data });
}
