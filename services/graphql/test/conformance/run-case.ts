/**
 * One upstream test: its case file's steps in order (check_query_f), stopping at the first failure
 * as the Python assertion does; or, for `hge_ctx.v1q_f`, the file POSTed to /v1/query with the
 * expected status. A step whose error body differs from the expected error body (same status)
 * fails here, but upstream only warns there and goes on (validate.py assert_graphql_resp_expected),
 * so the following steps still run (a list file often reverts its metadata change last); the test
 * reports that first soft failure unless a later step fails outright.
 */
import { firstDiff, isErrorBody } from "./compare.js";
import { parseFixture, type TestPlan, V1Q_EXPECTED_ERROR } from "./fixtures.js";
import type { Service } from "./service.js";
import { type CaseBase, type CaseResult, failed } from "./types.js";
import { type Frame, HarnessWsClient } from "./ws-client.js";

/** check_query's transports: `websocket` sends the operation over a socket, `subscription` turns it into one. */
export type Transport = "http" | "websocket" | "subscription";

/** How a case runs: its transport, and for sockets whether over `graphql-transport-ws` (`gqlws`) rather than Apollo's protocol. */
export interface RunOptions {
  transport: Transport;
  gqlws?: boolean;
}

const HTTP: RunOptions = { transport: "http" };

export interface CaseStep {
  description?: string;
  url?: string;
  status?: number;
  headers?: Record<string, unknown>;
  query?: unknown;
  response?: unknown;
  allowed_responses?: { response?: unknown }[];
}

/** The case's headers, and the admin secret when the engine has one (check_query's add_auth). */
function headersOf(step: CaseStep, service: Service): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(step.headers ?? {})) out[name] = String(value);
  if (service.adminSecret) out["X-Hasura-Admin-Secret"] = service.adminSecret;
  return out;
}

/** `check_query` on one case: the status must match and, when given, the whole body. */
export async function runStep(
  service: Service,
  step: CaseStep,
  index: number,
  steps: number,
  base: CaseBase,
  options: RunOptions = HTTP,
): Promise<CaseResult> {
  const where = { ...base, step: index + 1, steps, url: step.url, description: step.description };
  if (!step.url || step.query === undefined) return failed(where, "case has no url or query");
  // validate_gql_ws_q serves GraphQL endpoints only; a metadata step of a case file goes over HTTP.
  if (options.transport !== "http" && /\/(graphql|relay)$/.test(step.url)) return runSocketStep(service, step, where, options);
  const reply = await service.post(step.url, step.query, headersOf(step, service)).catch((error: Error) => error);
  if (reply instanceof Error) return failed(where, reply.message);
  const expectedStatus = Number(step.status ?? 200);
  const result: CaseResult = { ...where, outcome: "pass", expectedStatus, actualStatus: reply.status };
  const expectations = step.allowed_responses ? step.allowed_responses.map((a) => a.response) : "response" in step ? [step.response] : [];
  const diffs = expectations.map((expected) => firstDiff(expected, reply.body));
  const matched = expectations.length === 0 || diffs.some((d) => d === undefined);
  if (reply.status === expectedStatus && matched) return result;
  const expected = expectations[0];
  const reason = reply.status !== expectedStatus ? `status ${reply.status}, expected ${expectedStatus}` : "response differs";
  return {
    ...result,
    outcome: "fail",
    reason,
    ...(diffs[0] ? { diff: diffs[0] } : {}),
    expected,
    actual: reply.body,
    errorBodiesOnly: reply.status === expectedStatus && expectations.length > 0 && isErrorBody(expected) && isErrorBody(reply.body),
  };
}

/**
 * validate_gql_ws_q: the operation over a fresh connection (initialised with the case's headers,
 * or as admin), its first message compared with the case's response; a query then completes, a
 * subscription (`via_subscription`: `query` turned into `subscription @_multiple_top_level_fields`)
 * is stopped. Over graphql-ws an `error` message's payload is the list of errors.
 */
async function runSocketStep(service: Service, step: CaseStep, where: CaseResult | CaseBase, options: RunOptions): Promise<CaseResult> {
  if (!service.url) return failed(where, "the service does not listen: no WebSocket to run the case over");
  if (!("response" in step)) return failed(where, "a case run over a WebSocket needs a response (validate_gql_ws_q)");
  const query = { ...(step.query as Record<string, unknown>) };
  if (options.transport === "subscription") {
    const text = String(query.query ?? "");
    if (!text.startsWith("query ")) return failed(where, `a case run as a subscription must start with "query ": ${text.slice(0, 40)}`);
    query.query = `subscription${text.slice("query".length).replace("{", " @_multiple_top_level_fields {")}`;
  }
  const client = new HarnessWsClient(
    `${service.url.replace(/^http/, "ws")}${step.url}`,
    options.gqlws ? "graphql-ws" : "apollo",
    service.adminSecret,
  );
  const expected = step.response;
  const result: CaseResult = { ...where, outcome: "pass" };
  try {
    const headers = headersOf(step, service);
    await (Object.keys(headers).length === 0 ? client.initAsAdmin() : client.init(headers));
    const next = await client.sendQuery(query as Frame, "hge_test");
    const first = await next();
    const expectsError = typeof expected === "object" && expected !== null && ("errors" in expected || "error" in expected);
    const allowed = expectsError ? ["data", "error", "next"] : ["data", "next"];
    if (!allowed.includes(String(first.type)))
      return { ...result, outcome: "fail", reason: `first message is ${first.type}`, actual: first };
    if (!("payload" in first)) return { ...result, outcome: "fail", reason: "first message has no payload", actual: first };
    const payload = options.gqlws && first.type === "error" ? { errors: first.payload } : first.payload;
    if (options.transport === "subscription") {
      await client.stop("hge_test");
      if (!options.gqlws) await client.expectNoEvent(0);
    } else {
      const done = await next();
      if (done.type !== "complete") return { ...result, outcome: "fail", reason: `expected complete, got ${done.type}`, actual: done };
    }
    const diff = firstDiff(expected, payload);
    if (!diff) return result;
    return {
      ...result,
      outcome: "fail",
      reason: "response differs",
      diff,
      expected,
      actual: payload,
      errorBodiesOnly: isErrorBody(expected) && isErrorBody(payload),
    };
  } catch (error) {
    return { ...result, outcome: "fail", reason: (error as Error).message };
  } finally {
    client.teardown();
  }
}

async function runV1q(service: Service, test: TestPlan, body: unknown, base: CaseBase): Promise<CaseResult> {
  const expectedStatus = Number(test.kw.expected_status_code ?? 200);
  const reply = await service.post("/v1/query", body).catch((error: Error) => error);
  if (reply instanceof Error) return failed(base, reply.message);
  const expectedError = V1Q_EXPECTED_ERROR[test.file];
  const actualError = (reply.body as { error?: unknown } | null)?.error;
  const result: CaseResult = { ...base, outcome: "pass", url: "/v1/query", expectedStatus, actualStatus: reply.status, steps: 1 };
  if (reply.status !== expectedStatus)
    return { ...result, outcome: "fail", reason: `status ${reply.status}, expected ${expectedStatus}`, actual: reply.body };
  if (expectedError !== undefined && actualError !== expectedError)
    return {
      ...result,
      outcome: "fail",
      reason: "response differs",
      diff: { path: "$.error", expected: expectedError, actual: actualError },
      actual: reply.body,
      errorBodiesOnly: true,
    };
  return result;
}

export async function runCase(
  service: Service,
  test: TestPlan,
  text: string,
  base: CaseBase,
  options: RunOptions = HTTP,
): Promise<CaseResult> {
  const started = Date.now();
  let parsed: unknown;
  try {
    parsed = parseFixture(test.file, text);
  } catch (error) {
    return failed(base, (error as Error).message);
  }
  let result: CaseResult;
  if (test.how === "hge_ctx.v1q_f") result = await runV1q(service, test, parsed, base);
  else {
    const steps = (Array.isArray(parsed) ? parsed : [parsed]) as CaseStep[];
    result = { ...base, outcome: "pass", steps: steps.length };
    let soft: CaseResult | undefined;
    for (const [index, step] of steps.entries()) {
      if (test.skipSteps?.[index + 1] !== undefined) continue;
      const stepResult = await runStep(service, step, index, steps.length, base, options);
      result = stepResult;
      if (stepResult.outcome === "fail" && !stepResult.errorBodiesOnly) break;
      if (stepResult.outcome === "fail") soft ??= stepResult;
    }
    if (soft && result.outcome === "pass") result = soft;
  }
  return { ...result, ms: Date.now() - started };
}
