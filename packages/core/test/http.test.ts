import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import { pino } from "pino";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { AppError } from "../src/errors.js";
import { createHttpApp } from "../src/http.js";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("createHttpApp", () => {
  const logs: Record<string, unknown>[] = [];
  let app: FastifyInstance;

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logs.push(JSON.parse(String(chunk)));
        done();
      },
    });
    app = createHttpApp({
      logger: pino({ level: "info" }, sink),
      renderError: (error, request) => ({
        status: error.status,
        body: { error: error.code, message: error.message, details: error.details, request: request.id },
        headers: { "x-error-code": error.code },
      }),
      renderInternal: (id) => ({ error: "internal", message: "Something went wrong", id }),
      mapFrameworkError: (error) => {
        if (error.code === "FST_ERR_CTP_INVALID_JSON_BODY") return new AppError(400, "bad_json", "The body is not valid JSON");
        if (error.validation) return new AppError(422, "validation_failed", error.message);
        return undefined;
      },
    });
    app.get("/ok", async (request) => ({ ok: true, id: request.id }));
    app.get("/conflict", async () => {
      throw new AppError(409, "conflict", "Already exists", { field: "email" });
    });
    app.get("/unavailable", async () => {
      throw new AppError(503, "unavailable", "Try again later");
    });
    app.get("/boom", async () => {
      throw new Error("relation secret_table does not exist at db.ts:42");
    });
    app.post(
      "/items",
      { schema: { body: { type: "object", required: ["name"], properties: { name: { type: "string" } } } } },
      async (r) => r.body,
    );
    await app.ready();
  });
  afterAll(() => app.close());
  beforeEach(() => {
    logs.length = 0;
  });

  it("echoes a sane incoming x-request-id", async () => {
    const res = await app.inject({ url: "/ok", headers: { "x-request-id": "abc-123.x:y" } });
    expect(res.statusCode).toBe(200);
    expect(res.headers["x-request-id"]).toBe("abc-123.x:y");
    expect(res.json()).toEqual({ ok: true, id: "abc-123.x:y" });
  });

  it("generates a request id when none or an unsafe one is given", async () => {
    for (const headers of [{}, { "x-request-id": "has spaces" }, { "x-request-id": "x".repeat(129) }, { "x-request-id": "a\u00e9" }]) {
      const res = await app.inject({ url: "/ok", headers });
      expect(res.headers["x-request-id"]).toMatch(UUID);
      expect(res.json().id).toBe(res.headers["x-request-id"]);
    }
  });

  it("renders an AppError with the service's renderer, status and headers", async () => {
    const res = await app.inject({ url: "/conflict", headers: { "x-request-id": "req-1" } });
    expect(res.statusCode).toBe(409);
    expect(res.headers["x-error-code"]).toBe("conflict");
    expect(res.headers["x-request-id"]).toBe("req-1");
    expect(res.json()).toEqual({ error: "conflict", message: "Already exists", details: { field: "email" }, request: "req-1" });
    expect(logs.filter((l) => l.level === 50)).toEqual([]);
  });

  it("logs an AppError that maps to a server status", async () => {
    const res = await app.inject({ url: "/unavailable" });
    expect(res.statusCode).toBe(503);
    expect(res.json()).toMatchObject({ error: "unavailable" });
    expect(logs.some((l) => l.level === 50 && l.msg === "Try again later")).toBe(true);
  });

  it("answers an unexpected error with a generic 500 carrying a logged id", async () => {
    const res = await app.inject({ url: "/boom", headers: { "x-request-id": "req-boom" } });
    expect(res.statusCode).toBe(500);
    const body = res.json();
    expect(body).toEqual({ error: "internal", message: "Something went wrong", id: expect.stringMatching(UUID) });
    expect(res.body).not.toMatch(/secret_table|db\.ts|\bat\b|stack/);
    const logged = logs.find((l) => l.errorId === body.id);
    expect(logged).toMatchObject({ level: 50, reqId: "req-boom", err: { message: expect.stringContaining("secret_table") } });
  });

  it("maps Fastify's invalid-JSON error through mapFrameworkError", async () => {
    const res = await app.inject({ method: "POST", url: "/items", headers: { "content-type": "application/json" }, payload: '{"name":' });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ error: "bad_json", message: "The body is not valid JSON" });
    expect(res.headers["x-request-id"]).toMatch(UUID);
  });

  it("maps schema validation errors through mapFrameworkError", async () => {
    const valid = await app.inject({ method: "POST", url: "/items", payload: { name: "widget" } });
    expect(valid.json()).toEqual({ name: "widget" });
    const invalid = await app.inject({ method: "POST", url: "/items", payload: { other: true } });
    expect(invalid.statusCode).toBe(422);
    expect(invalid.json()).toMatchObject({ error: "validation_failed", message: expect.stringContaining("name") });
  });

  it("keeps an unmapped Fastify client error a client error in the service's shape", async () => {
    const res = await app.inject({ method: "POST", url: "/items", headers: { "content-type": "text/xml" }, payload: "<a/>" });
    expect(res.statusCode).toBe(415);
    expect(res.json()).toMatchObject({ error: "FST_ERR_CTP_INVALID_MEDIA_TYPE" });
    expect(logs.filter((l) => l.level === 50)).toEqual([]);
  });

  it("logs one line per request and nothing from Fastify itself", async () => {
    await app.inject({ url: "/ok?x=1", headers: { "x-request-id": "req-log" } });
    expect(logs).toEqual([
      expect.objectContaining({ level: 30, reqId: "req-log", msg: "request", method: "GET", url: "/ok?x=1", status: 200 }),
    ]);
  });
});

describe("createHttpApp closing", () => {
  it("tells the client to close a kept-alive connection whose request was in flight, so close() does not wait for it", async () => {
    const app = createHttpApp({
      logger: pino({ level: "silent" }),
      renderError: (error) => ({ status: error.status, body: { error: error.code } }),
      renderInternal: (id) => ({ id }),
    });
    let release: () => void = () => {};
    let arrived: () => void = () => {};
    const inFlight = new Promise<void>((resolve) => {
      arrived = resolve;
    });
    app.get("/slow", async () => {
      arrived();
      await new Promise<void>((resolve) => {
        release = resolve;
      });
      return { ok: true };
    });
    const url = await app.listen({ host: "127.0.0.1", port: 0 });
    // fetch keeps its connection alive (Fastify answers `keep-alive: timeout=72`).
    const answer = fetch(`${url}/slow`);
    await inFlight;
    const started = Date.now();
    const closed = app.close();
    // The close has begun (the server stopped accepting connections) when the answer goes out.
    await new Promise((resolve) => setTimeout(resolve, 100));
    release();
    const response = await answer;
    expect(response.headers.get("connection")).toBe("close");
    expect(await response.json()).toEqual({ ok: true });
    await closed;
    expect(Date.now() - started).toBeLessThan(5000);
  });
});
