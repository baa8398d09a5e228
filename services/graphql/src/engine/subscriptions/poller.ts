/**
 * A subscription's poller, as Hasura runs them (https://hasura.io/docs/2.0/subscriptions/postgres/livequery/execution/):
 * one per role and query shape. Its subscribers are grouped in cohorts by the values the query
 * reads (the request's variables and the session variables it uses: the statement's resolved
 * parameters); every refetch interval, after the previous poll ended, the cohorts are polled in
 * batches, one multiplexed statement per batch (multiplex.ts). A new cohort is polled at once; a
 * poller with no cohort stops. While the change signal covers what its statement reads
 * (change-signal.ts), a poller polls only when one of those tables was written, not every interval;
 * not while one of its cohorts compares a date or time with the clock (`now`, `today`: PostgreSQL
 * reads them when the statement runs, so the answer changes with no write).
 *
 * A live query's cohort is pushed its answer only when it differs from the last one pushed, and
 * a subscriber joining it gets that last answer at once. A stream's cohort is pushed each batch
 * that has rows (never an empty one), and then moves on to the batch's last cursor value: it is
 * keyed by its values cursor included, so a new subscriber joins only a cohort that has not moved
 * from the same start, and cohorts whose cursors meet are merged (Hasura's streaming poller).
 *
 * Nothing here knows of WebSockets: a subscriber is anything that takes an answer's JSON text.
 */
import { type Database, LightAbortController, ResponseTooLargeError, statementName } from "@platform/core";
import type { Dependencies } from "../compiler/context.js";
import { resolveParams, type SlotInput } from "../compiler/slot.js";
import { errorBody } from "../errors/body.js";
import { HasuraError, noResultRow, responseSizeLimitExceeded, timeLimitExceeded } from "../errors/index.js";
import { fromPostgres } from "../errors/postgres.js";
import { LIMIT_SETTINGS } from "../limits/statements.js";
import type { ChangeSignal } from "./change-signal.js";
import { cohortValues, type MultiplexedStatement, namesClock } from "./multiplex.js";

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
  /**
   * Milliseconds a poller woken by the change signal waits after its previous poll ended (0: at
   * once), so that a table written without pause does not keep its pollers polling back to back.
   */
  signalGapMs?: number;
  /** Milliseconds one poll statement may run; 0 for no limit. */
  timeLimitMs: number;
  /** Whether errors show `extensions.internal` to these subscribers (their role's rule). */
  showsInternal: boolean;
  /** Where an unexpected failure of a poll is logged. */
  logger?: { error(details: object, message: string): void } | undefined;
}

interface Cohort {
  id: string;
  /** What the statement's parameters are read from for this cohort (a stream's cursor with them). */
  input: SlotInput;
  /** The cohort's values, as the statement's `vars` column carries them. */
  vars: string;
  subscribers: Set<Subscriber>;
  /** The answer last pushed (a new subscriber gets it at once). */
  last: string | undefined;
  /** Its values compare a date or time with the clock (`now`): its answer changes with no write. */
  clock: boolean;
}

let cohortIds = 0;

export class LivePoller {
  private readonly cohorts = new Map<string, Cohort>();
  private readonly statementName: string;
  private timer: NodeJS.Timeout | undefined;
  /** When the timer fires (performance.now()). */
  private timerDue = Number.POSITIVE_INFINITY;
  private polling = false;
  /** A cohort or a change came while a poll ran: poll again this many ms after it. */
  private again: number | undefined;
  /** When the last poll ended (performance.now()). */
  private ended = Number.NEGATIVE_INFINITY;
  /** The last poll pushed a stream's batch: more rows may be waiting past the cursor. */
  private streamed = false;
  private stopped = false;
  /** Cohorts whose values name the clock: while there is one, the poller polls every interval. */
  private clocked = 0;

  constructor(
    private readonly db: Database,
    private readonly statement: MultiplexedStatement,
    /** `{"data":{"<response key>":` : what each answer is wrapped in. */
    private readonly prefix: string,
    private readonly options: PollerOptions,
    /** Called once the poller has no subscriber left (its owner forgets it). */
    private readonly onIdle: () => void,
    /** A stream's poller (its cohorts move on with their cursor). */
    private readonly stream = false,
    /** What the statement reads and the change signal that may tell when it changed (change-signal.ts). */
    private readonly watch?: { reads: Dependencies; signal: ChangeSignal },
  ) {
    this.statementName = statementName(statement.text);
  }

  get size(): number {
    let subscribers = 0;
    for (const cohort of this.cohorts.values()) subscribers += cohort.subscribers.size;
    return subscribers;
  }

  /** Adds a subscriber whose statement parameters are read from `input`; returns how it leaves. */
  join(input: SlotInput, subscriber: Subscriber): () => void {
    const { vars, clock } = this.valuesOf(input);
    let cohort = this.cohorts.get(vars);
    if (!cohort) {
      cohortIds += 1;
      cohort = { id: String(cohortIds), input, vars, subscribers: new Set(), last: undefined, clock };
      this.add(cohort);
      this.pollSoon(0);
    } else if (cohort.last !== undefined && !this.stream) subscriber.push(cohort.last);
    cohort.subscribers.add(subscriber);
    return () => {
      // The subscriber's cohort now (a stream's may have been merged into another since).
      for (const each of this.cohorts.values()) {
        if (!each.subscribers.delete(subscriber)) continue;
        if (each.subscribers.size === 0) this.remove(each);
        break;
      }
      if (this.cohorts.size === 0) this.stop();
    };
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    clearTimeout(this.timer);
    this.cohorts.clear();
    this.clocked = 0;
    this.onIdle();
  }

  /**
   * Whether the change signal tells this poller when to poll: it covers what the statement reads,
   * and no cohort reads the clock. Otherwise it polls every refetch interval.
   */
  private get signalled(): boolean {
    const watch = this.watch;
    return watch !== undefined && this.clocked === 0 && watch.signal.covers(watch.reads);
  }

  private add(cohort: Cohort): void {
    this.cohorts.set(cohort.vars, cohort);
    if (cohort.clock) this.clocked += 1;
  }

  private remove(cohort: Cohort): void {
    if (this.cohorts.get(cohort.vars) !== cohort) return;
    this.cohorts.delete(cohort.vars);
    if (cohort.clock) this.clocked -= 1;
  }

  /**
   * A statement wrote `table`: polls if the statement reads it, at once unless the last poll ended
   * less than the signal's gap ago (a burst of writes costs one more poll at most).
   */
  changed(table: string): void {
    if (this.stopped || !this.watch?.reads.tables.has(table)) return;
    const gap = this.options.signalGapMs ?? 0;
    this.pollSoon(this.polling ? gap : Math.max(0, this.ended + gap - performance.now()));
  }

  /** The signal's connection is back (a change may have been missed: poll now) or lost (the interval takes over). */
  listening(up: boolean): void {
    if (this.stopped) return;
    if (up) this.pollSoon(0);
    else if (!this.polling && this.timer === undefined) this.schedule(this.options.refetchMs);
  }

  /** Polls in `delay` ms (after the poll running now, if one is). */
  private pollSoon(delay: number): void {
    if (this.polling) this.again = Math.min(this.again ?? delay, delay);
    else this.schedule(delay);
  }

  /** Sets the timer to `delay` ms from now, unless it already fires sooner. */
  private schedule(delay: number): void {
    const due = performance.now() + delay;
    if (this.timer !== undefined && this.timerDue <= due) return;
    clearTimeout(this.timer);
    this.timerDue = due;
    this.timer = setTimeout(() => void this.run(), delay);
  }

  private async run(): Promise<void> {
    this.timer = undefined;
    this.timerDue = Number.POSITIVE_INFINITY;
    if (this.stopped) return;
    this.polling = true;
    try {
      await this.poll();
    } catch (error) {
      // poll() answers every failure to the cohorts; anything else is a fault, logged.
      this.options.logger?.error({ err: error }, "unexpected failure of a live query's poller");
    } finally {
      this.polling = false;
      this.ended = performance.now();
    }
    if (this.stopped || this.cohorts.size === 0) return;
    const again = this.again;
    this.again = undefined;
    // Told of every change to what it reads: it waits for the next one rather than for the interval
    // (a stream that just pushed a batch polls on: rows already there may follow the batch).
    if (again === undefined && !this.streamed && this.signalled) return;
    this.schedule(Math.min(again ?? this.options.refetchMs, this.options.refetchMs));
  }

  /** Polls every cohort, batch after batch. */
  private async poll(): Promise<void> {
    this.streamed = false;
    const cohorts = [...this.cohorts.values()];
    for (let start = 0; start < cohorts.length && !this.stopped; start += this.options.batchSize) {
      const batch = cohorts.slice(start, start + this.options.batchSize);
      let answers: Map<string, { result: string | null; cursor?: string | null }>;
      try {
        answers = await this.query(batch);
      } catch (error) {
        const body = errorBody(this.answerable(error), this.options.showsInternal);
        for (const cohort of batch) this.deliver(cohort, body);
        continue;
      }
      for (const cohort of batch) {
        const answer = answers.get(cohort.id);
        if (!this.stream) {
          this.deliver(cohort, `${this.prefix}${answer?.result ?? "null"}}}`);
          continue;
        }
        // A stream: a batch with rows is pushed (whatever came before), then the cohort moves on.
        if (!answer || answer.result === null || answer.result === "[]") continue;
        if (!this.cohorts.has(cohort.vars)) continue;
        for (const subscriber of cohort.subscribers) subscriber.push(`${this.prefix}${answer.result}}}`);
        this.streamed = true;
        if (answer.cursor !== null && answer.cursor !== undefined) this.advance(cohort, answer.cursor);
      }
    }
  }

  /** The `vars` of a cohort reading its parameters from `input`, and whether they name the clock. */
  private valuesOf(input: SlotInput): { vars: string; clock: boolean } {
    const values = resolveParams(this.statement.params, input);
    return { vars: cohortValues(values), clock: this.statement.clock.some((i) => namesClock(values[i])) };
  }

  /** A stream's cohort moves its cursor on; one that meets another cohort's values joins it. */
  private advance(cohort: Cohort, cursor: string): void {
    this.remove(cohort);
    cohort.input = { ...cohort.input, cursor };
    const { vars, clock } = this.valuesOf(cohort.input);
    cohort.vars = vars;
    cohort.clock = clock;
    const met = this.cohorts.get(cohort.vars);
    if (met) for (const subscriber of cohort.subscribers) met.subscribers.add(subscriber);
    else this.add(cohort);
  }

  private async query(batch: Cohort[]): Promise<Map<string, { result: string | null; cursor?: string | null }>> {
    const { text } = this.statement;
    const values = [batch.map((c) => c.id), batch.map((c) => c.vars)];
    const deadline = this.options.timeLimitMs > 0 ? new LightAbortController() : undefined;
    const timer = deadline
      ? setTimeout(() => deadline.abort(timeLimitExceeded(this.options.timeLimitMs / 1000, false)), this.options.timeLimitMs)
      : undefined;
    try {
      const { rows } = await this.db.query<{ id: string; result: string | null; cursor?: string | null }>(
        { text, values },
        { name: this.statementName, signal: deadline?.signal, maxResponseBytes: this.options.responseBytes },
      );
      if (rows.length === 0 && batch.length > 0) throw noResultRow({ text, values });
      return new Map(rows.map((r) => [r.id, r]));
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
