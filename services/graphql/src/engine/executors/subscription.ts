/**
 * The subscription executor: a live query's root field planned with parameter slots and compiled
 * once per role and query shape (as the query executor does), then served by one poller per shape
 * (subscriptions/poller.ts) whose multiplexed statement answers every cohort of subscribers at
 * once. A subscription is bounded when it starts as a query is: its statement within the size
 * bounds, its estimated cost within the role's limit (explained with this subscriber's values);
 * a poll statement carries more cohorts, never more subqueries.
 */
import { type Compiled, join, type Sql, sql } from "@platform/core";
import type { Dependencies } from "../compiler/context.js";
import { compileRootField } from "../compiler/root.js";
import { resolveParams } from "../compiler/slot.js";
import { compileStream } from "../compiler/stream.js";
import { errorBody } from "../errors/body.js";
import {
  HasuraError,
  streamNotAlone,
  subscriptionFieldNotSupported,
  subscriptionIntrospection,
  subscriptionRootFields,
} from "../errors/index.js";
import { fromPostgres } from "../errors/postgres.js";
import { type CostEstimates, checkCost } from "../limits/cost.js";
import { checkStatement } from "../limits/statements.js";
import { answeredByCall, operationSlots, planQuery, rootFields } from "../plan/operation.js";
import type { QueryField } from "../plan/types.js";
import { Lru } from "../request/lru.js";
import type { CheckedOperation } from "../request/operation.js";
import { MULTIPLE_ROOT_FIELDS } from "../request/validation-rules.js";
import type { ChangeSignal } from "../subscriptions/change-signal.js";
import {
  type MultiplexedStatement,
  multiplexedLive,
  multiplexedStream,
  ownLive,
  ownStream,
  parameterTypes,
} from "../subscriptions/multiplex.js";
import { LivePoller, type PollerOptions, type Subscriber } from "../subscriptions/poller.js";
import { repeat } from "../subscriptions/repeat.js";
import { readAsyncAction } from "./async-actions.js";
import { callContext, compileContext, type Execution } from "./context.js";
import { remoteJoinNodes } from "./remote-joins.js";
import { type DataField, isDataField } from "./statement.js";

/** A live query compiled for one role and shape: its statement alone and multiplexed. */
interface CompiledSubscription {
  /** The field's own statement, with its slots: cost estimates and parameter types come from it. */
  own: Compiled;
  multiplexed: MultiplexedStatement;
  /** `{"data":{"<response key>":` */
  prefix: string;
  estimates: CostEstimates;
  /** Whether it is a stream (its cohorts move on with their cursor). */
  stream: boolean;
  /** What its statement reads: the tables whose writes can change its answers, and what cannot be observed. */
  reads: Dependencies;
}

export interface SubscriptionOptions extends Omit<PollerOptions, "showsInternal"> {
  /** Tells pollers when the tables they read changed (none: they poll every refetch interval). */
  signal?: ChangeSignal | undefined;
  /** Streams' own refetch interval and batch size (HASURA_GRAPHQL_STREAMING_QUERIES_MULTIPLEXED_*). */
  streamRefetchMs: number;
  streamBatchSize: number;
}

export class SubscriptionExecutor {
  private readonly compiled = new Lru<CompiledSubscription>(1000, 4_000_000, 128_000);
  private readonly pollers = new Map<string, LivePoller>();
  /** Subscriptions answered by asking again (asynchronous actions' results). */
  private readonly repeating = new Set<() => void>();

  private readonly detach: (() => void) | undefined;

  constructor(private readonly options: SubscriptionOptions) {
    this.detach = options.signal?.attach({
      changed: (table) => {
        for (const poller of this.pollers.values()) poller.changed(table);
      },
      listening: (up) => {
        for (const poller of this.pollers.values()) poller.listening(up);
      },
    });
  }

  /** What each poller's statement reads. */
  private readonly reads = new WeakMap<LivePoller, Dependencies>();

  /** What the statements of the pollers now running read, one entry per poller. */
  get pollerReads(): Dependencies[] {
    return [...this.pollers.values()].flatMap((poller) => {
      const reads = this.reads.get(poller);
      return reads ? [reads] : [];
    });
  }

  /** Subscribers now served, over every poller. */
  get subscribers(): number {
    let n = 0;
    for (const poller of this.pollers.values()) n += poller.size;
    return n;
  }

  /** Starts serving `subscriber` the operation's answers; resolves to how it stops. */
  async start(operation: CheckedOperation, execution: Execution, subscriber: Subscriber, showsInternal: boolean): Promise<() => void> {
    const fields = rootFields(operation, operation.variables);
    if (fields.length > 1 && !operation.definition.directives?.some((d) => d.name.value === MULTIPLE_ROOT_FIELDS))
      throw subscriptionRootFields();
    if (fields.some((f) => f.name.startsWith("__"))) throw subscriptionIntrospection();
    if (fields.some((f) => answeredByCall(operation, f))) {
      if (fields.length > 1) throw subscriptionFieldNotSupported("action or remote field beside other root fields");
      const [root] = planQuery(execution.model, operation, operation.variables, fields);
      if (root?.kind === "async_action_query") return this.startActionResult(root, operation, execution, subscriber, showsInternal);
      throw subscriptionFieldNotSupported(root?.kind ?? "none");
    }
    const slots = operationSlots(operation, operation.variables);
    const key = `${operation.key}\u0000${slots.signature}\u0000${showsInternal}`;
    const compiled = this.compiled.get(key) ?? (await this.compile(operation, execution, slots.values, key));
    const input = { variables: operation.variables, session: operation.session };
    const values = resolveParams(compiled.multiplexed.params, input);
    const { costLimit } = execution.run;
    if (costLimit !== undefined)
      await checkCost(execution.db, [{ text: compiled.own.text, values }], costLimit, compiled.estimates, execution.signal);
    let poller = this.pollers.get(key);
    if (!poller) {
      const { streamRefetchMs, streamBatchSize, signal, ...live } = this.options;
      const options = compiled.stream
        ? { ...live, refetchMs: streamRefetchMs, batchSize: streamBatchSize, showsInternal }
        : { ...live, showsInternal };
      const forget = () => {
        if (this.pollers.get(key) === created) this.pollers.delete(key);
      };
      const watch = signal ? { reads: compiled.reads, signal } : undefined;
      const created: LivePoller = new LivePoller(
        execution.db,
        compiled.multiplexed,
        compiled.prefix,
        options,
        forget,
        compiled.stream,
        watch,
      );
      this.reads.set(created, compiled.reads);
      this.pollers.set(key, created);
      poller = created;
    }
    return poller.join(input, subscriber);
  }

  /**
   * An asynchronous action's result: its log entry read again every refetch interval (with the
   * caller's session, so another session's call stays null) and pushed when it changed. A
   * subscriber stops reading once its action is answered only when it unsubscribes, as in Hasura.
   */
  private startActionResult(
    field: Extract<QueryField, { kind: "async_action_query" }>,
    operation: CheckedOperation,
    execution: Execution,
    subscriber: Subscriber,
    showsInternal: boolean,
  ): () => void {
    const call = callContext(operation, execution, compileContext(operation, execution));
    const prefix = `{"data":{${JSON.stringify(field.key)}:`;
    const stop = repeat(async () => `${prefix}${await readAsyncAction(field, { ...call, signal: undefined })}}}`, subscriber, {
      refetchMs: this.options.refetchMs,
      failed: (error) => errorBody(error instanceof HasuraError ? error : fromPostgres(error), showsInternal),
    });
    this.repeating.add(stop);
    return () => {
      this.repeating.delete(stop);
      stop();
    };
  }

  /** Stops every poller (the engine is being replaced, or the server stops). */
  close(): void {
    this.detach?.();
    for (const poller of [...this.pollers.values()]) poller.stop();
    this.pollers.clear();
    for (const stop of this.repeating) stop();
    this.repeating.clear();
  }

  private async compile(operation: CheckedOperation, execution: Execution, slotted: CheckedOperation["variables"], key: string) {
    const fields = planQuery(execution.model, operation, slotted, rootFields(operation, slotted));
    const [field] = fields;
    if (!field) throw subscriptionFieldNotSupported("none");
    if (fields.length > 1 && fields.some((f) => f.kind === "select_stream")) throw streamNotAlone();
    for (const f of fields) {
      if (f.kind !== "select_stream" && !isDataField(f)) throw subscriptionFieldNotSupported(f.kind);
      // Rows joined to a remote schema would need a remote call per poll: not served over subscriptions.
      if (remoteJoinNodes(f).length > 0) throw subscriptionFieldNotSupported("remote relationship");
    }
    const ctx = compileContext(operation, execution, { planning: true, bounded: true });
    const prefix = `{"data":{${JSON.stringify(field.key)}:`;
    let compiled: CompiledSubscription;
    if (field.kind === "select_stream") {
      const batch = compileStream(ctx, field);
      checkStatement(ctx.subqueries, execution.bounds);
      const own = ownStream(batch);
      const types = await parameterTypes(execution.db, own, execution.signal);
      const multiplexed = multiplexedStream(batch, types);
      compiled = { own, multiplexed, prefix, estimates: new Map(), stream: true, reads: ctx.reads };
    } else {
      const data = fields as DataField[];
      const sql =
        data.length === 1
          ? compileRootField(ctx, field as DataField)
          : manyRootFields(
              data.map((f) => compileRootField(ctx, f)),
              data,
            );
      checkStatement(ctx.subqueries, execution.bounds);
      const own = ownLive(sql);
      const types = await parameterTypes(execution.db, own, execution.signal);
      compiled = { own, multiplexed: multiplexedLive(sql, types), prefix, estimates: new Map(), stream: false, reads: ctx.reads };
    }
    this.compiled.set(key, compiled, compiled.multiplexed.text.length);
    return compiled;
  }
}

/**
 * Several root fields (`@_multiple_top_level_fields`) as one text: the first field's JSON, then
 * `,"<key>":` and the next field's, so that the answer fits in the first field's prefix as one
 * field's does. A field whose JSON is SQL NULL (a row by primary key not found) is `null`.
 */
function manyRootFields(values: Sql[], fields: DataField[]): Sql {
  const parts = values.map((value, i) => {
    const json = sql`coalesce((${value})::text, 'null')`;
    if (i === 0) return json;
    return sql`${`,${JSON.stringify((fields[i] as DataField).key)}:`}::text || ${json}`;
  });
  return join(parts, sql` || `);
}
