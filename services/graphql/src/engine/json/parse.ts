/**
 * JSON text parsed without losing digits: JSON.parse turns 9223372036854775807 into
 * 9223372036854775808. Text with no number of 16 or more digits (nearly all) goes through
 * JSON.parse; the rest through a small parser that keeps such numbers as JsonNumbers. Request
 * bodies of /v1/graphql and action handlers' answers are read with it.
 */
import { type JsonNumber, numberFromText } from "./number.js";

/** 16 digits, possibly with a decimal point among them: a number a double may not hold exactly. */
export const LONG_NUMBER = /\d(?:\.?\d){15}/;
const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const WHITESPACE = /[ \t\n\r]*/y;

class SyntaxFailure extends Error {}

class Parser {
  private i = 0;
  constructor(private readonly s: string) {}

  parse(): unknown {
    const value = this.value();
    this.skip();
    if (this.i !== this.s.length) this.fail();
    return value;
  }

  private fail(): never {
    throw new SyntaxFailure(`unexpected input at position ${this.i}`);
  }

  private skip(): void {
    WHITESPACE.lastIndex = this.i;
    WHITESPACE.exec(this.s);
    this.i = WHITESPACE.lastIndex;
  }

  private value(): unknown {
    this.skip();
    const c = this.s[this.i];
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    if (c === '"') return this.string();
    if (c === "-" || (c !== undefined && c >= "0" && c <= "9")) return this.number();
    for (const [word, value] of [
      ["true", true],
      ["false", false],
      ["null", null],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return value;
      }
    }
    return this.fail();
  }

  private number(): number | JsonNumber {
    NUMBER.lastIndex = this.i;
    const match = NUMBER.exec(this.s);
    if (!match) this.fail();
    this.i = NUMBER.lastIndex;
    return numberFromText(match[0]);
  }

  /** A string token: its end found here, its escapes decoded (and checked) by JSON.parse. */
  private string(): string {
    let j = this.i + 1;
    for (;;) {
      const c = this.s.charCodeAt(j);
      if (Number.isNaN(c)) this.fail();
      if (c === 34) break;
      j += c === 92 ? 2 : 1;
    }
    const token = this.s.slice(this.i, j + 1);
    this.i = j + 1;
    return JSON.parse(token) as string;
  }

  private array(): unknown[] {
    this.i += 1;
    const out: unknown[] = [];
    this.skip();
    if (this.s[this.i] === "]") {
      this.i += 1;
      return out;
    }
    for (;;) {
      out.push(this.value());
      this.skip();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") this.fail();
    }
  }

  private object(): Record<string, unknown> {
    this.i += 1;
    const out: Record<string, unknown> = {};
    this.skip();
    if (this.s[this.i] === "}") {
      this.i += 1;
      return out;
    }
    for (;;) {
      this.skip();
      if (this.s[this.i] !== '"') this.fail();
      const key = this.string();
      this.skip();
      if (this.s[this.i++] !== ":") this.fail();
      // Refused as Fastify's own JSON parser refuses it (prototype poisoning).
      if (key === "__proto__") this.fail();
      out[key] = this.value();
      this.skip();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") this.fail();
    }
  }
}

/** Parses JSON text; numbers a double cannot hold exactly come back as JsonNumbers. Throws SyntaxError on bad JSON. */
export function parseJsonBody(text: string): unknown {
  if (!LONG_NUMBER.test(text)) return JSON.parse(text);
  try {
    return new Parser(text).parse();
  } catch (error) {
    if (error instanceof SyntaxFailure) throw new SyntaxError(error.message);
    throw error;
  }
}
