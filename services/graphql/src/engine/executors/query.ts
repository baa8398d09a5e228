/**
 * The query executor: a query's root fields planned with parameter slots for the variables'
 * values (plan/slots.ts), compiled once per operation shape and cached, then run for every
 * request of that shape with the request's values (statement.ts). Queries that cannot be cached
 * are planned with the request's own values and run once: introspection (answered by graphql-js
 * on the role's schema, its data fields from the statement), actions and remote schema fields
 * (answered by their handlers and remotes beside the statement), and remote relationships whose
 * plan had to take in a request's values.
 */
import { compileRootField } from "../compiler/root.js";
import { introspectionDisabled } from "../errors/index.js";
import { checkRootFields } from "../limits/statements.js";
import { answeredByCall, isIntrospection, operationSlots, planQuery, rootFields } from "../plan/operation.js";
import type { Variables } from "../plan/values.js";
import { Lru } from "../request/lru.js";
import type { CheckedOperation } from "../request/operation.js";
import { callContext, compileContext, type Execution } from "./context.js";
import { answerWithIntrospection } from "./introspection.js";
import { joinRemoteRelationships, remoteJoinNodes } from "./remote-joins.js";
import { type CompiledQuery, compiledSize, compileQuery, runQuery, runQueryOnce, unnamed } from "./statement.js";

export class QueryExecutor {
  // Budgets in characters of statement text: an application's statements are a few kilobytes;
  // far larger ones run uncached.
  private readonly compiled = new Lru<CompiledQuery>(2000, 4_000_000, 128_000);
  /** Operations (as `compiled` keys them) whose remote joins carry a request's values (variables expanded for a role's presets): planned for each request. */
  private readonly perRequest = new Lru<true>(2000, 1_000_000, 32_000);

  /** The response body of a query. */
  async run(operation: CheckedOperation, execution: Execution): Promise<string> {
    const slots = operationSlots(operation, operation.variables);
    const planKey = `${operation.key}\u0000${slots.signature}`;
    const compiled = this.compiled.get(planKey) ?? this.compile(operation, execution, slots.values, planKey);
    if (!compiled) return runPlannedOnce(operation, execution);
    const input = { variables: operation.variables, session: operation.session };
    const { db, signal, run } = execution;
    if (!compiled.joins) return runQuery(db, compiled, input, signal, run);
    const call = callContext(operation, execution, compileContext(operation, execution));
    return runQuery(db, compiled, input, signal, run, call);
  }

  /**
   * The operation planned with slots for its variables' values and compiled: the statement then
   * serves every request of this shape (cached unless too large to keep). Null when the operation
   * must be planned with each request's own values.
   */
  private compile(operation: CheckedOperation, execution: Execution, slotted: Variables, planKey: string): CompiledQuery | null {
    const fields = rootFields(operation, slotted);
    checkRootFields(fields.length, execution.bounds);
    if (fields.some(isIntrospection)) {
      const { role } = operation.session;
      if (execution.model.introspectionDisabled.has(role)) throw introspectionDisabled(role);
      return null;
    }
    if (fields.some((f) => answeredByCall(operation, f)) || this.perRequest.get(planKey)) return null;
    const planned = planQuery(execution.model, operation, slotted, fields);
    // Remote relationships are joined after the statement (remote-joins.ts), with the request's
    // variables: such a plan is cached like any other, unless a role's presets had to expand a
    // variable's value into it (its join nodes then carry this request's values).
    const joinNodes = execution.model.remoteRelationships?.size ? planned.flatMap(remoteJoinNodes) : [];
    if (joinNodes.some((n) => Object.keys(n.values).length > 0)) {
      this.perRequest.set(planKey, true);
      return null;
    }
    const ctx = compileContext(operation, execution, { planning: true, bounded: true });
    const compiled = compileQuery(planned, (f) => compileRootField(ctx, f), ctx, execution.bounds);
    if (joinNodes.length > 0) compiled.joins = planned;
    compiled.estimates = new Map();
    // Statements too large to keep run once, unnamed: neither pg's client nor the server keeps them prepared.
    return this.compiled.set(planKey, compiled, compiledSize(compiled)) ? compiled : unnamed(compiled);
  }
}

/**
 * A query planned with the request's own values and run once: introspection answers from
 * graphql-js, actions from their handlers, the other data fields from one statement, then their
 * remote relationships from one call per relationship.
 */
async function runPlannedOnce(operation: CheckedOperation, execution: Execution): Promise<string> {
  const { document, schema, session, variables } = operation;
  const collected = rootFields(operation, variables);
  checkRootFields(collected.length, execution.bounds);
  const introspection = collected.some(isIntrospection);
  const planned = planQuery(
    execution.model,
    operation,
    variables,
    collected.filter((f) => !f.name.startsWith("__") || f.name === "__typename"),
  );
  const ctx = compileContext(operation, execution, { bounded: true });
  const call = callContext(operation, execution, ctx);
  const input = { variables, session };
  const plan = compileQuery(planned, (f) => compileRootField(ctx, f), ctx, execution.bounds);
  const answered = await runQueryOnce(execution.db, plan, planned, input, execution.run, call);
  const values = await joinRemoteRelationships(planned, answered, call);
  if (!introspection) return `{"data":{${planned.map((f, i) => `${JSON.stringify(f.key)}:${values[i]}`).join(",")}}}`;
  const data = planned.filter((f) => f.kind !== "typename");
  return answerWithIntrospection(
    schema,
    document,
    operation.name,
    variables,
    data.map((f) => f.key),
    data.map((f) => values[planned.indexOf(f)] ?? "null"),
  );
}
