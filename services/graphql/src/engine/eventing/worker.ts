/**
 * Delivers the events of `hdb_catalog.event_log` (queue.ts), as a {@link QueueWorker}: woken at
 * once when a table with an event trigger was written (the change signal's notification, on the
 * listening connection live queries use), and every HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL in any
 * case (what Hasura does alone; it is all that is left when notifications cannot be received,
 * e.g. behind a transaction-mode pooler). Runs the triggers' scheduled log cleanups (cleanup.ts).
 */
import type { Database } from "@platform/core";
import { CleanupScheduler } from "./cleanup.js";
import { deliver } from "./delivery.js";
import { type QueuedEvent, type Recorded, recordAttempts, releaseEvents, renewLeases, takeEvents } from "./queue.js";
import { QueueWorker, type QueueWorkerOptions, type Tried, type WorkerLogger } from "./queue-worker.js";
import type { EventTrigger } from "./triggers.js";

/** HASURA_GRAPHQL_EVENTS_LEASE_SECONDS's default. */
export const DEFAULT_LEASE_MS = 30_000;

export type EventWorkerOptions = QueueWorkerOptions;

export class EventWorker extends QueueWorker<QueuedEvent, Recorded> {
  private triggers = new Map<string, EventTrigger>();
  private tables = new Set<string>();
  private readonly cleanups: CleanupScheduler;

  constructor(
    private readonly db: Database,
    options: EventWorkerOptions,
    logger?: WorkerLogger,
  ) {
    super(options, logger, "event");
    this.cleanups = new CleanupScheduler(db, logger);
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

  override start(): void {
    if (!this.enabled) return;
    super.start();
    this.cleanups.start();
  }

  override async stop(): Promise<void> {
    await this.cleanups.stop();
    await super.stop();
  }

  protected override hasWork(): boolean {
    return this.triggers.size > 0;
  }

  protected take(limit: number): Promise<QueuedEvent[]> {
    return takeEvents(this.db, [...this.triggers.keys()], limit, this.options.leaseMs);
  }

  protected keyOf(event: QueuedEvent): string {
    return event.id;
  }

  protected renewLeases(events: QueuedEvent[]): Promise<void> {
    return renewLeases(
      this.db,
      events.map((e) => e.id),
    );
  }

  protected async release(events: QueuedEvent[]): Promise<void> {
    await releaseEvents(
      this.db,
      events.map((e) => e.id),
    );
  }

  protected recordAll(records: Recorded[]): Promise<void> {
    return recordAttempts(this.db, records);
  }

  protected async attempt(event: QueuedEvent, signal: AbortSignal): Promise<Tried<Recorded> | undefined> {
    const trigger = this.triggers.get(event.trigger_name);
    if (!trigger) {
      await this.release([event]);
      return undefined;
    }
    const attempt = await deliver(event, trigger, this.options.env, signal);
    if (attempt.failure && !signal.aborted) {
      this.logger?.warn(
        { eventId: event.id, trigger: trigger.name, tries: event.tries + 1, reason: attempt.failure },
        "event not delivered",
      );
    }
    const record = { event, invocation: attempt.invocation, outcome: attempt.outcome };
    return attempt.outcome.kind === "retry" ? { record, retryAfterMs: attempt.outcome.afterMs } : { record };
  }
}
