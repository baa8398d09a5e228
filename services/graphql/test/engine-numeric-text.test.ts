/** The number texts Hasura writes into numeric columns (they fix PostgreSQL's display scale). */
import { describe, expect, it } from "vitest";
import { binaryNumericText, scientificText } from "../src/engine/compiler/numeric-text.js";
import { JsonNumber } from "../src/engine/json/number.js";

describe("scientificText (GraphQL mutations: Haskell's show of a Scientific)", () => {
  it("uses fixed notation from 0.1 up to 10^7, always with a fractional digit", () => {
    expect([-1.1, 5, 0, 0.5, 100, 1234567, 12345.67].map(scientificText)).toEqual([
      "-1.1",
      "5.0",
      "0.0",
      "0.5",
      "100.0",
      "1234567.0",
      "12345.67",
    ]);
  });

  it("uses exponent notation outside that range, and keeps every digit of a long number", () => {
    expect([-1e-30, 0.05, -2e-2, 1e7, 12345678, 1.5e21].map(scientificText)).toEqual([
      "-1.0e-30",
      "5.0e-2",
      "-2.0e-2",
      "1.0e7",
      "1.2345678e7",
      "1.5e21",
    ]);
    expect(scientificText(new JsonNumber("12345678901234567890.1230"))).toBe("1.2345678901234567890123e19");
    expect(scientificText("not a number")).toBeNull();
  });
});

describe("binaryNumericText (/v1/query insert: PostgreSQL's binary numeric)", () => {
  it("rounds the fractional digits up to whole base-10000 digits", () => {
    expect([12345.67, -1.1, 0.05, 5, 0, -1e-30, 1.23456].map(binaryNumericText)).toEqual([
      "12345.6700",
      "-1.1000",
      "0.0500",
      "5",
      "0",
      "-0.00000000000000000000000000000100",
      "1.23456000",
    ]);
  });
});
