/** Enum tables (reference/hasura.md 1.10): referencing columns become GraphQL enums with their own comparison type. */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadEnumValues } from "../src/engine/catalog/enum-table.js";
import { introspect } from "../src/engine/catalog/introspect.js";
import type { PgTable } from "../src/engine/catalog/types.js";
import { Engine } from "../src/engine/execute.js";
import { emptyMetadata, type Metadata } from "../src/engine/metadata/types.js";
import { buildModel } from "../src/engine/model/build.js";
import type { Session } from "../src/engine/session.js";
import { openTestDatabase, type TestDatabase, testBackends } from "./support/db.js";

const admin: Session = { role: "admin", variables: {}, isAdmin: true, useBackendOnly: false };

describe.each(testBackends)("enum tables (%s)", (backend) => {
  let handle: TestDatabase;
  let engine: Engine;
  const run = async (query: string) => JSON.parse(await engine.execute({ query }, admin));

  beforeAll(async () => {
    handle = await openTestDatabase(backend);
    await handle.db.exec(`
      CREATE TABLE colour (value text PRIMARY KEY, comment text);
      INSERT INTO colour VALUES ('red', 'Red'), ('blue', NULL);
      CREATE TABLE item (id serial PRIMARY KEY, colour text NOT NULL REFERENCES colour(value));
      INSERT INTO item (colour) VALUES ('red'), ('blue');`);
    const metadata: Metadata = emptyMetadata();
    (metadata.sources[0] as Metadata["sources"][number]).tables = [
      { table: { schema: "public", name: "colour" }, is_enum: true },
      { table: { schema: "public", name: "item" } },
    ];
    const catalog = await introspect(handle.db);
    catalog.enumValues.set("public.colour", await loadEnumValues(handle.db, catalog.tables.get("public.colour") as PgTable));
    engine = new Engine(handle.db, buildModel(metadata, catalog), { booleanNullCollapse: false });
  });
  afterAll(async () => handle.dispose());

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
