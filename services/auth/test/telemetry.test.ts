/**
 * GoTrue's observability settings: METRICS_ENABLED with the Prometheus exporter (scraped on `/`),
 * and TRACING_ENABLED exporting every request as a span with the parametrised route and its
 * parameters (`http.route`, `http.route.params.<key>`) to an OTLP/HTTP collector in this process.
 */
import { freePort, startHttpSink } from "@platform/core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { adminApi, createConfirmedUser } from "./support/admin.js";
import { backends, email, openTestDatabase, startTestServer, type TestDatabase } from "./support/server.js";

type Attribute = { key: string; value: { stringValue?: string; intValue?: string | number } };
type Span = { name: string; attributes: Attribute[] };

describe.each(backends)("telemetry on %s", (backend) => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await openTestDatabase(backend);
  });
  afterAll(async () => {
    await database?.dispose();
  });

  it("serves Prometheus metrics: requests by route, GoTrue's hashing counters, runtime gauges, auth.version", async () => {
    const port = await freePort();
    const server = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: "prom",
      AUTH_METRICS_ENABLED: "true",
      AUTH_METRICS_EXPORTER: "prometheus",
      OTEL_EXPORTER_PROMETHEUS_HOST: "127.0.0.1",
      OTEL_EXPORTER_PROMETHEUS_PORT: String(port),
    });
    try {
      const address = email();
      await server.client().signUp({ email: address, password: "secret-1" });
      await server.client().signInWithPassword({ email: address, password: "wrong-one" });
      const text = await (await fetch(`http://127.0.0.1:${port}/`)).text();
      expect(text).toMatch(
        /http_server_request_duration_count\{[^}]*http_route="\/token"[^}]*http_response_status_code="400"|http_server_request_duration_count\{[^}]*http_response_status_code="400"[^}]*http_route="\/token"/,
      );
      expect(text).toMatch(/^gotrue_generate_from_password_submitted_total(\{[^}]*\})? 1$/m);
      expect(text).toMatch(/^gotrue_compare_hash_and_password_completed_total(\{[^}]*\})? 1$/m);
      expect(text).toMatch(/^process_memory_usage(\{[^}]*\})? \d+/m);
      expect(text).toMatch(/target_info\{[^}]*auth_version="v\d+\.\d+\.\d+"[^}]*\}/);
    } finally {
      await server.close();
    }
  });

  it("exports a span per request with the parametrised route and its parameters", async () => {
    const sink = await startHttpSink();
    const server = await startTestServer(database.db, {
      AUTH_DB_NAMESPACE: "traced",
      AUTH_TRACING_ENABLED: "true",
      OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
      OTEL_EXPORTER_OTLP_ENDPOINT: sink.url,
      OTEL_RESOURCE_ATTRIBUTES: "deployment.environment=test",
      OTEL_BSP_SCHEDULE_DELAY: "10",
    });
    try {
      const admin = await adminApi(server);
      const { user } = await createConfirmedUser(admin, "traced");
      expect((await admin.getUserById(user.id)).error).toBeNull();
    } finally {
      await server.close();
      await sink.close();
    }
    const exports = sink.received.filter((r) => r.path === "/v1/traces").map((r) => JSON.parse(r.body.toString()) as unknown);
    const spans = exports.flatMap((json) =>
      (json as { resourceSpans: Array<{ scopeSpans: Array<{ spans: Span[] }> }> }).resourceSpans.flatMap((r) =>
        r.scopeSpans.flatMap((s) => s.spans),
      ),
    );
    const read = spans.find((span) => span.name === "GET /admin/users/{user_id}");
    const attributes = Object.fromEntries((read?.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]));
    expect(attributes).toMatchObject({ "http.route": "/admin/users/{user_id}", "http.response.status_code": 200 });
    expect(attributes["http.route.params.user_id"]).toMatch(/^[0-9a-f-]{36}$/);
    expect(spans.map((span) => span.name)).toContain("POST /admin/users");
    type Export = { resourceSpans: Array<{ resource: { attributes: Attribute[] } }> };
    const exported = exports[0] as Export | undefined;
    const resource = exported?.resourceSpans[0]?.resource.attributes;
    expect(resource).toEqual(
      expect.arrayContaining([
        { key: "service.name", value: { stringValue: "gotrue" } },
        { key: "deployment.environment", value: { stringValue: "test" } },
      ]),
    );
  });
});
