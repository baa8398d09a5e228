/**
 * Telemetry against real receivers: Prometheus scrapes the exporter's own server, and OTLP/HTTP
 * (JSON and protobuf) goes to an HTTP server in this process standing in for a collector.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { AppError } from "../src/errors.js";
import { createHttpApp } from "../src/http.js";
import { instrumentHttp, routeTemplate } from "../src/http-telemetry.js";
import { type OtlpProtocol, startTelemetry, type Telemetry, type TelemetrySettings } from "../src/telemetry.js";
import { freePort, startHttpSink } from "../src/testing.js";

const logger = pino({ level: "silent" });

function settings(overrides: Partial<TelemetrySettings> = {}): TelemetrySettings {
  return {
    serviceName: "test-service",
    serviceVersion: "1.2.3",
    resourceAttributes: { "deployment.environment": "test" },
    tracing: { enabled: false, exportDelayMs: 50 },
    metrics: { enabled: false, exporter: "prometheus", prometheus: { host: "127.0.0.1", port: 0 }, exportIntervalMs: 100 },
    otlp: { protocol: "http/json", endpoint: "http://127.0.0.1:1" },
    debug: false,
    ...overrides,
  };
}

function appWith(telemetry: Telemetry): FastifyInstance {
  const app = createHttpApp({
    logger,
    renderError: (error) => ({ status: error.status, body: { code: error.code } }),
    renderInternal: (id) => ({ id }),
  });
  instrumentHttp(app, telemetry);
  app.get("/items/:item_id", async (request) => ({ id: (request.params as { item_id: string }).item_id }));
  app.get("/broken", async () => {
    throw new AppError(503, "unavailable", "down");
  });
  return app;
}

const cleanups: Array<() => Promise<unknown>> = [];
afterEach(async () => {
  await Promise.all(cleanups.splice(0).map((cleanup) => cleanup()));
});

describe("telemetry", () => {
  it("writes routes the way GoTrue's traces name them", () => {
    expect(routeTemplate("/admin/users/:user_id")).toBe("/admin/users/{user_id}");
    expect(routeTemplate("/a/:x/b/:y_2")).toBe("/a/{x}/b/{y_2}");
  });

  it("is a no-op with both signals off: nothing listens, no hooks", async () => {
    const telemetry = await startTelemetry(settings(), logger);
    expect(telemetry.active).toBe(false);
    expect(telemetry.metricsUrl).toBeUndefined();
    const app = appWith(telemetry);
    expect((await app.inject({ url: "/items/7" })).json()).toEqual({ id: "7" });
  });

  it("serves Prometheus metrics on / with request durations by route and the runtime gauges", async () => {
    const port = await freePort();
    const telemetry = await startTelemetry(
      settings({ metrics: { enabled: true, exporter: "prometheus", prometheus: { host: "127.0.0.1", port }, exportIntervalMs: 100 } }),
      logger,
    );
    cleanups.push(() => telemetry.shutdown());
    expect(telemetry.metricsUrl).toBe(`http://127.0.0.1:${port}/`);
    const app = appWith(telemetry);
    for (const id of ["1", "2", "3"]) await app.inject({ url: `/items/${id}` });
    await app.inject({ url: "/broken" });
    const text = await (await fetch(telemetry.metricsUrl as string)).text();
    const count = text.split("\n").find((line) => line.startsWith("http_server_request_duration_count") && line.includes("200"));
    expect(count).toContain('http_route="/items/{item_id}"');
    expect(count).toContain('http_request_method="GET"');
    expect(count?.trim().endsWith(" 3")).toBe(true);
    expect(text).toMatch(/http_server_request_duration_count\{[^}]*http_response_status_code="503"[^}]*\} 1/);
    expect(text).toMatch(/^process_memory_usage(\{[^}]*\})? \d+/m);
    expect(text).toMatch(/^process_cpu_time_total\{[^}]*cpu_mode="user"[^}]*\} [\d.]+/m);
    expect(text).toMatch(/^nodejs_eventloop_delay_p99(\{[^}]*\})? [\d.e+-]+/m);
    expect(text).toMatch(/target_info\{[^}]*service_name="test-service"[^}]*\}/);
  });

  it("refuses to start when the Prometheus port is taken", async () => {
    const blocker = createServer();
    await new Promise<void>((resolve) => blocker.listen(0, "127.0.0.1", resolve));
    cleanups.push(() => new Promise((resolve) => blocker.close(resolve)));
    const { port } = blocker.address() as AddressInfo;
    await expect(
      startTelemetry(
        settings({ metrics: { enabled: true, exporter: "prometheus", prometheus: { host: "127.0.0.1", port }, exportIntervalMs: 100 } }),
        logger,
      ),
    ).rejects.toThrow(/EADDRINUSE/);
  });

  it.each(["http/json", "http/protobuf"] as OtlpProtocol[])(
    "exports a server span per request over OTLP %s, child of the caller's traceparent",
    async (protocol) => {
      const sink = await startHttpSink();
      cleanups.push(sink.close);
      const telemetry = await startTelemetry(
        settings({ tracing: { enabled: true, exportDelayMs: 50 }, otlp: { protocol, endpoint: `${sink.url}/` } }),
        logger,
      );
      const app = appWith(telemetry);
      const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
      const parentId = "00f067aa0ba902b7";
      await app.inject({ url: "/items/42?secret=x", headers: { traceparent: `00-${traceId}-${parentId}-01` } });
      await app.inject({ url: "/nowhere" });
      await telemetry.shutdown();
      const traces = sink.received.filter((r) => r.path === "/v1/traces");
      expect(traces.length).toBeGreaterThan(0);
      expect(traces[0]?.contentType).toBe(protocol === "http/json" ? "application/json" : "application/x-protobuf");
      if (protocol === "http/protobuf") {
        const raw = Buffer.concat(traces.map((t) => t.body)).toString("latin1");
        expect(raw).toContain("GET /items/{item_id}");
        expect(raw).toContain("http.route.params.item_id");
        return;
      }
      type Attr = { key: string; value: { stringValue?: string; intValue?: string | number } };
      type OtlpSpan = { name: string; traceId: string; parentSpanId?: string; kind: number; attributes: Attr[] };
      const spans: OtlpSpan[] = traces.flatMap((t) =>
        (JSON.parse(t.body.toString()) as { resourceSpans: Array<{ scopeSpans: Array<{ spans: OtlpSpan[] }> }> }).resourceSpans.flatMap(
          (r) => r.scopeSpans.flatMap((s) => s.spans),
        ),
      );
      const item = spans.find((s) => s.name === "GET /items/{item_id}");
      const attrs = Object.fromEntries((item?.attributes ?? []).map((a) => [a.key, a.value.stringValue ?? Number(a.value.intValue)]));
      expect(item).toMatchObject({ traceId, parentSpanId: parentId, kind: 2 });
      expect(attrs).toMatchObject({
        "http.route": "/items/{item_id}",
        "http.route.params.item_id": "42",
        "http.request.method": "GET",
        "url.path": "/items/42",
        "http.response.status_code": 200,
      });
      expect(spans.find((s) => s.name === "GET")?.attributes.some((a) => a.key === "http.route")).toBe(false);
      const resource = JSON.parse(traces[0]?.body.toString() ?? "{}").resourceSpans[0].resource.attributes as Attr[];
      expect(resource).toEqual(
        expect.arrayContaining([
          { key: "service.name", value: { stringValue: "test-service" } },
          { key: "deployment.environment", value: { stringValue: "test" } },
        ]),
      );
    },
  );

  it("shuts down promptly when the collector cannot be reached", async () => {
    const port = await freePort();
    const telemetry = await startTelemetry(
      settings({ tracing: { enabled: true, exportDelayMs: 5_000 }, otlp: { protocol: "http/json", endpoint: `http://127.0.0.1:${port}` } }),
      logger,
    );
    const app = appWith(telemetry);
    expect((await app.inject({ url: "/items/9" })).statusCode).toBe(200);
    const started = performance.now();
    await telemetry.shutdown();
    expect(performance.now() - started).toBeLessThan(4_000);
  });

  it("pushes metrics over OTLP when the exporter is opentelemetry", async () => {
    const sink = await startHttpSink();
    cleanups.push(sink.close);
    const telemetry = await startTelemetry(
      settings({
        metrics: { enabled: true, exporter: "opentelemetry", prometheus: { host: "127.0.0.1", port: 0 }, exportIntervalMs: 100 },
        otlp: { protocol: "http/json", endpoint: sink.url },
      }),
      logger,
    );
    const app = appWith(telemetry);
    await app.inject({ url: "/items/1" });
    await telemetry.shutdown();
    const bodies = sink.received.filter((r) => r.path === "/v1/metrics").map((r) => r.body.toString());
    expect(bodies.join("\n")).toContain("http.server.request.duration");
    expect(bodies.join("\n")).toContain("process.memory.usage");
  });
});
