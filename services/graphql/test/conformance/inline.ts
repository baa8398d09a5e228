/**
 * Tests whose body upstream is Python code rather than one case file: the context they run in and
 * the Python-assert equivalents they use. An inline test returns when its assertions hold and
 * throws InlineFailure where the Python test would fail (an `assert`, or a KeyError / TypeError
 * on the response it reads).
 */
import { type Diff, firstDiff } from "./compare.js";
import { loadFixture, readFixtureText, type TestPlan } from "./fixtures.js";
import { type CaseStep, type RunOptions, runCase, runStep } from "./run-case.js";
import type { Reply, Service } from "./service.js";
import type { CaseBase, CaseResult } from "./types.js";
import type { HarnessWsClient, Protocol } from "./ws-client.js";

export class InlineFailure extends Error {
  constructor(
    message: string,
    readonly detail: {
      diff?: Diff;
      expected?: unknown;
      actual?: unknown;
      expectedStatus?: number;
      actualStatus?: number;
      url?: string;
      /** Both bodies are errors: upstream would only have warned (see run-case.ts). */
      errorBodiesOnly?: boolean;
    } = {},
  ) {
    super(message);
  }
}

export interface InlineContext {
  base: CaseBase;
  service: Service;
  /** `hge_ctx.anyq(url, query, headers)`: one POST, nothing checked. */
  anyq(url: string, query: unknown, headers?: Record<string, string>): Promise<Reply>;
  /** `check_query_f(hge_ctx, file[, transport, gqlws])`, over http unless told; throws on the first failing step. */
  checkQueryFile(file: string, options?: RunOptions): Promise<void>;
  /** The class's WebSocket client fixture: `ws_client` ("apollo") or `ws_client_graphql_ws`. */
  ws(protocol: Protocol): HarnessWsClient;
  /** The engine's admin secret (hge_key), when it has one. */
  hgeKey: string | undefined;
  /** `check_query(hge_ctx, conf)` over http; returns the response body, throws when it fails. */
  checkQuery(conf: CaseStep): Promise<unknown>;
  /**
   * test_actions.py's `check_query_timeout(hge_ctx, conf, add_auth, timeout)`: sleep 2 s, then
   * check_query, again until it holds; once `timeout` seconds have passed a failure is final.
   */
  checkQueryTimeout(conf: CaseStep, timeoutSeconds: number): Promise<void>;
  /** `get_conf_f(file)`: a case file's parsed YAML. */
  conf(file: string): unknown;
  sleep(ms: number): Promise<void>;
}

export type InlineTest = (ctx: InlineContext) => Promise<void>;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** A failed check_query as an InlineFailure, with its step result's details. */
function asFailure(result: CaseResult, what: string): InlineFailure {
  const { diff, expected, actual, expectedStatus, actualStatus, url, errorBodiesOnly } = result;
  return new InlineFailure(`${what}: ${result.reason ?? "failed"}`, {
    diff,
    expected,
    actual,
    expectedStatus,
    actualStatus,
    url,
    ...(errorBodiesOnly ? { errorBodiesOnly } : {}),
  });
}

/** `test` is the inline test's plan: its case file runs without the steps it leaves out (skipSteps). */
export function inlineContext(
  service: Service,
  base: CaseBase,
  test: TestPlan,
  ws: (protocol: Protocol) => HarnessWsClient = () => {
    throw new Error("this class has no WebSocket client fixture");
  },
): InlineContext {
  const checkOnce = async (conf: CaseStep): Promise<{ result: CaseResult; body: unknown }> => {
    let body: unknown;
    const recording: Service = {
      ...service,
      post: async (url, payload, headers) => {
        const reply = await service.post(url, payload, headers);
        body = reply.body;
        return reply;
      },
    };
    const result = await runStep(recording, conf, 0, 1, base);
    return { result, body };
  };
  const ctx: InlineContext = {
    base,
    service,
    async anyq(url, query, headers = {}) {
      const reply = await service.post(url, query, headers);
      // anyq returns resp.json(): a body that is not JSON raises there.
      if (reply.raw !== undefined)
        throw new InlineFailure(`POST ${url}: the response is not JSON (JSONDecodeError)`, {
          actualStatus: reply.status,
          actual: reply.raw,
        });
      return reply;
    },
    ws,
    hgeKey: service.adminSecret,
    async checkQueryFile(file, options) {
      const text = readFixtureText(file);
      if (text === undefined) throw new InlineFailure(`missing fixture ${file}`);
      const plan: TestPlan = { name: base.test, file, how: "check_query_f", kw: {}, transports: [options?.transport ?? "http"] };
      if (file === test.file && test.skipSteps) plan.skipSteps = test.skipSteps;
      const result = await runCase(service, plan, text, { ...base, file }, options);
      if (result.outcome === "fail") {
        const step = result.steps && result.steps > 1 ? ` step ${result.step}/${result.steps}` : "";
        throw asFailure(result, `check_query_f ${file}${step}`);
      }
    },
    async checkQuery(conf) {
      const { result, body } = await checkOnce(conf);
      if (result.outcome === "fail") throw asFailure(result, "check_query");
      return body;
    },
    async checkQueryTimeout(conf, timeoutSeconds) {
      const waitUntil = Date.now() + timeoutSeconds * 1000;
      for (;;) {
        await sleep(2000);
        const { result } = await checkOnce(conf);
        // Upstream only warns when both bodies are errors that differ (no AssertionError, so no retry);
        // the runner is stricter and counts it as a failure, flagged like any other such case.
        if (result.outcome === "pass") return;
        if (result.errorBodiesOnly || Date.now() > waitUntil) throw asFailure(result, `check_query_timeout (${timeoutSeconds} s)`);
      }
    },
    conf: (file) => loadFixture(file),
    sleep,
  };
  return ctx;
}

/** `assert code == expected, resp` */
export function assertStatus(reply: Reply, expected: number, what: string): void {
  if (reply.status !== expected)
    throw new InlineFailure(`${what}: status ${reply.status}, expected ${expected}`, {
      expectedStatus: expected,
      actualStatus: reply.status,
      actual: reply.body,
    });
}

/** `assert actual == expected` on a value read from a response. */
export function assertEqual(actual: unknown, expected: unknown, where: string, body?: unknown): void {
  const diff = firstDiff(expected, actual, where);
  if (diff) throw new InlineFailure(`assertion failed at ${where}`, { diff, expected, actual: body ?? actual });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** `key in value` (Python: a dict's keys, a list's items). */
export function has(value: unknown, key: string, where: string, body?: unknown): boolean {
  if (isObject(value)) return key in value;
  if (Array.isArray(value)) return value.includes(key);
  if (typeof value === "string") return value.includes(key);
  throw new InlineFailure(`TypeError: argument of type '${value === null ? "NoneType" : typeof value}' is not iterable (${where})`, {
    actual: body ?? value,
  });
}

/** `body[k1][k2]...`, failing as Python's KeyError / IndexError / TypeError would. */
export function dig(body: unknown, ...keys: (string | number)[]): unknown {
  let value = body;
  let where = "$";
  for (const key of keys) {
    const next = typeof key === "number" ? `${where}[${key}]` : `${where}.${key}`;
    if (typeof key === "number" ? Array.isArray(value) && key < value.length : isObject(value) && key in value) {
      value = (value as Record<string | number, unknown>)[key];
      where = next;
      continue;
    }
    const kind = typeof key === "number" ? (Array.isArray(value) ? "IndexError" : "TypeError") : isObject(value) ? "KeyError" : "TypeError";
    throw new InlineFailure(`${kind} reading ${next}`, { actual: body });
  }
  return value;
}
