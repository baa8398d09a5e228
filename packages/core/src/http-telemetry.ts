/**
 * Traces and metrics of a Fastify app's requests. Each request is a server span named
 * `<METHOD> <route>`, a child of the caller's W3C `traceparent` when one is sent, with the
 * parametrised route (`http.route`, e.g. `/admin/users/{user_id}`) and every route parameter as
 * `http.route.params.<name>`; its duration goes into `http.server.request.duration`.
 */
import { type Attributes, defaultTextMapGetter, ROOT_CONTEXT, type Span, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { W3CTraceContextPropagator } from "@opentelemetry/core";
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Telemetry } from "./telemetry.js";

const propagator = new W3CTraceContextPropagator();

/** Fastify's `/admin/users/:user_id` as OpenAPI writes it: `/admin/users/{user_id}`. */
export function routeTemplate(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, "{$1}");
}

function requestAttributes(request: FastifyRequest, route: string | undefined): Attributes {
  const attributes: Attributes = { "http.request.method": request.method, "url.path": request.url.split("?")[0] ?? "/" };
  if (route === undefined) return attributes;
  attributes["http.route"] = route;
  for (const [name, value] of Object.entries((request.params ?? {}) as Record<string, unknown>)) {
    if (typeof value === "string") attributes[`http.route.params.${name}`] = value;
  }
  return attributes;
}

export function instrumentHttp(app: FastifyInstance, telemetry: Telemetry): void {
  if (!telemetry.active) return;
  const duration = telemetry.meter.createHistogram("http.server.request.duration", {
    unit: "s",
    description: "Duration of HTTP server requests",
    advice: { explicitBucketBoundaries: [0.005, 0.01, 0.025, 0.05, 0.075, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10] },
  });
  const traced = new WeakMap<FastifyRequest, { span: Span; route: string | undefined }>();

  app.addHook("onRequest", async (request) => {
    const url = request.routeOptions.url;
    const route = url === undefined ? undefined : routeTemplate(url);
    const parent = propagator.extract(ROOT_CONTEXT, request.headers, defaultTextMapGetter);
    const name = route === undefined ? request.method : `${request.method} ${route}`;
    const span = telemetry.tracer.startSpan(name, { kind: SpanKind.SERVER, attributes: requestAttributes(request, route) }, parent);
    traced.set(request, { span, route });
  });

  app.addHook("onResponse", async (request, reply) => {
    const status = reply.statusCode;
    const entry = traced.get(request);
    if (!entry) return;
    entry.span.setAttribute("http.response.status_code", status);
    if (status >= 500) entry.span.setStatus({ code: SpanStatusCode.ERROR });
    entry.span.end();
    duration.record(reply.elapsedTime / 1000, {
      "http.request.method": request.method,
      "http.response.status_code": status,
      ...(entry.route === undefined ? {} : { "http.route": entry.route }),
    });
  });
}
