/**
 * The body POSTed to a remote schema for one of its root fields, as Hasura's buildExecStepRemote
 * builds it (server/src-lib/Hasura/GraphQL/Execute/Remote.hs): an operation of the request's kind,
 * named as the request's operation, with the definitions of the variables the field uses and the
 * field alone; `variables` only when there are any, and the request's `operationName`. The
 * query is laid out as Hasura lays it out (query-text.ts): the remote's error locations point
 * into that text.
 */
import { type DocumentNode, Kind, OperationTypeNode } from "graphql";
import { jsonText } from "../json/number.js";
import type { RemoteCall } from "../plan/types.js";
import { queryText } from "./query-text.js";

/** The request body: the operation with the one field, its variables and the operation's name. */
export function remoteRequest(operation: "query" | "mutation", call: RemoteCall): string {
  const document: DocumentNode = {
    kind: Kind.DOCUMENT,
    definitions: [
      {
        kind: Kind.OPERATION_DEFINITION,
        operation: operation === "mutation" ? OperationTypeNode.MUTATION : OperationTypeNode.QUERY,
        ...(call.operationName ? { name: { kind: Kind.NAME, value: call.operationName } } : {}),
        variableDefinitions: call.variables,
        selectionSet: { kind: Kind.SELECTION_SET, selections: [call.field] },
      },
    ],
  };
  return jsonText({
    query: queryText(document),
    ...(Object.keys(call.values).length > 0 ? { variables: call.values } : {}),
    ...(call.operationName ? { operationName: call.operationName } : {}),
  });
}
