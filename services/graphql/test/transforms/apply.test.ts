/**
 * Request and response transforms applied to an exchange (REST connectors:
 * https://hasura.io/docs/latest/actions/rest-connectors/), without a network: each part of a
 * request transform, the context its templates see, and the errors Hasura reports.
 */
import { describe, expect, it } from "vitest";
import {
  type HttpRequest,
  jsonOrNull,
  requestContext,
  TransformFailure,
  transformRequest,
  transformResponse,
} from "../../src/engine/transforms/apply.js";
import { parseRequestTransform, parseResponseTransform, transformProblems } from "../../src/engine/transforms/config.js";

const payload = {
  action: { name: "create_user" },
  input: { email: "ada@example.test", name: "Ada Lovelace", tags: ["x", "y"] },
  session_variables: { "x-hasura-role": "user", "x-hasura-user-id": "42" },
};
const original: HttpRequest = {
  method: "POST",
  url: "http://handler.test/base?keep=1",
  headers: [
    ["User-Agent", "hasura-graphql-engine/test"],
    ["Content-Type", "application/json"],
    ["X-Custom", "c"],
  ],
  body: JSON.stringify(payload),
};
const session = payload.session_variables;

function run(conf: unknown): HttpRequest {
  const transform = parseRequestTransform(conf);
  if (!transform) throw new Error("no transform");
  return transformRequest(transform, original, requestContext(original, payload, session));
}

function failure(conf: unknown): unknown[] {
  try {
    run(conf);
  } catch (error) {
    if (error instanceof TransformFailure) return error.errors;
    throw error;
  }
  throw new Error("the transform did not fail");
}

describe("request transforms", () => {
  it("leaves a request as it is when the transform sets nothing", () => {
    expect(run({ version: 2 })).toEqual(original);
  });

  it("sets the method, the url from $base_url and the input, and keeps the handler's query string", () => {
    const out = run({ version: 2, method: "PUT", url: "http://api.test/users/{{$body.input.email}}" });
    expect(out.method).toBe("PUT");
    expect(out.url).toBe("http://api.test/users/ada@example.test?keep=1");
    // $base_url is the handler's URL as configured, its query string included.
    expect(run({ version: 2, query_params: { from: "{{$base_url}}" } }).url).toBe(
      "http://handler.test/base?from=http%3A%2F%2Fhandler.test%2Fbase%3Fkeep%3D1",
    );
  });

  it("replaces the query string: null drops a parameter, a null value gives a bare key, values are encoded", () => {
    const out = run({
      version: 2,
      url: "http://handler.test/search",
      query_params: { q: "{{$body.input.name}}", role: '{{getSessionVariable("X-Hasura-Role")}}', gone: "{{$body?.missing}}", flag: null },
    });
    expect(out.url).toBe("http://handler.test/search?q=Ada+Lovelace&role=user&flag");
    // v2's string form: one template for the whole query string.
    const whole = run({ version: 2, query_params: "id={{$session_variables['x-hasura-user-id']}}&a=b%20c" });
    expect(whole.url).toBe("http://handler.test/base?id=42&a=b+c");
  });

  it("removes headers in any case and appends the added ones, Content-Type included", () => {
    const out = run({
      version: 2,
      request_headers: {
        remove_headers: ["user-agent", "CONTENT-TYPE"],
        add_headers: { "content-type": "text/plain", "x-user": "{{$body.session_variables['x-hasura-user-id']}}" },
      },
    });
    expect(out.headers).toEqual([
      ["X-Custom", "c"],
      ["content-type", "text/plain"],
      ["x-user", "42"],
    ]);
  });

  it("transforms, removes or form-encodes the body (v1 and v2)", () => {
    expect(
      JSON.parse(
        run({ version: 2, body: { action: "transform", template: '{"who": {{$body.input.name}}, "n": {{size($body.input.tags)}}}' } })
          .body ?? "",
      ),
    ).toEqual({
      who: "Ada Lovelace",
      n: 2,
    });
    expect(JSON.parse(run({ version: 1, body: "{{$body.input.tags}}" }).body ?? "")).toEqual(["x", "y"]);
    expect(run({ version: 2, body: { action: "remove" } }).body).toBe("");
    const form = run({
      version: 2,
      body: { action: "x_www_form_urlencoded", form_template: { name: "{{$body.input.name}}", "e mail": "{{$body.input.email}}" } },
    });
    expect(form.body).toBe("name=Ada%20Lovelace&e%20mail=ada%40example.test");
  });

  it("reports a bad url, a part's every error, and a missing session variable as Hasura does", () => {
    expect(failure({ version: 2, url: "{{$base_url}}/a b" })).toEqual([
      { error_code: "TransformationError", message: "Invalid URL: http://handler.test/base?keep=1/a b" },
    ]);
    const errors = failure({ version: 2, query_params: { a: "{{$body.nope}}", b: "{{$nothing}}" } });
    expect(errors.map((e) => (e as { error_code: string }).error_code)).toEqual(["Attribute Error", "Name Error"]);
    expect(failure({ version: 2, body: { action: "transform", template: '{{getSessionVariable("x-hasura-org")}}' } })).toMatchObject([
      { error_code: "Function Error", message: 'Session variable "x-hasura-org" not found' },
    ]);
    // The first failing part stops the transform: the url fails before the body is looked at.
    expect(failure({ version: 2, url: "{{$x}}", body: { action: "transform", template: "{{$y}}" } })).toMatchObject([
      { error_code: "Name Error", message: "Variable '$x' not in scope" },
    ]);
  });
});

describe("long numbers", () => {
  it("keep every digit through a body template, a string template and a comparison", () => {
    const text = '{"input": {"id": 9007199254740993, "price": 12345678901234567890.5}}';
    const request: HttpRequest = { method: "POST", url: "http://handler.test/", headers: [], body: text };
    const transform = parseRequestTransform({
      version: 2,
      query_params: { id: "{{$body.input.id}}" },
      body: {
        action: "transform",
        template: '{"id": {{$body.input.id}}, "big": {{$body.input.id > 9007199254740992}}, "p": {{$body.input.price}}}',
      },
    });
    if (!transform) throw new Error("no transform");
    const out = transformRequest(transform, request, requestContext(request, jsonOrNull(text), null));
    expect(out.body).toBe('{"id":9007199254740993,"big":true,"p":12345678901234567890.5}');
    expect(out.url).toBe("http://handler.test/?id=9007199254740993");
  });
});

describe("transform metadata", () => {
  it("lists the parse errors of every template, with Kriti's position", () => {
    const transform = parseRequestTransform({
      version: 2,
      url: "{{$base_url}",
      body: { action: "transform", template: "{{ $body.input " },
    });
    expect(transformProblems(transform)).toMatchObject([
      { error_code: "Parse Error", source_position: { start_line: 0 } },
      { error_code: "Parse Error", source_position: { start_line: 0 } },
    ]);
  });

  it("refuses shapes Hasura's decoding refuses", () => {
    expect(() => parseRequestTransform({ version: 3 })).toThrow("expected 1 or 2, encountered 3");
    expect(() => parseRequestTransform({ version: 2, body: { action: "rewrite" } })).toThrow("invalid transform action");
    expect(() => parseRequestTransform({ version: 2, query_params: 1 })).toThrow("Invalid query parameter");
  });
});

describe("response transforms", () => {
  const answer = { status: 201, text: JSON.stringify({ id: 7, user: { name: "Ada" } }) };

  it("sees the answer's body, its status, the session and the request", () => {
    const transform = parseResponseTransform({
      version: 2,
      body: {
        action: "transform",
        template:
          '{{ if $response.status == 201 }} {"id": {{$body.id}}, "by": {{getSessionVariable("x-hasura-user-id")}}, "base": {{$request.url.base_url}}} {{ else }} null {{ end }}',
      },
    });
    if (!transform) throw new Error("no transform");
    expect(transformResponse(transform, answer, session, requestContext(original, payload, session))).toEqual({
      id: 7,
      by: "42",
      base: original.url,
    });
    expect(transformResponse(transform, { ...answer, status: 200 }, session, null)).toBeNull();
  });

  it("removes the body, or gives it unchanged without a body transform (null when it is not JSON)", () => {
    expect(transformResponse(parseResponseTransform({ version: 2, body: { action: "remove" } }) ?? {}, answer, null, null)).toBeNull();
    expect(transformResponse(parseResponseTransform({ version: 2 }) ?? {}, { status: 200, text: "not json" }, null, null)).toBeNull();
  });
});
