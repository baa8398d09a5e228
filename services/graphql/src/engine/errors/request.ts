/**
 * Errors of a GraphQL request as a whole: its HTTP body, the choice of operation, and the
 * validation of the document against the role's schema. Paths are Hasura's (`$.query`,
 * `$.selectionSet.author.args`), statuses 400 unless said.
 */
import { englishList } from "./english-list.js";
import { type HasuraCode, HasuraError } from "./hasura-error.js";

// --- The HTTP body (server/src-lib/Hasura/Server/App.hs; GQLReq's parser in
// server/src-lib/Hasura/GraphQL/Transport/HTTP/Protocol.hs).

/** A body that is not JSON at all. */
export function invalidJson(): HasuraError {
  return new HasuraError("invalid-json", "invalid json", "$", 400);
}

/** A /v1/graphql body that is JSON but neither a request object nor a batch of them. */
export function notARequestBody(): HasuraError {
  return new HasuraError("invalid-json", "expecting an object or an array of objects", "$");
}

/** Any route the server does not have (App.hs answers every unknown path this way). */
export function resourceNotFound(): HasuraError {
  return new HasuraError("not-found", "resource does not exist", "$", 404);
}

/** A request with neither `query` nor a persisted query hash (Protocol.hs). */
export function queryKeyMissing(): HasuraError {
  return new HasuraError("bad-request", "the key 'query' was not present", "$");
}

/** `extensions.persistedQuery` sent to a server without Automatic Persisted Queries (Protocol.hs). */
export function persistedQueriesNotEnabled(): HasuraError {
  return new HasuraError("not-supported", "Automatic Persisted Queries is not enabled", "$");
}

/** A query text that does not parse: the parser's own message when there is one. */
export function queryParseFailed(reason = "not a valid graphql query"): HasuraError {
  return new HasuraError("validation-failed", reason, "$.query");
}

/**
 * Input nested past what the engine walks (`_and` inside `_and` hundreds deep): refused before
 * anything recurses into it. Hasura has no such limit; its parsers recurse as ours would.
 */
export function nestedTooDeeply(variable: string, max: number): HasuraError {
  return new HasuraError("validation-failed", `the value of variable "${variable}" is nested deeper than ${max} levels`, "$");
}

// --- The operation to run (`getSingleOperation` in Protocol.hs; server/src-lib/Hasura/GraphQL/Execute.hs
// and Transport/HTTP.hs).

/** `operationName` names no operation of the document, or is absent with several operations. */
export function operationNotFound(operationName?: string): HasuraError {
  return new HasuraError(
    "validation-failed",
    operationName
      ? `no such operation found in the document: "${operationName}"`
      : "exactly one operation has to be present in the document when operationName is not specified",
    "$",
  );
}

/** A mutation for a role that has no mutation root (Execute.hs). */
export function noMutations(): HasuraError {
  return new HasuraError("validation-failed", "no mutations exist", "$");
}

/** A subscription for a role that has no subscription root: no table it may read (Execute.hs). */
export function noSubscriptions(): HasuraError {
  return new HasuraError("validation-failed", "no subscriptions exist", "$");
}

/** A subscription sent to /v1/graphql over HTTP (Transport/HTTP.hs). */
export function subscriptionOverHttp(): HasuraError {
  return new HasuraError("validation-failed", "subscriptions are not supported over HTTP, use websockets instead", "$");
}

/** A subscription to a root field that is not served over subscriptions (yet): actions' results. */
export function subscriptionFieldNotSupported(kind: string): HasuraError {
  return new HasuraError("not-supported", `subscriptions to this root field (${kind}) are not supported`, "$");
}

/** Several root fields in a subscription without `@_multiple_top_level_fields` (server/src-lib/Hasura/GraphQL/Execute.hs). */
export function subscriptionRootFields(): HasuraError {
  return new HasuraError("validation-failed", "subscriptions must select one top level field", "$");
}

/** `__typename`, `__schema` or `__type` as a subscription's root field (server/src-lib/Hasura/GraphQL/Execute.hs). */
export function subscriptionIntrospection(): HasuraError {
  return new HasuraError("not-supported", "Introspection at root field level is not supported over subscriptions", "$");
}

/** A stream beside other root fields: each stream has its own cursor, so it is served alone. */
export function streamNotAlone(): HasuraError {
  return new HasuraError("not-supported", "exactly one root field is allowed for streaming subscriptions", "$");
}

/** A stream's cursor that is not one cursor of one column (server/src-lib/Hasura/GraphQL/Schema/SubscriptionStream.hs). */
export function streamCursorInvalid(message: string, path: string): HasuraError {
  return new HasuraError("validation-failed", message, path);
}

/** A root field only subscriptions serve (the `_stream` fields), asked for in a query. */
export function subscriptionOnlyField(field: string, path: string): HasuraError {
  return new HasuraError("not-supported", `"${field}" is only available in subscriptions`, path);
}

/** A non-null variable without value or default (`resolveVariables` in server/src-lib/Hasura/GraphQL/Execute/Resolve.hs). */
export function missingVariable(name: string): HasuraError {
  return new HasuraError("validation-failed", `expecting a value for non-nullable variable: "${name}"`, "$");
}

/** A request stopped because its client went away; not Hasura's (it has no cancellation), answered as unexpected. */
export function requestCancelled(reason: unknown): HasuraError {
  return new HasuraError("unexpected", "the request was cancelled", "$", 500, { internal: { error: { message: String(reason) } } });
}

// --- Validation of the document (server/src-lib/Hasura/GraphQL/Parser/Internal/Parser.hs and
// Internal/Input.hs, Directives.hs; fragment cycles in server/src-lib/Hasura/GraphQL/Execute/Inline.hs).

/** A field or input field the type does not have (single quotes around both, as Hasura's fixtures show). */
export function fieldNotFound(field: string, type: string, path = "$"): HasuraError {
  return new HasuraError("validation-failed", `field '${field}' not found in type: '${type}'`, path);
}

/** A required input field left out; the path ends with the field's name. */
export function missingRequiredField(field: string, path: string): HasuraError {
  return new HasuraError("validation-failed", `missing required field '${field}'`, path);
}

/** An argument the field does not take; Hasura points at the field, not at the argument. */
export function unknownArgument(field: string, argument: string, path: string): HasuraError {
  return new HasuraError("validation-failed", `'${field}' has no argument named '${argument}'`, path);
}

export function unknownDirective(name: string, path: string): HasuraError {
  return new HasuraError("validation-failed", `directive "${name}" is not defined in the schema`, path);
}

export function repeatedDirective(name: string, path: string): HasuraError {
  return new HasuraError("validation-failed", `the following directives are used more than once: ${name}`, path);
}

/** Hasura's words for graphql-js's DirectiveLocation names. */
const LOCATIONS: Record<string, string> = {
  QUERY: "a query",
  MUTATION: "a mutation",
  SUBSCRIPTION: "a subscription",
  FIELD: "a field",
  FRAGMENT_DEFINITION: "a fragment definition",
  FRAGMENT_SPREAD: "a fragment spread",
  INLINE_FRAGMENT: "an inline fragment",
  VARIABLE_DEFINITION: "a variable definition",
};

/** A directive used where it may not be; `location` is graphql-js's DirectiveLocation (`QUERY`, `FIELD`...). */
export function misplacedDirective(name: string, location: string, path: string): HasuraError {
  return new HasuraError(
    "validation-failed",
    `directive "${name}" is not allowed on ${LOCATIONS[location] ?? location.toLowerCase()}`,
    path,
  );
}

/** Fragments that spread each other, named from the one met again. */
export function fragmentCycle(names: readonly string[], path: string): HasuraError {
  return new HasuraError("validation-failed", `the fragment definition(s) ${englishList(names)} form a cycle`, path);
}

/** An error of our own validation rules, worded as Hasura's already (carried in the GraphQLError's extensions). */
export function ruleError(code: HasuraCode, message: string, path: string): HasuraError {
  return new HasuraError(code, message, path);
}

/** A variable used where its declared type does not fit (typeCheck in server/src-lib/Hasura/GraphQL/Parser/Internal/TypeChecking.hs). */
export function variableTypeMismatch(name: string, declared: string, expected: string, path = "$"): HasuraError {
  return new HasuraError(
    "validation-failed",
    `variable '${name}' is declared as '${declared}', but used where '${expected}' is expected`,
    path,
  );
}

/** A graphql-js validation message without a Hasura wording of ours, passed through as it is. */
export function validationFailed(message: string, path: string): HasuraError {
  return new HasuraError("validation-failed", message, path);
}
