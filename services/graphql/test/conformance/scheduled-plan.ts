/**
 * The scheduled triggers area: hasura/graphql-engine server/tests-py/test_scheduled_triggers.py as a
 * run plan, its two classes ported line for line. Each class has conftest.py's
 * `scheduled_triggers_evts_webhook`: the events receiver (events-webhook.ts, the same server as
 * test_events.py's) starts before the engine, which gets its URL as SCHEDULED_TRIGGERS_WEBHOOK_DOMAIN.
 * No state fixture: the classes create their triggers through the API (queries/scheduled_triggers/
 * teardown.yaml is used by no class). The `metadata_schema_url` engine of the Python tests reads
 * `hdb_catalog.hdb_scheduled_events` / `hdb_cron_events` in the engine's database: here the
 * service's own database (PGlite, or the class's database on CONFORMANCE_DATABASE_URL's server).
 * croniter's schedule is computed with croner (UTC, as croniter on `datetime.utcnow()`).
 * TestCronTrigger's tests depend on each other, in order; its class attributes (the schedule 30
 * minutes ahead, `init_time`) are taken when its first test starts.
 */
import { Cron } from "croner";
import { engineRows, untilAssertsPass, v1metadataq, v1q, validateEventHeaders, validateEventWebhook } from "./events-checks.js";
import { currentEventsWebhook, type DeliveredEvent } from "./events-webhook.js";
import type { ClassPlan, FolderPlan, TestPlan } from "./fixtures.js";
import { assertEqual, dig, type InlineContext, InlineFailure, type InlineTest } from "./inline.js";

const DIR = "queries/scheduled_triggers";
const evts = () => currentEventsWebhook();

/** `stringify_datetime(datetime.utcnow())`: `%Y-%m-%dT%H:%M:%S.%fZ` (microseconds). */
const stringifyDatetime = (d: Date) => d.toISOString().replace(/Z$/, "000Z");

/** A UTC instant as the naive `datetime` Python compares: `YYYY-MM-DDTHH:MM:SS.ffffff`. */
const naive = (d: Date) => d.toISOString().replace(/Z$/, "000");

const webhookPayload = { foo: "baz" };
const headerConf = [{ name: "header-key", value: "header-value" }];

const testScheduledEvents: InlineTest = async (ctx) => {
  const url = evts().url;
  const query = {
    type: "bulk",
    args: [
      // Succeeds
      {
        type: "create_scheduled_event",
        args: {
          webhook: `${url}/test`,
          schedule_at: stringifyDatetime(new Date()),
          payload: webhookPayload,
          headers: headerConf,
          comment: "test scheduled event",
        },
      },
      // Fails immediately, with 'dead'
      {
        type: "create_scheduled_event",
        args: { webhook: `${url}/`, schedule_at: "2020-01-01T00:00:00Z", payload: webhookPayload, headers: headerConf },
      },
      // Fails on request, trying twice
      {
        type: "create_scheduled_event",
        args: {
          webhook: `${url}/fail`,
          schedule_at: stringifyDatetime(new Date()),
          payload: webhookPayload,
          headers: headerConf,
          retry_conf: { num_retries: 1, retry_interval_seconds: 1, timeout_seconds: 1, tolerance_seconds: 21600 },
        },
      },
    ],
  };
  const resp = await v1q(ctx, query);
  if (!Array.isArray(resp) || resp.length !== 3) throw new InlineFailure("assert len(resp) == 3", { actual: resp });
  if (!resp.every((r) => typeof r === "object" && r !== null && "event_id" in r))
    throw new InlineFailure("assert all(['event_id' in r for r in resp])", { actual: resp });

  // At least 10 s upstream (processScheduledTriggers' sleep): 12 s each.
  const received: DeliveredEvent[] = [];
  for (let i = 0; i < 3; i++) received.push(await evts().getEvent(12_000));
  const [eventFail1, eventFail2, eventSuccess] = [...received].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) as [
    DeliveredEvent,
    DeliveredEvent,
    DeliveredEvent,
  ];
  validateEventWebhook(eventFail1.path, "/fail", eventFail1);
  validateEventWebhook(eventFail2.path, "/fail", eventFail2);

  const rows = await engineRows<{ created_at: string }>(
    ctx.service,
    `select to_json(timezone('utc', created_at))::text as created_at
       from hdb_catalog.hdb_scheduled_events
       where comment = 'test scheduled event'`,
  );
  if (rows[0] === undefined) throw new InlineFailure("assert result is not None: no hdb_scheduled_events row with the comment");
  const dbCreatedAt = JSON.parse(rows[0].created_at) as string;

  validateEventWebhook(eventSuccess.path, "/test", eventSuccess);
  validateEventHeaders(eventSuccess.headers, { "header-key": "header-value" }, eventSuccess);
  assertEqual(dig(eventSuccess.body, "payload"), webhookPayload, "event_success['body']['payload']", eventSuccess);
  assertEqual(
    dig(eventSuccess.body, "created_at"),
    `${dbCreatedAt.replace(" ", "T")}Z`,
    "event_success['body']['created_at']",
    eventSuccess,
  );
  for (const k of ["scheduled_time", "created_at", "id"])
    if (typeof eventSuccess.body !== "object" || eventSuccess.body === null || !(k in eventSuccess.body))
      throw new InlineFailure(`assert '${k}' in payload_keys`, { actual: eventSuccess });
  // `assert scheduled_triggers_evts_webhook.is_queue_empty()` holds vacuously upstream (the bound
  // method `resp_queue.empty` is truthy, it is never called): not checked here either.

  await untilAssertsPass(100, async () => {
    const statuses = await engineRows<{ status: string; tries: number }>(
      ctx.service,
      "select status, tries from hdb_catalog.hdb_scheduled_events order by status desc",
    );
    assertEqual(
      statuses.map((r) => [r.status, Number(r.tries)]),
      [
        ["error", 2],
        ["delivered", 1],
        ["dead", 0],
      ],
      "hdb_scheduled_events (status, tries) order by status desc",
    );
  });
};

// --- TestCronTrigger -----------------------------------------------------------------------------

const CRON_TRIGGER = "cron_trigger";

interface CronClass {
  cronSchedule: string;
  initTime: Date;
}
let cronClass: CronClass | undefined;

/** The class attributes, taken once (Python: when the module is imported). */
function attrs(): CronClass {
  if (!cronClass) {
    const now = new Date();
    const minAfter30Mins = new Date(now.getTime() + 30 * 60_000).getUTCMinutes();
    cronClass = { cronSchedule: `${minAfter30Mins} * * * *`, initTime: now };
  }
  return cronClass;
}

/** `croniter(schedule, start)`'s next 100 times. */
function next100(schedule: string, start: Date): string[] {
  return new Cron(schedule, { timezone: "UTC", paused: true }).nextRuns(100, start).map(naive);
}

/** `verify_timestamps`: the trigger's events' times, in UTC, equal the expected ones. */
async function verifyTimestamps(ctx: InlineContext, expected: string[]): Promise<void> {
  const rows = await engineRows<{ scheduled_time: string; kind: string }>(
    ctx.service,
    `select to_char(timezone('utc', scheduled_time), 'YYYY-MM-DD"T"HH24:MI:SS.US') as scheduled_time,
            pg_typeof(timezone('utc', scheduled_time))::text as kind
       from hdb_catalog.hdb_cron_events
       where trigger_name = $1
       order by scheduled_time asc`,
    [CRON_TRIGGER],
  );
  // Python compares naive datetimes: a timestamptz column gives them, a timestamp column aware ones.
  const aware = rows.find((r) => r.kind !== "timestamp without time zone");
  if (aware) throw new InlineFailure(`timezone('utc', scheduled_time) is ${aware.kind}: never equal to croniter's naive datetimes`);
  assertEqual(
    rows.map((r) => r.scheduled_time),
    expected,
    "hdb_cron_events.scheduled_time (UTC) of cron_trigger",
  );
}

const cronTriggerArgs = (name: string, webhook: string, schedule: string, header: { name: string; value: string }, include: boolean) => ({
  name,
  webhook,
  schedule,
  headers: [header],
  payload: { foo: "baz" },
  include_in_metadata: include,
});

const retryConfDefault = { num_retries: 0, retry_interval_seconds: 10, timeout_seconds: 60, tolerance_seconds: 21600 };

const cronTests: Record<string, InlineTest> = {
  test_create_cron_schedule_triggers: async (ctx) => {
    const args = cronTriggerArgs(CRON_TRIGGER, `${evts().url}/foo`, attrs().cronSchedule, { name: "foo", value: "baz" }, true);
    const resp = await v1q(ctx, { type: "create_cron_trigger", args });
    assertEqual(dig(resp, "message"), "success", "resp['message']", resp);
  },
  test_check_generated_cron_scheduled_events: async (ctx) => {
    await verifyTimestamps(ctx, next100(attrs().cronSchedule, attrs().initTime));
  },
  test_update_existing_cron_trigger: async (ctx) => {
    const expected = next100(attrs().cronSchedule, new Date());
    const header = { name: "header-name", value: "header-value" };
    const args = { ...cronTriggerArgs(CRON_TRIGGER, `${evts().url}/foo`, attrs().cronSchedule, header, true), replace: true };
    await v1q(ctx, { type: "create_cron_trigger", args });
    const resp = await v1q(ctx, { type: "export_metadata", args: {} });
    const all = dig(resp, "cron_triggers");
    if (!Array.isArray(all)) throw new InlineFailure("TypeError: resp['cron_triggers'] is not a list", { actual: resp });
    for (const trigger of all)
      if (dig(trigger, "name") === CRON_TRIGGER) assertEqual(dig(trigger, "headers"), [header], "cron_trigger['headers']", resp);
    await verifyTimestamps(ctx, expected);
  },
  test_check_fired_webhook_event: async (ctx) => {
    const header = { name: "header-key", value: "header-value" };
    await v1q(ctx, {
      type: "create_cron_trigger",
      args: cronTriggerArgs("test_cron_trigger", `${evts().url}/test`, "* * * * *", header, false),
    });
    // The next minute, and the processor's up to 10 s after it: 75 s at most.
    const event = await evts().getEvent(75_000);
    validateEventWebhook(event.path, "/test", event);
    validateEventHeaders(event.headers, { "header-key": "header-value" }, event);
    assertEqual(dig(event.body, "payload"), { foo: "baz" }, "event['body']['payload']", event);
    assertEqual(dig(event.body, "name"), "test_cron_trigger", "event['body']['name']", event);
  },
  test_get_cron_triggers: async (ctx) => {
    const url = evts().url;
    const resp = await v1metadataq(ctx, { type: "get_cron_triggers", args: {} });
    assertEqual(
      dig(resp, "cron_triggers"),
      [
        {
          ...cronTriggerArgs(CRON_TRIGGER, `${url}/foo`, attrs().cronSchedule, { name: "header-name", value: "header-value" }, true),
          retry_conf: retryConfDefault,
        },
        {
          ...cronTriggerArgs("test_cron_trigger", `${url}/test`, "* * * * *", { name: "header-key", value: "header-value" }, false),
          retry_conf: retryConfDefault,
        },
      ],
      "respDict['cron_triggers']",
      resp,
    );
  },
  test_export_and_import_cron_triggers: async (ctx) => {
    const resp = await v1q(ctx, { type: "export_metadata", args: {} });
    // Only the cron triggers with include_in_metadata set are exported.
    assertEqual(
      dig(resp, "cron_triggers"),
      [cronTriggerArgs(CRON_TRIGGER, `${evts().url}/foo`, attrs().cronSchedule, { name: "header-name", value: "header-value" }, true)],
      "respDict['cron_triggers']",
      resp,
    );
    await v1q(ctx, { type: "replace_metadata", args: { metadata: resp } });
    const rows = await engineRows<{ count: unknown }>(
      ctx.service,
      "select count(1) as count from hdb_catalog.hdb_cron_events where trigger_name = $1",
      [CRON_TRIGGER],
    );
    if (rows[0] === undefined) throw new InlineFailure("assert result is not None");
    assertEqual(Number(rows[0].count), 100, "count of cron_trigger's hdb_cron_events after replace_metadata");
  },
  test_attempt_to_create_duplicate_cron_trigger_fail: async (ctx) => {
    const header = { name: "header-key", value: "header-value" };
    const args = cronTriggerArgs("test_cron_trigger", `${evts().url}/test`, "* * * * *", header, false);
    const resp = await v1q(ctx, { type: "create_cron_trigger", args }, {}, 400);
    assertEqual(
      resp,
      { code: "already-exists", error: "cron trigger with name: test_cron_trigger already exists", path: "$.args" },
      "dict(resp)",
    );
  },
  test_delete_cron_scheduled_trigger: async (ctx) => {
    await v1q(ctx, {
      type: "bulk",
      args: [
        { type: "delete_cron_trigger", args: { name: CRON_TRIGGER } },
        { type: "delete_cron_trigger", args: { name: "test_cron_trigger" } },
      ],
    });
  },
};

function inlineTest(name: string, inline: InlineTest): TestPlan {
  return { name, file: "", how: "inline", kw: {}, transports: ["http"], inline };
}

function classPlan(name: string, tests: TestPlan[]): ClassPlan {
  return {
    folder: DIR,
    name,
    mode: "none",
    postgis: false,
    tests,
    helpers: { eventsWebhook: "SCHEDULED_TRIGGERS_WEBHOOK_DOMAIN" },
  };
}

const CLASSES: ClassPlan[] = [
  classPlan("TestScheduledEvent", [inlineTest("test_scheduled_events", testScheduledEvents)]),
  classPlan(
    "TestCronTrigger",
    Object.entries(cronTests).map(([name, body]) => inlineTest(name, body)),
  ),
];

/** The scheduled triggers area: one folder plan. */
export function loadScheduledPlan(): FolderPlan[] {
  return [
    {
      folder: DIR,
      priority: "scheduled_triggers",
      area: "scheduled_triggers",
      subscription: false,
      classes: CLASSES,
      unreferenced: [],
    },
  ];
}
