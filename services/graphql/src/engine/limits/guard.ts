/**
 * What stands between a GraphQL request and the database: the server-wide time limit
 * (HASURA_GRAPHQL_TIME_LIMIT) and the API limits of metadata
 * (https://hasura.io/docs/2.0/security/api-limits/). For each operation: its rate limit is
 * counted first, then the engine runs it with a signal that aborts when the client goes away or
 * the time limit passes (cancelling its statements in PostgreSQL), and with a check of its depth
 * and node count that runs on the parsed operation before any SQL. The batch limit is checked by
 * the HTTP adapter on an array body. A limit set for the role wins over the global one; the admin
 * role is exempt from API limits (not from the server-wide time limit), and `disabled: true`
 * turns API limits off.
 *
 * Where metadata sets no depth, node or batch limit, ours apply (HASURA_GRAPHQL_DEFAULT_*_LIMIT,
 * on by default, to every role but admin): Hasura has no defaults, so one request could make
 * PostgreSQL plan a statement of tens of thousands of subqueries. They are never written into
 * metadata (export_metadata answers what Hasura's would). The engine's own bounds come with them:
 * the role's cost limit and pattern length (HASURA_GRAPHQL_COST_LIMIT,
 * HASURA_GRAPHQL_PATTERN_LENGTH_LIMIT, every role but admin), and the answer's size, which a
 * batch's operations share (HASURA_GRAPHQL_RESPONSE_SIZE_LIMIT, every role).
 *
 * Errors: Hasura documents one body, for the rate limit (hasura/graphql-engine#9705):
 * `{"message": "rate limit of 10 exceeded", "extensions": {"code": "rate-limit-exceeded", "path": "$"}}`.
 * The other limits answer in that same form (`depth limit of 3 exceeded`, `depth-limit-exceeded`,
 * and likewise node, batch and time). A time limit prints its seconds as Hasura prints a MaxTime
 * (`2.5s`, server/src-lib/Hasura/RQL/Types/ApiLimit.hs). The server-wide limit answers
 * `tenant-time-limit-exceeded`, the code Hasura Cloud documents for its own project-wide time
 * limit (https://hasura.io/docs/2.0/security/api-limits/#time-limits), which is what that
 * setting is here.
 */
import { LightAbortController } from "@platform/core";
import {
  batchLimitExceeded,
  depthLimitExceeded,
  type HasuraError,
  nodeLimitExceeded,
  rateLimitExceeded,
  timeLimitExceeded,
} from "../errors/index.js";
import { type ExecuteOptions, errorBody, type GraphQLResponse } from "../execute.js";
import type { ApiLimits, Limit, RateLimitConfig } from "../metadata/api-limits.js";
import { ADMIN_ROLE, type Session } from "../request/session.js";
import { operationSize } from "./operation-size.js";
import { RateCounter } from "./rate-counter.js";
import { DEFAULT_STATEMENT_BOUNDS, LIMIT_SETTINGS, ResponseBudget } from "./statements.js";

/** Our limits for every role but admin; a value of 0 (or absent) is no limit. */
export interface RoleDefaults {
  /** The depth limit where metadata sets none. */
  depth?: number | undefined;
  /** The node limit where metadata sets none. */
  nodes?: number | undefined;
  /** The batch limit where metadata sets none. */
  batch?: number | undefined;
  /** PostgreSQL's estimated cost a query may have (limits/cost.ts). */
  cost?: number | undefined;
  /** The longest operand of a pattern operator. */
  patternLength?: number | undefined;
}

/** The defaults: measured so that no valid application notices them (README, "Bounds"). */
export const DEFAULT_ROLE_LIMITS: RoleDefaults = { depth: 15, nodes: 1000, batch: 100, cost: 10_000_000, patternLength: 4096 };

export interface GuardOptions {
  /** Server-wide time limit of a request, seconds; 0 or absent: none. */
  timeLimitSeconds?: number | undefined;
  /** Where rate limits count requests: this process's memory when absent. */
  rateCounter?: RateCounter | undefined;
  /** Our limits for roles other than admin; DEFAULT_ROLE_LIMITS when absent. */
  defaults?: RoleDefaults | undefined;
  /** Bytes of JSON one HTTP request's answers may take in all. */
  responseBytes?: number | undefined;
}

/** What the HTTP adapter knows of a request. */
export interface RequestContext {
  /** Aborted when the client's connection closes before the response is sent. */
  signal?: AbortSignal | undefined;
  /** The client's address, for rate limits keyed on `IP`. */
  ip?: string | undefined;
  /** The request's id, logged with an unexpected error. */
  requestId?: string | undefined;
  /** The client's request headers (lower-case names), for actions that forward them. */
  headers?: Record<string, string> | undefined;
  /** The answers of this HTTP request so far: set by the guard on first use, shared by a batch's operations. */
  budget?: ResponseBudget | undefined;
}

/** A limit in force and the setting that raises it. */
interface Applied {
  limit: number;
  setting: string;
}

/** setTimeout's longest delay; a longer time limit is no limit. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export class RequestGuard {
  private limits: ApiLimits | undefined;
  private readonly counter: RateCounter;
  private readonly defaults: RoleDefaults;

  constructor(private readonly options: GuardOptions = {}) {
    this.counter = options.rateCounter ?? new RateCounter();
    this.defaults = options.defaults ?? DEFAULT_ROLE_LIMITS;
  }

  /** The API limits of the metadata now in force. */
  setApiLimits(limits: ApiLimits | undefined): void {
    this.limits = limits;
  }

  /** The batch_limit error for an array body of `size` operations, if it is over the role's limit. */
  batchError(session: Session, size: number): HasuraError | undefined {
    const max = this.applied(session, "batch_limit", this.defaults.batch, LIMIT_SETTINGS.batch);
    return max && size > max.limit ? batchLimitExceeded(max.limit, { found: size, setting: max.setting }) : undefined;
  }

  /** Runs one operation through `execute` within the limits; resolves to its response. */
  run(session: Session, context: RequestContext, execute: (options: ExecuteOptions) => Promise<GraphQLResponse>): Promise<GraphQLResponse> {
    return this.within(session, context, execute, (refusal) => refusal);
  }

  /**
   * Starts an operation (a WebSocket's subscription, query or mutation) within the limits: the
   * time limit bounds its start (a subscription's polls have their own); `refused` makes a rate
   * limit's refusal the caller's kind of result.
   */
  start<T>(
    session: Session,
    context: RequestContext,
    start: (options: ExecuteOptions) => Promise<T>,
    refused: (response: GraphQLResponse) => T,
  ): Promise<T> {
    return this.within(session, context, start, refused);
  }

  private async within<T>(
    session: Session,
    context: RequestContext,
    execute: (options: ExecuteOptions) => Promise<T>,
    refused: (response: GraphQLResponse) => T,
  ): Promise<T> {
    const rate = this.forRole(session, (l) => l.rate_limit);
    if (rate && (await this.counter.count(rateKey(rate, session, context))) > rate.max_reqs_per_min)
      return refused({ body: errorBody(rateLimitExceeded(rate.max_reqs_per_min)), failed: true });
    const deadline = this.deadline(session, context.signal);
    context.budget ??= new ResponseBudget(this.options.responseBytes ?? DEFAULT_STATEMENT_BOUNDS.responseBytes);
    const exempt = session.role === ADMIN_ROLE;
    try {
      return await execute({
        signal: deadline?.signal ?? context.signal,
        checkOperation: this.sizeCheck(session),
        requestId: context.requestId,
        headers: context.headers,
        budget: context.budget,
        costLimit: exempt ? undefined : positive(this.defaults.cost),
        patternLength: exempt ? undefined : positive(this.defaults.patternLength),
      });
    } finally {
      deadline?.clear();
    }
  }

  /** The role's own limit of a kind, else the global one; none for admin or with limits disabled. */
  private forRole<T>(session: Session, kind: (limits: ApiLimits) => Limit<T> | undefined): T | undefined {
    const limits = this.limits;
    if (!limits || limits.disabled || session.role === ADMIN_ROLE) return undefined;
    const limit = kind(limits);
    return limit ? (limit.per_role[session.role] ?? limit.global) : undefined;
  }

  /**
   * The depth, node or batch limit in force for the session: the role's own in metadata, else
   * metadata's global one, else ours; none for admin, with API limits disabled, or when 0.
   */
  private applied(
    session: Session,
    kind: "depth_limit" | "node_limit" | "batch_limit",
    fallback: number | undefined,
    setting: string,
  ): Applied | undefined {
    const limits = this.limits;
    if (session.role === ADMIN_ROLE || limits?.disabled) return undefined;
    const limit = limits?.[kind];
    const own = limit?.per_role[session.role];
    if (own !== undefined) return { limit: own, setting: `api_limits.${kind}.per_role.${session.role}` };
    if (limit) return { limit: limit.global, setting: `api_limits.${kind}.global` };
    const max = positive(fallback);
    return max === undefined ? undefined : { limit: max, setting };
  }

  private sizeCheck(session: Session): ExecuteOptions["checkOperation"] {
    const depth = this.applied(session, "depth_limit", this.defaults.depth, LIMIT_SETTINGS.depth);
    const nodes = this.applied(session, "node_limit", this.defaults.nodes, LIMIT_SETTINGS.nodes);
    if (depth === undefined && nodes === undefined) return undefined;
    return (document, operation) => {
      const size = operationSize(document, operation);
      if (depth && size.depth > depth.limit) throw depthLimitExceeded(depth.limit, { found: size.depth, setting: depth.setting });
      if (nodes && size.nodes > nodes.limit) throw nodeLimitExceeded(nodes.limit, { found: size.nodes, setting: nodes.setting });
    };
  }

  /**
   * A signal that aborts when the client's signal does (with its reason) or, with the time
   * limit's error as its reason, when the request's time is up. One controller and one timer per
   * request, the error made only when the time is up: AbortSignal.any and an eager error cost
   * this hot path a measurable share of its CPU and memory. A LightAbortController, as an
   * AbortController's signal costs far more on Node 20 (see packages/core/src/db/abort.ts).
   */
  private deadline(session: Session, client: AbortSignal | undefined): { signal: AbortSignal; clear(): void } | undefined {
    const server = this.options.timeLimitSeconds ?? 0;
    const role = this.forRole(session, (l) => l.time_limit);
    let seconds = server;
    let fromApiLimit = false;
    // The API limit lowers the server-wide one, never raises it.
    if (role !== undefined && (server <= 0 || role <= server)) {
      seconds = role;
      fromApiLimit = true;
    } else if (server <= 0) return undefined;
    const ms = Math.max(0, seconds * 1000);
    if (ms > MAX_TIMER_MS) return undefined;
    const controller = new LightAbortController();
    const timer = setTimeout(() => controller.abort(timeLimitExceeded(seconds, fromApiLimit)), ms);
    const onClientGone = () => controller.abort(client?.reason);
    if (client?.aborted) onClientGone();
    else client?.addEventListener("abort", onClientGone, { once: true });
    return {
      signal: controller.signal,
      clear: () => {
        clearTimeout(timer);
        client?.removeEventListener("abort", onClientGone);
      },
    };
  }
}

/** A limit's value, or undefined for none (0 or absent). */
function positive(value: number | undefined): number | undefined {
  return value !== undefined && value > 0 ? value : undefined;
}

/** Rate limits count per role, and per the client's IP or session variable values when `unique_params` says so. */
function rateKey(rate: RateLimitConfig, session: Session, context: RequestContext): string {
  const params = rate.unique_params;
  let unique: string[] = [];
  if (params === "IP") unique = [context.ip ?? ""];
  else if (params !== null) unique = params.map((name) => session.variables[name.toLowerCase()] ?? "");
  return JSON.stringify([session.role, ...unique]);
}
