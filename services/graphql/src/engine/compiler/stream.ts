/**
 * A streaming subscription's batch (`T_stream`, https://hasura.io/docs/2.0/subscriptions/postgres/streaming/):
 * the rows past the cursor (after it, or before it when the ordering is DESC), in cursor order,
 * `batch_size` of them and the rows that tie with the last one (so a batch never cuts a group of
 * equal cursor values in two, which loses rows: Hasura's issue #9528), with the last cursor
 * value. The cursor is a plan slot: its initial value, or the cursor the stream has reached.
 */
import type { Sql } from "@platform/core";
import type { QueryField } from "../plan/types.js";
import type { CompileContext } from "./context.js";
import { streamBatch } from "./select.js";
import { Slot } from "./slot.js";

type StreamField = Extract<QueryField, { kind: "select_stream" }>;

/**
 * A sub-select of two columns, `result` (the batch's JSON array) and `cursor` (its last cursor
 * value, as text); the cursor is read from the slot input's `cursor` once the stream has one.
 */
export function compileStream(ctx: CompileContext, node: StreamField): Sql {
  const { cursor, rows } = node;
  const initial = cursor.initial;
  const slot = new Slot((input) => (input.cursor !== undefined ? input.cursor : initial instanceof Slot ? initial.read(input) : initial));
  const past = { [cursor.field]: { [cursor.descending ? "_lt" : "_gt"]: slot } };
  const where = rows.args.where === undefined || rows.args.where === null ? past : { _and: [rows.args.where, past] };
  const args = { where, order_by: [{ [cursor.field]: cursor.descending ? "desc" : "asc" }], limit: node.batchSize };
  return streamBatch(ctx, { ...rows, args }, cursor.column, cursor.descending);
}
