/**
 * Enum tables (https://hasura.io/docs/latest/schema/postgres/enums): referencing columns become
 * GraphQL enums with their own comparison type.
 */
import { describe, expect, it } from "vitest";
import type { Metadata } from "../src/engine/metadata/types.js";
import { testBackends } from "./support/db.js";
import { metadataWith, useTestEngine } from "./support/engine.js";

const SCHEMA = `
CREATE TABLE colour (value text PRIMARY KEY, comment text);
INSERT INTO colour VALUES ('red', 'Red'), ('blue', NULL);
CREATE TABLE item (id serial PRIMARY KEY, colour text NOT NULL REFERENCES colour(value));
INSERT INTO item (colour) VALUES ('red'), ('blue');
`;

/** `colour` is an enum table: useTestEngine loads its values, as the runtime does. */
function metadata(): Metadata {
  return metadataWith([{ table: { schema: "public", name: "colour" }, is_enum: true }, { table: { schema: "public", name: "item" } }]);
}

describe.each(testBackends)("enum tables (%s)", (backend) => {
  const { run } = useTestEngine(backend, { schema: SCHEMA, metadata });

  it("types the referencing column as the enum and filters with it", async () => {
    const intro = await run(`{ __type(name: "colour_enum") { kind enumValues { name description } } }`);
    expect(intro.data.__type).toEqual({
      kind: "ENUM",
      enumValues: [
        { name: "blue", description: null },
        { name: "red", description: "Red" },
      ],
    });
    expect((await run(`{ item(where: {colour: {_eq: red}}) { id colour } }`)).data).toEqual({ item: [{ id: 1, colour: "red" }] });
    const bad = await run(`{ item(where: {colour: {_eq: green}}) { id } }`);
    expect(bad.errors[0].extensions.code).toBe("validation-failed");
  });

  it("inserts enum values", async () => {
    const body = await run(`mutation { insert_item_one(object: {colour: blue}) { colour } }`);
    expect(body.data).toEqual({ insert_item_one: { colour: "blue" } });
  });
});
