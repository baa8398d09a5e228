/**
 * Delivers the events of `hdb_catalog.event_log`, on every engine instance at once (queue.ts
 * shares the work): at most HASURA_GRAPHQL_EVENTS_HTTP_POOL_SIZE deliveries at a time, events
 * taken HASURA_GRAPHQL_EVENTS_FETCH_BATCH_SIZE at a time, as Hasura does
 * (https://hasura.io/docs/latest/event-triggers/observability-and-performance/).
 *
 * When to look for events: at once when a table with an event trigger was written (the change
 * signal's notification, on the listening connection live queries use), when a retry falls due,
 * and every HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL in any case (what Hasura does alone; it is all
 * that is left when notifications cannot be received, e.g. behind a transaction-mode pooler).
 * An interval of 0 turns delivery off on the instance.
 *
 * Leases: the events an instance holds have their `locked` time renewed every third of the lease,
 * so a slow handler's event is never taken by another instance while it runs. Should renewals
 * fail for two thirds of the lease (the database unreachable), the deliveries in flight are
 * abandoned before the lease can run out. A dead instance's events are taken over once their
 * lease is over; on a graceful stop, the instance waits a little for its deliveries, then gives
 * the rest back.
 */
import type { Database } from "@platform/core";
import { CleanupScheduler } from "./cleanup.js";
import { deliver } from "./delivery.js";
import { type QueuedEvent, type Recorded, recordAttempts, releaseEvents, renewLeases, takeEvents } from "./queue.js";
import type { EventTrigger } from "./triggers.js";

/**
 * A wake-up waits this long before looking, so that the events of many small transactions
 * committed together are taken in one statement (each writing statement notifies).
 */
const WAKE_GATHER_MS = 5;
/** Attempts are recorded together: up to this many, or what finished within RECORD_GATHER_MS. */
const RECORD_BATCH = 100;
const RECORD_GATHER_MS = 5;

/** HASURA_GRAPHQL_EVENTS_LEASE_SECONDS's default. */
export const DEFAULT_LEASE_MS = 30_000;

export interface EventWorkerOptions {
  httpPoolSize: number;
  /** 0: this instance delivers nothing. */
  fetchIntervalMs: number;
  fetchBatchSize: number;
  leaseMs: number;
  env: Record<string, string | undefined>;
  /** How long a graceful stop waits for deliveries in flight. */
  stopGraceMs?: number;
}

interface Logger {
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}

export class EventWorker {
  private triggers = new Map<string, EventTrigger>();
  private tables = new Set<string>();
  private readonly held = new Map<string, { controller: AbortController; done: Promise<void> }>();
  private pumping: Promise<void> | undefined;
  private again = false;
  private stopped = true;
  private poll: NodeJS.Timeout | undefined;
  private renew: NodeJS.Timeout | undefined;
  private retry: { timer: NodeJS.Timeout; at: number } | undefined;
  private lastRenewal = Date.now();
  private gathering: NodeJS.Timeout | undefined;
  /** Attempts waiting to be recorded, each with what to call once it is. */
  private toRecord: Array<{ attempt: Recorded; recorded: () => void }> = [];
  private recordTimer: NodeJS.Timeout | undefined;
  private readonly cleanups: CleanupScheduler;

  constructor(
    private readonly db: Database,
    private readonly options: EventWorkerOptions,
    private readonly logger?: Logger,
  ) {
    this.cleanups = new CleanupScheduler(db, logger);
  }

  get leaseMs(): number {
    return this.options.leaseMs;
  }

  get enabled(): boolean {
    return this.options.fetchIntervalMs > 0;
  }

  /** The triggers now in metadata (events of others are not taken). */
  setTriggers(triggers: Map<string, EventTrigger>): void {
    this.triggers = triggers;
    this.tables = new Set([...triggers.values()].map((t) => `${t.table.schema}.${t.table.name}`));
    this.cleanups.setTriggers(triggers.values());
    this.wake();
  }

  /** Whether a write to `table` (`schema.name`) may have made events. */
  captures(table: string): boolean {
    return this.tables.has(table);
  }

  start(): void {
    if (!this.enabled || !this.stopped) return;
    this.stopped = false;
    this.poll = setInterval(() => this.wake(), this.options.fetchIntervalMs);
    this.poll.unref();
    this.renew = setInterval(() => void this.renewHeld(), Math.max(100, Math.floor(this.options.leaseMs / 3)));
    this.renew.unref();
    this.cleanups.start();
    this.wake();
  }

  /** Looks for due events in a few milliseconds (or as soon as the current look is done). */
  wake(): void {
    if (this.stopped || this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = undefined;
      this.look();
    }, WAKE_GATHER_MS);
  }

  private look(): void {
    if (this.stopped) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = this.pump().finally(() => {
      this.pumping = undefined;
      if (this.again) {
        this.again = false;
        this.look();
      }
    });
  }

  private async pump(): Promise<void> {
    const names = [...this.triggers.keys()];
    while (!this.stopped && names.length > 0) {
      const free = this.options.httpPoolSize - this.held.size;
      const wanted = Math.min(free, this.options.fetchBatchSize);
      if (wanted <= 0) return;
      let events: QueuedEvent[];
      try {
        events = await takeEvents(this.db, names, wanted, this.options.leaseMs);
      } catch (error) {
        this.logger?.warn({ err: error }, "events could not be fetched; trying again at the next interval");
        return;
      }
      for (const event of events) this.startDelivery(event);
      if (events.length < wanted) return;
    }
  }

  private startDelivery(event: QueuedEvent): void {
    const controller = new AbortController();
    const done = this.handle(event, controller.signal)
      .catch((error: unknown) => {
        if (!controller.signal.aborted) this.logger?.error({ err: error, eventId: event.id }, "event delivery failed unexpectedly");
      })
      .finally(() => {
        this.held.delete(event.id);
        this.wake();
      });
    this.held.set(event.id, { controller, done });
  }

  private async handle(event: QueuedEvent, signal: AbortSignal): Promise<void> {
    const trigger = this.triggers.get(event.trigger_name);
    if (!trigger) {
      await releaseEvents(this.db, [event.id]);
      return;
    }
    const attempt = await deliver(event, trigger, this.options.env, signal);
    if (signal.aborted) return;
    await this.record({ event, invocation: attempt.invocation, outcome: attempt.outcome });
    if (attempt.failure) {
      this.logger?.warn(
        { eventId: event.id, trigger: trigger.name, tries: event.tries + 1, reason: attempt.failure },
        "event not delivered",
      );
    }
    if (attempt.outcome.kind === "retry") this.wakeAfter(attempt.outcome.afterMs);
  }

  /** Resolves once the attempt is recorded, with others that finished about the same time. */
  private record(attempt: Recorded): Promise<void> {
    return new Promise((resolve) => {
      this.toRecord.push({ attempt, recorded: resolve });
      if (this.toRecord.length >= RECORD_BATCH) void this.flush();
      else this.recordTimer ??= setTimeout(() => void this.flush(), RECORD_GATHER_MS);
    });
  }

  private async flush(): Promise<void> {
    clearTimeout(this.recordTimer);
    this.recordTimer = undefined;
    const batch = this.toRecord;
    this.toRecord = [];
    if (batch.length === 0) return;
    try {
      await recordAttempts(
        this.db,
        batch.map((b) => b.attempt),
      );
      for (const b of batch) b.recorded();
    } catch (error) {
      // Not recorded: the events stay leased, and are delivered again once their leases are over.
      this.logger?.error({ err: error, events: batch.length }, "event deliveries could not be recorded; they will be delivered again");
      for (const b of batch) b.recorded();
    }
  }

  /** One timer, for the earliest retry due. */
  private wakeAfter(ms: number): void {
    const at = Date.now() + ms;
    if (this.retry && this.retry.at <= at) return;
    if (this.retry) clearTimeout(this.retry.timer);
    const timer = setTimeout(() => {
      this.retry = undefined;
      this.wake();
    }, ms);
    timer.unref();
    this.retry = { timer, at };
  }

  private async renewHeld(): Promise<void> {
    const ids = [...this.held.keys()];
    try {
      await renewLeases(this.db, ids);
      this.lastRenewal = Date.now();
    } catch (error) {
      const since = Date.now() - this.lastRenewal;
      this.logger?.warn({ err: error, held: ids.length, sinceRenewalMs: since }, "event leases could not be renewed");
      if (since >= (this.options.leaseMs * 2) / 3) {
        // The leases may run out before they can be renewed: another instance may take these events.
        for (const { controller } of this.held.values()) controller.abort(new Error("event lease lost"));
      }
    }
  }

  /** Stops taking events, waits a little for deliveries in flight, then gives the rest back. */
  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    clearInterval(this.poll);
    clearInterval(this.renew);
    await this.cleanups.stop();
    clearTimeout(this.gathering);
    this.gathering = undefined;
    if (this.retry) clearTimeout(this.retry.timer);
    await this.pumping;
    const inFlight = [...this.held.values()].map((h) => h.done);
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(inFlight),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, this.options.stopGraceMs ?? 5000);
      }),
    ]);
    clearTimeout(timer);
    const left = [...this.held.keys()];
    for (const { controller } of this.held.values()) controller.abort(new Error("the engine is stopping"));
    await this.flush();
    await Promise.all([...this.held.values()].map((h) => h.done));
    try {
      await releaseEvents(this.db, left);
    } catch (error) {
      this.logger?.warn(
        { err: error, events: left.length },
        "events could not be given back; they are taken over when their lease is over",
      );
    }
  }
}
