/**
 * Every query of the web client sent to the engine as a signed-in player would send it (role
 * `player`, the fixture player's id), its variables filled from their types: no GraphQL error may
 * come back, except where the remote schema's stand-in is the cause (it answers every field with
 * null or an empty list, which a real backend would not).
 */
import { type GraphQLSchema, Kind, type OperationDefinitionNode, print } from "graphql";
import type { Engine } from "./engine.js";
import type { Fixture } from "./fixture.js";
import type { ClientOperation } from "./operations.js";
import type { Report } from "./report.js";
import { fillVariables } from "./variables.js";

interface GraphqlError {
  message: string;
  path?: (string | number)[];
  extensions?: { code?: string };
}

export interface QueryRun {
  run: number;
  failed: number;
  /** Queries whose every root field came back empty (null or []): they ran, but proved little. */
  empty: string[];
  excused: number;
}

const isEmpty = (value: unknown) => value === null || (Array.isArray(value) && value.length === 0);

/** An error the stand-in causes: at a remote root field or a remote relationship, i.e. a field the remote schema serves. */
function causedByStandIn(error: GraphqlError, remoteFields: Set<string>): boolean {
  return (error.path ?? []).some((segment) => typeof segment === "string" && remoteFields.has(segment));
}

export async function runQueries(
  report: Report,
  engine: Engine,
  operations: ClientOperation[],
  player: { schema: GraphQLSchema; headers: Record<string, string> },
  fixture: Fixture,
  remoteFields: Set<string>,
): Promise<QueryRun> {
  const queries = operations.filter((op) => op.kind === "query");
  report.section(`web client queries run as role player (${queries.length})`);
  const result: QueryRun = { run: 0, failed: 0, empty: [], excused: 0 };
  const failures: string[] = [];
  for (const op of queries) {
    const operation = op.document.definitions.find((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION);
    if (!operation) continue;
    const variables = fillVariables(player.schema, operation, fixture);
    const started = performance.now();
    const { status, body } = await engine.post(
      "/v1/graphql",
      { query: print(op.document), variables, operationName: op.name },
      player.headers,
    );
    const ms = Math.round(performance.now() - started);
    result.run++;
    const answer = body as { data?: Record<string, unknown>; errors?: GraphqlError[] };
    const errors = answer.errors ?? [];
    const excused = errors.filter((e) => causedByStandIn(e, remoteFields));
    const real = errors.filter((e) => !causedByStandIn(e, remoteFields));
    result.excused += excused.length;
    const roots = Object.entries(answer.data ?? {});
    const filled = roots.filter(([, v]) => !isEmpty(v)).map(([k]) => k);
    if (status !== 200 || real.length > 0) {
      result.failed++;
      failures.push(
        `${op.name} ${JSON.stringify(variables)}: ${status} ${real.map((e) => `${e.message} (${e.extensions?.code ?? "?"})`).join("; ")}`,
      );
    } else if (filled.length === 0) result.empty.push(op.name);
    report.info(
      `${real.length > 0 || status !== 200 ? "ERROR  " : "ok     "} ${op.name} (${ms} ms) ${JSON.stringify(variables)} -> ${filled.length}/${roots.length} root fields with data${excused.length ? `, ${excused.length} stand-in error(s)` : ""}`,
    );
  }
  report.check(
    failures.length === 0,
    `every query answered without a GraphQL error (${result.run - result.failed}/${result.run})`,
    failures.join("\n") || undefined,
  );
  return result;
}
