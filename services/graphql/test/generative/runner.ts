/**
 * One generated request through the engine: generated from the role's schema, checked to be
 * valid GraphQL (else the generator is wrong), executed, classified; queries are sometimes run
 * again with other variable values and compared with an engine that has cached nothing.
 */
import { isDeepStrictEqual } from "node:util";
import type { Database, Queryable } from "@platform/core";
import {
  buildClientSchema,
  type GraphQLSchema,
  getIntrospectionQuery,
  getVariableValues,
  type IntrospectionQuery,
  Kind,
  NoUnusedVariablesRule,
  type OperationDefinitionNode,
  parse,
  specifiedRules,
  validate,
} from "graphql";
import type { Engine } from "../../src/engine/execute.js";
import type { RequestGuard } from "../../src/engine/limits/guard.js";
import type { Session } from "../../src/engine/request/session.js";
import { classify, normalise, SLOW_MS } from "./check.js";
import { OperationGenerator } from "./generate.js";
import { Rng } from "./prng.js";
import type { Failure } from "./report.js";
import type { Knowledge } from "./schemas.js";

/** The database with the message of the last statement that failed kept, so a failure can show PostgreSQL's own words. */
export function recordingErrors(db: Database, last: { error?: string }): Database {
  const wrap = (q: Queryable): Queryable => ({
    query: async (statement, options) => {
      try {
        return await q.query(statement, options);
      } catch (error) {
        last.error = error instanceof Error ? error.message : String(error);
        throw error;
      }
    },
    exec: (script) => q.exec(script),
  });
  return {
    kind: db.kind,
    driver: db.driver,
    ...wrap(db),
    transaction: (work, options) => db.transaction((tx) => work(wrap(tx)), options),
    listen: (channel, handlers) => db.listen(channel, handlers),
    close: () => db.close(),
  };
}

/** The role's schema as a client sees it: the standard introspection query through the engine. */
export async function clientSchema(engine: Engine, session: Session): Promise<GraphQLSchema> {
  const body = JSON.parse(await engine.execute({ query: getIntrospectionQuery() }, session));
  if (!body.data) throw new Error(`introspection failed: ${JSON.stringify(body)}`);
  return buildClientSchema(body.data as IntrospectionQuery);
}

/** Why the request is not valid GraphQL with valid variables, or null. */
function invalidity(schema: GraphQLSchema, query: string, variables: Record<string, unknown>, operationName?: string): string | null {
  const document = parse(query);
  const errors = validate(
    schema,
    document,
    specifiedRules.filter((r) => r !== NoUnusedVariablesRule),
  );
  if (errors.length > 0) return errors.map((e) => e.message).join("; ");
  const operation = document.definitions.find(
    (d) => d.kind === Kind.OPERATION_DEFINITION && (!operationName || d.name?.value === operationName),
  ) as OperationDefinitionNode;
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables);
  return coerced.errors ? coerced.errors.map((e) => e.message).join("; ") : null;
}

export interface RoleRun {
  seed: number;
  schemaName: string;
  knowledge: Knowledge;
  role: string;
  session: Session;
  schema: GraphQLSchema;
  engine: Engine;
  /** The limits requests run within: the service's defaults, so none of them may refuse a valid request. */
  guard: RequestGuard;
  /** An engine that runs each varied request once, with nothing cached for it. */
  fresh: Engine;
  /** The engines stringify bigint, numeric and float8 values (HASURA_GRAPHQL_STRINGIFY_NUMERIC_TYPES). */
  stringify: boolean;
  last: { error?: string };
  /** Off when requests run concurrently: a mutation between the two runs would change the answer. */
  compareCached: boolean;
  failures: Failure[];
  outcomes: Map<string, number>;
}

const count = (run: RoleRun, outcome: string) => run.outcomes.set(outcome, (run.outcomes.get(outcome) ?? 0) + 1);

export async function runRequest(run: RoleRun, index: number): Promise<void> {
  const op = new OperationGenerator(run.schema, Rng.derive(run.seed, run.schemaName, run.role, index), run.knowledge).generate();
  const { query, operationName } = op;
  const base = { seed: run.seed, index, role: run.role, query, variables: op.variables, operationName };
  const invalid = invalidity(run.schema, query, op.variables, operationName);
  if (invalid) {
    run.failures.push({ ...base, failure: `TEST BUG, generated an invalid request: ${normalise(invalid)}`, response: "" });
    return;
  }
  run.last.error = undefined;
  const request = { query, variables: op.variables, operationName };
  const timed = async () => {
    const start = performance.now();
    const body = (await run.guard.run(run.session, {}, (options) => run.engine.respond(request, run.session, options))).body;
    return { response: body, elapsed: performance.now() - start };
  };
  let { response, elapsed } = await timed();
  // A slow query is timed once more: on two shared cores a busy neighbour can stall one run, and
  // only a request that is slow every time is the engine's fault. (A mutation is not run twice.)
  if (elapsed > SLOW_MS && op.kind === "query") ({ response, elapsed } = await timed());
  const body = JSON.parse(response);
  const verdict = classify(run.schema, { query, variables: op.variables, kind: op.kind, operationName }, body, elapsed, run.stringify);
  if (verdict.outcome) count(run, verdict.outcome);
  if (verdict.failure) {
    // An `unexpected` error hides the database's message: it names the class better.
    const database = run.last.error;
    const failure = verdict.failure.startsWith("unexpected") && database ? `${verdict.failure} (${normalise(database)})` : verdict.failure;
    run.failures.push({ ...base, failure, detail: [verdict.detail, database].filter(Boolean).join("; ") || undefined, response });
    return;
  }
  // The same query again with other values: a cached plan must answer as a fresh engine does.
  const variables = run.compareCached && op.kind === "query" && index % 3 === 0 ? op.vary() : null;
  if (!variables) return;
  count(run, "query run again with other variables");
  const again = await run.engine.execute({ query, variables, operationName }, run.session);
  const expected = await run.fresh.execute({ query, variables, operationName }, run.session);
  if (!isDeepStrictEqual(JSON.parse(again), JSON.parse(expected)))
    run.failures.push({
      ...base,
      variables,
      failure: "cached plan answers otherwise than a fresh engine",
      detail: `fresh engine: ${expected}`,
      response: again,
    });
}
