/**
 * Delivers scheduled triggers' events (scheduled-queue.ts), as a {@link QueueWorker}: the runs of
 * cron triggers and one-off scheduled events, each POSTed with Hasura's payload
 * (https://hasura.io/docs/latest/scheduled-triggers/create-cron-trigger/): `id`, the cron
 * trigger's `name`, `scheduled_time`, `payload`, `comment` when there is one, and, for a
 * one-off event, `created_at`. An event taken later than its `tolerance_seconds` after its
 * scheduled time is not sent: it is marked `dead`, as Hasura does.
 *
 * It looks for due events every HASURA_GRAPHQL_EVENTS_FETCH_INTERVAL (Hasura looks every ten
 * seconds), at once when a one-off event is created through this instance, and when a retry
 * falls due. Every minute it tops the cron triggers' materialised runs up (cron.ts).
 */
import type { Database } from "@platform/core";
import { transformsOf } from "../transforms/config.js";
import { type CronTrigger, parseRetryConf, type ScheduledRetryConf, syncCronEvents } from "./cron.js";
import { QueueWorker, type QueueWorkerOptions, type Tried, type WorkerLogger } from "./queue-worker.js";
import {
  recordScheduled,
  releaseScheduled,
  renewScheduled,
  type ScheduledEvent,
  type ScheduledRecord,
  takeScheduled,
} from "./scheduled-queue.js";
import { afterFailure, parseHeaders, postWebhook, type WebhookTarget } from "./webhook.js";

const SYNC_INTERVAL_MS = 60_000;

/** What an event is sent with: its trigger's configuration, or its own for a one-off event. */
interface Delivery {
  target: WebhookTarget;
  retry: ScheduledRetryConf;
  payload: unknown;
  comment?: string | null;
  /** Why a one-off event's stored transform cannot be read: it is marked as an error, not sent. */
  problem?: string;
}

/** A one-off event's `webhook_conf`: the URL, or `{from_env}`. */
function webhookOf(conf: unknown): WebhookTarget["webhook"] {
  if (typeof conf === "object" && conf !== null && typeof (conf as { from_env?: unknown }).from_env === "string")
    return { fromEnv: (conf as { from_env: string }).from_env };
  return { url: typeof conf === "string" ? conf : "" };
}

/** The body the webhook receives (Hasura's ScheduledEventWebhookPayload). */
export function scheduledPayload(event: ScheduledEvent, delivery: Delivery) {
  return {
    id: event.id,
    ...(event.kind === "cron" ? { name: event.trigger_name } : {}),
    scheduled_time: event.scheduled_time,
    payload: delivery.payload ?? null,
    ...(delivery.comment ? { comment: delivery.comment } : {}),
    ...(event.kind === "one_off" ? { created_at: event.created_at } : {}),
  };
}

export class ScheduledWorker extends QueueWorker<ScheduledEvent, ScheduledRecord> {
  private triggers = new Map<string, CronTrigger>();
  private sync: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Database,
    options: QueueWorkerOptions,
    logger?: WorkerLogger,
  ) {
    super(options, logger, "scheduled event");
  }

  /** The cron triggers now in metadata (runs of others are not taken). */
  setTriggers(triggers: Map<string, CronTrigger>): void {
    this.triggers = triggers;
    this.wake();
  }

  override start(): void {
    if (!this.enabled || this.sync) return;
    super.start();
    this.sync = setInterval(() => {
      syncCronEvents(this.db, this.triggers.values()).catch((error: unknown) =>
        this.logger?.warn({ err: error }, "cron triggers' next runs could not be materialised"),
      );
    }, SYNC_INTERVAL_MS);
    this.sync.unref();
  }

  override async stop(): Promise<void> {
    clearInterval(this.sync);
    this.sync = undefined;
    await super.stop();
  }

  protected take(limit: number): Promise<ScheduledEvent[]> {
    return takeScheduled(this.db, [...this.triggers.keys()], limit, this.options.leaseMs);
  }

  protected keyOf(event: ScheduledEvent): string {
    return `${event.kind}:${event.id}`;
  }

  protected renewLeases(events: ScheduledEvent[]): Promise<void> {
    return renewScheduled(this.db, events);
  }

  protected release(events: ScheduledEvent[]): Promise<void> {
    return releaseScheduled(this.db, events);
  }

  protected recordAll(records: ScheduledRecord[]): Promise<void> {
    return recordScheduled(this.db, records);
  }

  private deliveryOf(event: ScheduledEvent): Delivery | undefined {
    if (event.kind === "one_off") {
      const retry = parseRetryConf(event.retry_conf);
      // Checked by create_scheduled_event; a row written otherwise with one that cannot be read is not sent (attempt).
      const read = transformsOf({ request_transform: event.request_transform, response_transform: event.response_transform });
      const transforms = "transforms" in read ? read.transforms : undefined;
      return {
        ...("problem" in read ? { problem: read.problem } : {}),
        target: {
          webhook: webhookOf(event.webhook_conf),
          headers: parseHeaders(event.header_conf),
          timeoutSec: retry.timeoutSec,
          transforms,
        },
        retry,
        payload: event.payload,
        comment: event.comment,
      };
    }
    const trigger = this.triggers.get(event.trigger_name ?? "");
    if (!trigger) return undefined;
    return {
      target: { webhook: trigger.webhook, headers: trigger.headers, timeoutSec: trigger.retry.timeoutSec, transforms: trigger.transforms },
      retry: trigger.retry,
      payload: trigger.payload,
      comment: trigger.comment,
    };
  }

  protected async attempt(event: ScheduledEvent, signal: AbortSignal): Promise<Tried<ScheduledRecord> | undefined> {
    const delivery = this.deliveryOf(event);
    if (!delivery) {
      await this.release([event]);
      return undefined;
    }
    if (event.late_ms > delivery.retry.toleranceSec * 1000) return { record: { event, outcome: { kind: "dead" } } };
    if (delivery.problem) {
      this.logger?.warn({ eventId: event.id, kind: event.kind, reason: delivery.problem }, "scheduled event's transform cannot be read");
      return { record: { event, outcome: { kind: "error" } } };
    }
    const posted = await postWebhook(delivery.target, scheduledPayload(event, delivery), this.options.env, signal);
    // A request transform that fails marks the event as an error at once, as for event triggers.
    if ("refused" in posted) {
      this.logger?.warn(
        { eventId: event.id, kind: event.kind, trigger: event.trigger_name, errors: posted.refused },
        "request transform failed",
      );
      return { record: { event, outcome: { kind: "error" } } };
    }
    if (posted.ok) return { record: { event, invocation: posted.invocation, outcome: { kind: "delivered" } } };
    if (!signal.aborted)
      this.logger?.warn(
        { eventId: event.id, kind: event.kind, trigger: event.trigger_name, tries: event.tries + 1, reason: posted.failure },
        "scheduled event not delivered",
      );
    const { numRetries, retryIntervalSec } = delivery.retry;
    const outcome = afterFailure(event.tries, numRetries, retryIntervalSec, posted.retryAfter);
    const record = { event, invocation: posted.invocation, outcome };
    return outcome.kind === "retry" ? { record, retryAfterMs: outcome.afterMs } : { record };
  }
}
