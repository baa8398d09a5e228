/**
 * A live query's poller, as Hasura runs them (https://hasura.io/docs/2.0/subscriptions/postgres/livequery/execution/):
 * one per role and query shape. Its subscribers are grouped in cohorts by the values the query
 * reads (the request's variables and the session variables it uses: the statement's resolved
 * parameters); every refetch interval, after the previous poll ended, the cohorts are polled in
 * batches, one multiplexed statement per batch (multiplex.ts), and each cohort's answer is pushed
 * to its subscribers only when it differs from the last one pushed. A subscriber joining a cohort
 * gets its last answer at once; a new cohort is polled at once. A poller with no cohort stops.
 *
 * Nothing here knows of WebSockets: a subscriber is anything that takes an answer's JSON text.
 */
import { type Database, LightAbortController, ResponseTooLargeError, statementName } from "@platform/core";
import { errorBody } from "../errors/body.js";
import { HasuraError, noResultRow, responseSizeLimitExceeded, timeLimitExceeded } from "../errors/index.js";
import { fromPostgres } from "../errors/postgres.js";
import { LIMIT_SETTINGS } from "../limits/statements.js";
import { cohortValues, type MultiplexedStatement } from "./multiplex.js";

/** Whoever receives a subscription's answers: each one's JSON text (`{"data": ...}` or `{"errors": [...]}`). */
export interface Subscriber {
  push(body: string): void;
}

export interface PollerOptions {
  /** Milliseconds between the end of one poll and the start of the next (Hasura's refetch interval). */
  refetchMs: number;
  /** Cohorts polled by one statement. */
  batchSize: number;
  /** Bytes one poll statement's answer may take. */
  responseBytes: number;
  /** Milliseconds one poll statement may run; 0 for no limit. */
  timeLimitMs: number;
  /** Whether errors show `extensions.internal` to these subscribers (their role's rule). */
  showsInternal: boolean;
  /** Where an unexpected failure of a poll is logged. */
  logger?: { error(details: object, message: string): void } | undefined;
}

interface Cohort {
  id: string;
  /** The cohort's values, as the statement's `vars` column carries them. */
  vars: string;
  subscribers: Set<Subscriber>;
  /** The answer last pushed (a new subscriber gets it at once). */
  last: string | undefined;
}

let cohortIds = 0;

export class LivePoller {
  private readonly cohorts = new Map<string, Cohort>();
  private readonly statementName: string;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  /** A cohort came while a poll ran: poll again at once after it. */
  private again = false;
  private stopped = false;

  constructor(
    private readonly db: Database,
    private readonly statement: MultiplexedStatement,
    /** `{"data":{"<response key>":` : what each answer is wrapped in. */
    private readonly prefix: string,
    private readonly options: PollerOptions,
    /** Called once the poller has no subscriber left (its owner forgets it). */
    private readonly onIdle: () => void,
  ) {
    this.statementName = statementName(statement.text);
  }

  get size(): number {
    let subscribers = 0;
    for (const cohort of this.cohorts.values()) subscribers += cohort.subscribers.size;
    return subscribers;
  }

  /** Adds a subscriber whose statement parameters resolved to `values`; returns how it leaves. */
  join(values: readonly unknown[], subscriber: Subscriber): () => void {
    const vars = cohortValues(values);
    let cohort = this.cohorts.get(vars);
    if (!cohort) {
      cohortIds += 1;
      cohort = { id: String(cohortIds), vars, subscribers: new Set(), last: undefined };
      this.cohorts.set(vars, cohort);
      this.pollSoon();
    } else if (cohort.last !== undefined) subscriber.push(cohort.last);
    cohort.subscribers.add(subscriber);
    const joined = cohort;
    return () => {
      joined.subscribers.delete(subscriber);
      if (joined.subscribers.size === 0) this.cohorts.delete(joined.vars);
      if (this.cohorts.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.cohorts.clear();
    this.onIdle();
  }

  private pollSoon(): void {
    if (this.polling) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.run(), 0);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    if (this.stopped) return;
    this.polling = true;
    try {
      await this.poll();
    } catch (error) {
      // poll() answers every failure to the cohorts; anything else is a fault, logged.
      this.options.logger?.error({ err: error }, "unexpected failure of a live query's poller");
    } finally {
      this.polling = false;
    }
    if (this.stopped || this.cohorts.size === 0) return;
    const delay = this.again ? 0 : this.options.refetchMs;
    this.again = false;
    this.timer = setTimeout(() => void this.run(), delay);
  }

  /** Polls every cohort, batch after batch. */
  private async poll(): Promise<void> {
    const cohorts = [...this.cohorts.values()];
    for (let start = 0; start < cohorts.length && !this.stopped; start += this.options.batchSize) {
      const batch = cohorts.slice(start, start + this.options.batchSize);
      let answers: Map<string, string>;
      try {
        answers = await this.query(batch);
      } catch (error) {
        const body = errorBody(this.answerable(error), this.options.showsInternal);
        for (const cohort of batch) this.deliver(cohort, body);
        continue;
      }
      for (const cohort of batch) {
        const result = answers.get(cohort.id);
        this.deliver(cohort, `${this.prefix}${result ?? "null"}}}`);
      }
    }
  }

  private async query(batch: Cohort[]): Promise<Map<string, string>> {
    const { text } = this.statement;
    const values = [batch.map((c) => c.id), batch.map((c) => c.vars)];
    const deadline = this.options.timeLimitMs > 0 ? new LightAbortController() : undefined;
    const timer = deadline
      ? setTimeout(() => deadline.abort(timeLimitExceeded(this.options.timeLimitMs / 1000, false)), this.options.timeLimitMs)
      : undefined;
    try {
      const { rows } = await this.db.query<{ id: string; result: string | null }>(
        { text, values },
        { name: this.statementName, signal: deadline?.signal, maxResponseBytes: this.options.responseBytes },
      );
      if (rows.length === 0 && batch.length > 0) throw noResultRow({ text, values });
      return new Map(rows.map((r) => [r.id, r.result ?? "null"]));
    } finally {
      clearTimeout(timer);
    }
  }

  private answerable(error: unknown): HasuraError {
    if (error instanceof ResponseTooLargeError)
      return responseSizeLimitExceeded(this.options.responseBytes, { found: error.maxBytes, setting: LIMIT_SETTINGS.responseBytes });
    const answer = error instanceof HasuraError ? error : fromPostgres(error);
    if (answer.hasuraCode === "unexpected") this.options.logger?.error({ err: error }, "a live query's poll failed");
    return answer;
  }

  /** Pushes an answer to a cohort's subscribers when it differs from the last one. */
  private deliver(cohort: Cohort, body: string): void {
    if (cohort.last === body || !this.cohorts.has(cohort.vars)) return;
    cohort.last = body;
    for (const subscriber of cohort.subscribers) subscriber.push(body);
  }
}
