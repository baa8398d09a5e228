/**
 * OpenTelemetry for a service: traces exported over OTLP, metrics served to Prometheus or pushed
 * over OTLP, and the runtime gauges every service reports. Providers are per service and never
 * registered globally, so several services in one process (`npm start`) keep theirs apart. With
 * both signals off, the tracer and meter are no-ops and nothing is started.
 */
import { monitorEventLoopDelay } from "node:perf_hooks";
import { createNoopMeter, DiagLogLevel, diag, type Meter, type Tracer, trace } from "@opentelemetry/api";
import { OTLPMetricExporter as OtlpJsonMetrics } from "@opentelemetry/exporter-metrics-otlp-http";
import { OTLPMetricExporter as OtlpProtoMetrics } from "@opentelemetry/exporter-metrics-otlp-proto";
import { PrometheusExporter } from "@opentelemetry/exporter-prometheus";
import { OTLPTraceExporter as OtlpJsonTraces } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtoTraces } from "@opentelemetry/exporter-trace-otlp-proto";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { MeterProvider, type MetricReader, PeriodicExportingMetricReader } from "@opentelemetry/sdk-metrics";
import { BatchSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import type { Logger } from "./logger.js";

export type OtlpProtocol = "http/protobuf" | "http/json";

export interface TelemetrySettings {
  serviceName: string;
  serviceVersion: string;
  /** OTEL_RESOURCE_ATTRIBUTES and the service's own defaults. */
  resourceAttributes: Record<string, string>;
  /** `exportDelayMs`: how long spans are batched before export (OTEL_BSP_SCHEDULE_DELAY). */
  tracing: { enabled: boolean; exportDelayMs: number };
  metrics: {
    enabled: boolean;
    exporter: "prometheus" | "opentelemetry";
    prometheus: { host: string; port: number };
    /** How often metrics are pushed over OTLP. */
    exportIntervalMs: number;
  };
  /** Where OTLP goes: the collector's base URL (`/v1/traces`, `/v1/metrics` are appended). */
  otlp: { protocol: OtlpProtocol; endpoint: string };
  /** The SDK's own diagnostics at debug level (DEBUG=true). */
  debug: boolean;
}

export interface Telemetry {
  /** False when both signals are off: instrumentation can skip its hooks. */
  readonly active: boolean;
  readonly tracer: Tracer;
  readonly meter: Meter;
  /** Where Prometheus scrapes, when metrics are served that way. */
  readonly metricsUrl: string | undefined;
  shutdown(): Promise<void>;
}

const INSTRUMENTATION_SCOPE = "@platform/core";

/** How long shutdown waits for the last export. */
const SHUTDOWN_GRACE_MS = 3_000;

export const noTelemetry: Telemetry = {
  active: false,
  tracer: trace.getTracerProvider().getTracer(INSTRUMENTATION_SCOPE),
  meter: createNoopMeter(),
  metricsUrl: undefined,
  shutdown: async () => {},
};

/** Sends the SDK's diagnostics (export failures above all) to the service's log. */
function routeDiagnostics(logger: Logger, debug: boolean): void {
  const log = logger.child({ component: "opentelemetry" });
  diag.setLogger(
    {
      error: (message, ...args) => log.warn({ args }, message),
      warn: (message, ...args) => log.warn({ args }, message),
      info: (message, ...args) => log.info({ args }, message),
      debug: (message, ...args) => log.debug({ args }, message),
      verbose: (message, ...args) => log.trace({ args }, message),
    },
    { logLevel: debug ? DiagLogLevel.DEBUG : DiagLogLevel.WARN, suppressOverrideMessage: true },
  );
}

function otlpUrl(settings: TelemetrySettings, signal: "traces" | "metrics"): string {
  return `${settings.otlp.endpoint.replace(/\/+$/, "")}/v1/${signal}`;
}

async function metricReader(settings: TelemetrySettings): Promise<{ reader: MetricReader; url?: string }> {
  const { metrics } = settings;
  if (metrics.exporter === "prometheus") {
    const { host, port } = metrics.prometheus;
    // GoTrue serves metrics on `/`; the server starts here so a taken port fails start-up.
    const exporter = new PrometheusExporter({ host, port, endpoint: "/", preventServerStart: true });
    await exporter.startServer();
    return { reader: exporter, url: `http://${host.includes(":") ? `[${host}]` : host}:${port}/` };
  }
  const url = otlpUrl(settings, "metrics");
  const exporter = settings.otlp.protocol === "http/json" ? new OtlpJsonMetrics({ url }) : new OtlpProtoMetrics({ url });
  return { reader: new PeriodicExportingMetricReader({ exporter, exportIntervalMillis: metrics.exportIntervalMs }) };
}

/** Gauges of the process: resident memory, heap, CPU time and event-loop delay. */
function observeRuntime(meter: Meter): () => void {
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const rss = meter.createObservableGauge("process.memory.usage", { unit: "By", description: "Resident set size" });
  const heap = meter.createObservableGauge("nodejs.heap.used", { unit: "By", description: "V8 heap in use" });
  const cpu = meter.createObservableCounter("process.cpu.time", { unit: "s", description: "CPU time by mode" });
  const delay = meter.createObservableGauge("nodejs.eventloop.delay.p99", { unit: "s", description: "Event-loop delay, 99th percentile" });
  meter.addBatchObservableCallback(
    (result) => {
      const memory = process.memoryUsage();
      const usage = process.cpuUsage();
      result.observe(rss, memory.rss);
      result.observe(heap, memory.heapUsed);
      result.observe(cpu, usage.user / 1e6, { "cpu.mode": "user" });
      result.observe(cpu, usage.system / 1e6, { "cpu.mode": "system" });
      result.observe(delay, loop.percentile(99) / 1e9);
      loop.reset();
    },
    [rss, heap, cpu, delay],
  );
  return () => loop.disable();
}

export async function startTelemetry(settings: TelemetrySettings, logger: Logger): Promise<Telemetry> {
  if (!settings.tracing.enabled && !settings.metrics.enabled) return noTelemetry;
  routeDiagnostics(logger, settings.debug);
  const resource = resourceFromAttributes({
    "service.name": settings.serviceName,
    "service.version": settings.serviceVersion,
    ...settings.resourceAttributes,
  });
  const closers: Array<() => Promise<void> | void> = [];
  let tracer = noTelemetry.tracer;
  let meter = noTelemetry.meter;
  let metricsUrl: string | undefined;
  if (settings.tracing.enabled) {
    const url = otlpUrl(settings, "traces");
    const exporter = settings.otlp.protocol === "http/json" ? new OtlpJsonTraces({ url }) : new OtlpProtoTraces({ url });
    const provider = new TracerProvider({
      resource,
      spanProcessors: [new BatchSpanProcessor({ exporter, scheduledDelayMillis: settings.tracing.exportDelayMs })],
    });
    tracer = provider.getTracer(INSTRUMENTATION_SCOPE);
    closers.push(() => provider.shutdown());
  }
  if (settings.metrics.enabled) {
    const { reader, url } = await metricReader(settings);
    const provider = new MeterProvider({ resource, readers: [reader] });
    meter = provider.getMeter(INSTRUMENTATION_SCOPE);
    metricsUrl = url;
    closers.push(observeRuntime(meter), () => provider.shutdown());
  }
  return {
    active: true,
    tracer,
    meter,
    metricsUrl,
    async shutdown() {
      // Flushes what is buffered, but an unreachable collector must not hold shutdown up.
      let timer: NodeJS.Timeout | undefined;
      const deadline = new Promise<void>((resolve) => {
        timer = setTimeout(resolve, SHUTDOWN_GRACE_MS);
        timer.unref();
      });
      await Promise.race([Promise.allSettled(closers.map(async (close) => close())), deadline]);
      clearTimeout(timer);
    },
  };
}
