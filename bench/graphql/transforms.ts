/**
 * `npm run bench:graphql-transforms -w bench`: what a REST connector's transforms cost per call,
 * in this process (no network: the HTTP exchange is the same with or without them). One event
 * trigger's payload (a row of 12 columns) goes through a request transform of the kind Hasura's
 * docs show (url from `$base_url`, two query parameters, a header from the payload, a body
 * reshaped by a Kriti template with a `range`) and the answer through a response transform; the
 * baseline is the work done without transforms, the payload printed as JSON and the answer
 * parsed. Reported: microseconds per call of each, and the ratio. Target: the transforms add at
 * most 50 µs per call (a local webhook round trip costs ~1 ms on this machine, so under 5%).
 * Not part of `npm test`.
 *
 *   BENCH_SECONDS   seconds each side runs (default 3)
 */
import { parseRequestTransform, parseResponseTransform, requestContext, transformRequest, transformResponse } from "@platform/graphql";
import { positiveNumber } from "../common/env.js";
import { printTable, printTargets } from "../common/report.js";

const TARGET_US = 50;

const row = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`column_${i}`, i % 3 === 0 ? `text value ${i}` : i * 1000]));
const payload = {
  id: "8d3a1f52-7a52-4f4b-9d9a-3b1a0e6b2c11",
  created_at: "2026-11-29T00:00:00.000000",
  trigger: { name: "order_created" },
  table: { schema: "public", name: "orders" },
  event: { op: "INSERT", data: { old: null, new: { ...row, tags: ["a", "b", "c", "d"] } }, session_variables: { "x-hasura-role": "user" } },
  delivery_info: { max_retries: 3, current_retry: 0 },
};
const answerText = JSON.stringify({ ok: true, id: 991, items: [1, 2, 3] });

const requestTransform = parseRequestTransform({
  version: 2,
  url: "{{$base_url}}/orders/{{$body.event.data.new.column_1}}",
  query_params: { op: "{{$body.event.op}}", table: "{{$body.table.name}}" },
  request_headers: { add_headers: { "x-trigger": "{{$body.trigger.name}}" }, remove_headers: ["user-agent"] },
  body: {
    action: "transform",
    template:
      '{"order": {"id": {{$body.event.data.new.column_1}}, "label": "{{$body.event.data.new.column_0}}", "tags": [{{ range i, t := $body.event.data.new.tags }} {"n": {{i}}, "tag": {{toUpper(t)}}} {{ end }}], "by": {{$body.event.session_variables?["x-hasura-user-id"] ?? "anonymous"}}}}',
  },
});
const responseTransform = parseResponseTransform({
  version: 2,
  body: { action: "transform", template: '{"stored": {{$body.ok}}, "ref": {{$body.id}}}' },
});

function timed(seconds: number, work: () => void): number {
  for (let i = 0; i < 2000; i++) work();
  let calls = 0;
  const start = performance.now();
  const until = start + seconds * 1000;
  while (performance.now() < until) {
    for (let i = 0; i < 500; i++) work();
    calls += 500;
  }
  return ((performance.now() - start) * 1000) / calls;
}

function main(): number {
  if (!requestTransform || !responseTransform) throw new Error("the transforms did not parse");
  const seconds = positiveNumber(process.env, "BENCH_SECONDS", 3);
  const original = {
    method: "POST",
    url: "http://receiver.test/hooks",
    headers: [
      ["User-Agent", "hasura-graphql-engine"],
      ["Content-Type", "application/json"],
    ] as Array<[string, string]>,
    body: "",
  };
  let sink = 0;
  const baseline = timed(seconds, () => {
    const body = JSON.stringify(payload);
    sink += body.length + (JSON.parse(answerText) as { id: number }).id;
  });
  const transformed = timed(seconds, () => {
    const body = JSON.stringify(payload);
    const request = { ...original, body };
    const sent = transformRequest(requestTransform, request, requestContext(request, payload, null));
    const answer = transformResponse(responseTransform, { status: 200, text: answerText }, null, null);
    sink += (sent.body?.length ?? 0) + JSON.stringify(answer).length;
  });
  const added = transformed - baseline;
  console.log(`\nREST connector transforms, ${seconds} s per side, in process (checksum ${sink % 997}):`);
  printTable(
    ["", "µs per call", "ratio"],
    [
      ["without transforms (payload printed, answer parsed)", baseline.toFixed(2), "1.00"],
      ["with request + response transforms", transformed.toFixed(2), (transformed / baseline).toFixed(2)],
    ],
  );
  const pass = added <= TARGET_US;
  printTargets([{ name: "time the transforms add per call", limit: `≤ ${TARGET_US} µs`, value: `${added.toFixed(2)} µs`, pass }], pass);
  return pass ? 0 : 1;
}

process.exit(main());
