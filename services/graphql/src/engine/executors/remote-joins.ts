/**
 * Remote relationships' joins (https://hasura.io/docs/2.0/remote-schemas/remote-relationships/remote-schema-relationships/):
 * the statement put each row's lhs columns at the relationship's key; here the answers of root
 * fields holding remote relationships are read, every row's lhs values gathered per relationship
 * node (rows at any depth: lists, object and array relationships, aggregates' nodes, actions'
 * outputs), and each node asks its remote once for all of its distinct values
 * (remote/join-request.ts). Each row then gets its answer in place of the lhs object; a row whose
 * lhs has a null gets null without a call, as Hasura's join skips null arguments
 * (server/src-lib/Hasura/GraphQL/Execute/RemoteJoin/Join.hs).
 */
import { remoteJoinErrors, remoteSchemaError } from "../errors/index.js";
import { jsonText } from "../json/number.js";
import { parseJsonBody } from "../json/parse.js";
import type { AggregateNode, MutationField, OutputField, QueryField, RemoteJoinNode, RowField } from "../plan/types.js";
import { postToRemote } from "../remote/http.js";
import { joinAlias, joinRequest } from "../remote/join-request.js";
import { withSessionPresets } from "../remote/session-presets.js";
import { type RemoteCallContext, renameTypenames } from "./remote.js";

type JsonObject = Record<string, unknown>;

const isObject = (value: unknown): value is JsonObject => value !== null && typeof value === "object" && !Array.isArray(value);

const eachObject = (value: unknown, f: (o: JsonObject) => void) => {
  if (Array.isArray(value)) for (const v of value) eachObject(v, f);
  else if (isObject(value)) f(value);
};

/** The remote relationship nodes under row fields, at any depth. */
function rowsNodes(fields: readonly RowField[], out: RemoteJoinNode[]): RemoteJoinNode[] {
  for (const f of fields) {
    if (f.kind === "remote_rel") out.push(f);
    else if (f.kind === "object_rel") rowsNodes(f.fields, out);
    else if (f.kind === "array_rel" || f.kind === "computed_table") rowsNodes(f.rows.fields, out);
    else if (f.kind === "array_rel_aggregate") aggregateNodes(f.aggregate, out);
  }
  return out;
}

function aggregateNodes(node: AggregateNode, out: RemoteJoinNode[]): RemoteJoinNode[] {
  for (const f of node.fields) if (f.kind === "nodes") rowsNodes(f.fields, out);
  return out;
}

function outputNodes(fields: readonly OutputField[] | null, out: RemoteJoinNode[]): RemoteJoinNode[] {
  for (const f of fields ?? []) {
    if (f.kind === "output_field") outputNodes(f.fields, out);
    else if (f.kind === "object_rel") rowsNodes(f.fields, out);
    else if (f.kind === "array_rel") rowsNodes(f.rows.fields, out);
    else if (f.kind === "array_rel_aggregate") aggregateNodes(f.aggregate, out);
  }
  return out;
}

/** The remote relationship nodes of a root field's answer. */
export function remoteJoinNodes(field: QueryField): RemoteJoinNode[] {
  switch (field.kind) {
    case "select":
    case "select_stream":
    case "function":
      return rowsNodes(field.rows.fields, []);
    case "select_by_pk":
      return rowsNodes(field.fields, []);
    case "select_aggregate":
    case "function_aggregate":
      return aggregateNodes(field.aggregate, []);
    case "action":
      return outputNodes(field.fields, []);
    default:
      return [];
  }
}

/** Whether a root field's answer holds remote relationships to join. */
export const hasRemoteJoins = (field: QueryField): boolean => remoteJoinNodes(field).length > 0;

/** Whether a mutation field's answer holds remote relationships to join. */
function mutationJoins(field: MutationField): boolean {
  if (field.kind === "function") return rowsNodes(field.rows.fields, []).length > 0;
  if (!("output" in field)) return false;
  const { output } = field;
  return output.kind === "row"
    ? rowsNodes(output.fields, []).length > 0
    : output.fields.some((f) => f.kind === "returning" && rowsNodes(f.fields, []).length > 0);
}

/** A remote relationship node's calls: each distinct set of lhs values (its alias number), and the rows waiting for them. */
interface NodeSites {
  ids: Map<string, number>;
  calls: Array<{ id: number; lhs: JsonObject }>;
  rows: Array<{ row: JsonObject; id: number }>;
}

/**
 * The rows holding each remote relationship node's lhs objects. Each distinct set of lhs values is
 * numbered as Hasura numbers its join arguments: in the order the answer is read, one count for
 * all the joins of a root field (collectJoinArguments in
 * server/src-lib/Hasura/GraphQL/Execute/RemoteJoin/Join.hs). A row whose lhs has a null gets null
 * at once, without a call.
 */
class Sites {
  readonly byNode = new Map<RemoteJoinNode, NodeSites>();
  private counter = 0;

  /** A root field's answer starts its own count. */
  startRoot(): void {
    this.counter = 0;
  }

  private site(node: RemoteJoinNode, row: JsonObject): void {
    const lhs = row[node.key];
    if (!isObject(lhs) || Object.values(lhs).some((v) => v === null || v === undefined)) {
      row[node.key] = null;
      return;
    }
    let sites = this.byNode.get(node);
    if (!sites) {
      sites = { ids: new Map(), calls: [], rows: [] };
      this.byNode.set(node, sites);
    }
    const key = jsonText(lhs);
    let id = sites.ids.get(key);
    if (id === undefined) {
      id = this.counter++;
      sites.ids.set(key, id);
      sites.calls.push({ id, lhs });
    }
    sites.rows.push({ row, id });
  }

  rows(fields: readonly RowField[], value: unknown): void {
    eachObject(value, (row) => {
      for (const f of fields) {
        const v = row[f.key];
        if (f.kind === "remote_rel") this.site(f, row);
        else if (f.kind === "object_rel") this.rows(f.fields, v);
        else if (f.kind === "array_rel" || f.kind === "computed_table") this.rows(f.rows.fields, v);
        else if (f.kind === "array_rel_aggregate") this.aggregate(f.aggregate, v);
      }
    });
  }

  aggregate(node: AggregateNode, value: unknown): void {
    eachObject(value, (object) => {
      for (const f of node.fields) if (f.kind === "nodes") this.rows(f.fields, object[f.key]);
    });
  }

  output(fields: readonly OutputField[] | null, value: unknown): void {
    eachObject(value, (object) => {
      for (const f of fields ?? []) {
        const v = object[f.key];
        if (f.kind === "output_field") this.output(f.fields, v);
        else if (f.kind === "object_rel") this.rows(f.fields, v);
        else if (f.kind === "array_rel") this.rows(f.rows.fields, v);
        else if (f.kind === "array_rel_aggregate") this.aggregate(f.aggregate, v);
      }
    });
  }

  mutation(field: MutationField, value: unknown): void {
    if (field.kind === "function") {
      this.rows(field.rows.fields, value);
      return;
    }
    if (!("output" in field)) return;
    const { output } = field;
    if (output.kind === "row") {
      this.rows(output.fields, value);
      return;
    }
    // update_many answers a list of responses.
    eachObject(value, (response) => {
      for (const f of output.fields) if (f.kind === "returning") this.rows(f.fields, response[f.key]);
    });
  }

  root(field: QueryField, value: unknown): void {
    if (field.kind === "select" || field.kind === "function") this.rows(field.rows.fields, value);
    else if (field.kind === "select_by_pk") this.rows(field.fields, value);
    else if (field.kind === "select_aggregate" || field.kind === "function_aggregate") this.aggregate(field.aggregate, value);
    else if (field.kind === "action") this.output(field.fields, value);
  }
}

/** The value at `field` of an answer, through lists. */
function pick(value: unknown, field: string): unknown {
  if (Array.isArray(value)) return value.map((v) => pick(v, field));
  return isObject(value) ? (value[field] ?? null) : null;
}

/** The node with the values of the request's variables it sends (those the request gave). */
function withRequestValues(node: RemoteJoinNode, variables: Readonly<Record<string, unknown>> | undefined): RemoteJoinNode {
  const values: Record<string, unknown> = {};
  for (const def of node.variables) {
    const name = def.variable.name.value;
    const value = variables?.[name];
    if (value !== undefined) values[name] = value;
  }
  return { ...node, values: { ...values, ...node.values } };
}

/** One call for every row of `node`: each row's lhs object replaced by its answer. */
async function join(node: RemoteJoinNode, sites: NodeSites, context: RemoteCallContext): Promise<void> {
  const session = context.compile.session;
  const caller = { sessionVariables: { ...session.variables, "x-hasura-role": session.role }, clientHeaders: context.clientHeaders };
  const remote = node.rel.remote;
  const request = joinRequest(withSessionPresets(withRequestValues(node, context.variables), session.variables), sites.calls);
  const response = await postToRemote(remote.definition, context.env, caller, request, context.signal);
  let answer: unknown;
  try {
    answer = parseJsonBody(response.text);
  } catch (error) {
    throw remoteSchemaError(`Error in $: ${(error as Error).message}`);
  }
  if (!isObject(answer)) throw remoteSchemaError("expecting an object for the remote's response");
  if (answer.errors !== undefined && answer.errors !== null) throw remoteJoinErrors(answer.errors);
  const data = answer.data;
  if (!isObject(data)) throw remoteSchemaError('"data" field not found in remote response');
  const typenames = node.typenames.get(node.rel.field.name);
  for (const { row, id } of sites.rows) {
    let value: unknown = data[joinAlias(id)] ?? null;
    for (const step of node.rel.path.slice(1)) value = pick(value, step.field);
    row[node.key] = typenames instanceof Map ? renameTypenames(value, typenames, remote.customizer) : value;
  }
}

/** The answers (JSON text) with the remote relationships `visit` finds joined; `values` when there are none. */
async function joined(
  values: string[],
  joins: (i: number) => boolean,
  visit: (sites: Sites, i: number, value: unknown) => void,
  context: RemoteCallContext,
): Promise<string[]> {
  const sites = new Sites();
  const parsed = new Map<number, unknown>();
  values.forEach((text, i) => {
    if (!joins(i)) return;
    const value = parseJsonBody(text);
    parsed.set(i, value);
    sites.startRoot();
    visit(sites, i, value);
  });
  if (parsed.size === 0) return values;
  await Promise.all([...sites.byNode].map(([node, nodeSites]) => join(node, nodeSites, context)));
  return values.map((text, i) => (parsed.has(i) ? jsonText(parsed.get(i)) : text));
}

/**
 * The answers of `fields` (JSON text, in order) with their remote relationships joined: one call
 * per relationship node for the whole request, the nodes' calls at the same time.
 */
export function joinRemoteRelationships(fields: QueryField[], values: string[], context: RemoteCallContext): Promise<string[]> {
  const at = (i: number) => fields[i] as QueryField;
  return joined(
    values,
    (i) => hasRemoteJoins(at(i)),
    (sites, i, value) => sites.root(at(i), value),
    context,
  );
}

/** The same for the answers of a mutation's database fields, once their transaction has committed. */
export function joinMutationRemoteRelationships(fields: MutationField[], values: string[], context: RemoteCallContext): Promise<string[]> {
  const at = (i: number) => fields[i] as MutationField;
  return joined(
    values,
    (i) => mutationJoins(at(i)),
    (sites, i, value) => sites.mutation(at(i), value),
    context,
  );
}
