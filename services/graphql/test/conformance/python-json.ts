/**
 * Python's `json.loads` / `json.dumps` (default arguments) and the few Python operations the ported
 * helper servers use (`d['k']`, `'k' in d`, `for x in xs`), so a port answers byte for byte what the
 * Python original answers: dicts keep their insertion order (also for integer-like keys, which a JS
 * object would reorder), integers keep their precision (bigint), floats print as Python's repr
 * (`1.0`, `1e+16`), strings are written with `ensure_ascii`, and `", "` / `": "` separate items.
 * Anything Python would raise on (a KeyError, a TypeError, a JSONDecodeError) throws PyError.
 */

/** A Python 3 `map` object: the value of `map(f, xs)`, which `json.dumps` refuses (TypeError). */
export class PyMapObject {
  constructor(readonly items: Py[]) {}
}

export type PyDict = Map<string, Py>;
/** A JSON value as Python holds it: int → bigint, float → number, dict → Map (insertion ordered). */
export type Py = null | boolean | string | bigint | number | Py[] | PyDict | PyMapObject;

/** An exception Python would raise; the message names its class, as a traceback would. */
export class PyError extends Error {}

export function isDict(value: Py | undefined): value is PyDict {
  return value instanceof Map;
}

function typeName(value: Py): string {
  if (value === null) return "NoneType";
  if (typeof value === "boolean") return "bool";
  if (typeof value === "string") return "str";
  if (typeof value === "bigint") return "int";
  if (typeof value === "number") return "float";
  if (Array.isArray(value)) return "list";
  if (value instanceof PyMapObject) return "map";
  return "dict";
}

/** `obj[key]`: a dict by str key, a list by int index (negative from the end). */
export function item(obj: Py, key: string | number): Py {
  if (isDict(obj)) {
    if (typeof key !== "string") throw new PyError(`KeyError: ${key}`);
    if (!obj.has(key)) throw new PyError(`KeyError: '${key}'`);
    return obj.get(key) as Py;
  }
  if (Array.isArray(obj) || typeof obj === "string") {
    if (typeof key !== "number") throw new PyError(`TypeError: ${typeName(obj)} indices must be integers or slices, not str`);
    const chars = typeof obj === "string" ? [...obj] : obj;
    const index = key < 0 ? chars.length + key : key;
    if (index < 0 || index >= chars.length) throw new PyError(`IndexError: ${typeName(obj)} index out of range`);
    return chars[index] as Py;
  }
  throw new PyError(`TypeError: '${typeName(obj)}' object is not subscriptable`);
}

/** `obj[k1][k2]...` */
export function path(obj: Py, ...keys: (string | number)[]): Py {
  return keys.reduce<Py>((value, key) => item(value, key), obj);
}

/** `obj[key] = value` on a dict. */
export function setItem(obj: Py, key: string, value: Py): void {
  if (isDict(obj)) obj.set(key, value);
  else if (Array.isArray(obj)) throw new PyError("TypeError: list indices must be integers or slices, not str");
  else throw new PyError(`TypeError: '${typeName(obj)}' object does not support item assignment`);
}

/** `needle in hay` for a str needle: a dict's keys, a list's items, a str's substrings. */
export function contains(hay: Py, needle: string): boolean {
  if (isDict(hay)) return hay.has(needle);
  if (Array.isArray(hay)) return hay.some((x) => x === needle);
  if (typeof hay === "string") return hay.includes(needle);
  throw new PyError(`TypeError: argument of type '${typeName(hay)}' is not iterable`);
}

/** `for x in value`: a list's items, a dict's keys, a str's characters. */
export function iterate(value: Py): Py[] {
  if (Array.isArray(value)) return value;
  if (isDict(value)) return [...value.keys()];
  if (typeof value === "string") return [...value];
  if (value instanceof PyMapObject) return value.items;
  throw new PyError(`TypeError: '${typeName(value)}' object is not iterable`);
}

/** A dict literal, in the order written. */
export function dict(entries: Record<string, Py>): PyDict {
  return new Map(Object.entries(entries));
}

/** A plain JSON value (from the runner's own code) as Python would hold it; whole numbers become int. */
export function fromJs(value: unknown): Py {
  if (value === null || value === undefined) return null;
  if (typeof value === "boolean" || typeof value === "string" || typeof value === "bigint") return value;
  if (typeof value === "number") return Number.isInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(fromJs);
  if (value instanceof Map) return value as PyDict;
  return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k, fromJs(v)]));
}

// --- json.loads --------------------------------------------------------------------------------

const WS = new Set([" ", "\t", "\n", "\r"]);

class Parser {
  i = 0;
  constructor(readonly s: string) {}

  fail(what: string): never {
    throw new PyError(`json.decoder.JSONDecodeError: ${what}: char ${this.i}`);
  }

  ws(): void {
    while (this.i < this.s.length && WS.has(this.s[this.i] as string)) this.i++;
  }

  value(): Py {
    const c = this.s[this.i];
    if (c === '"') return this.string();
    if (c === "{") return this.object();
    if (c === "[") return this.array();
    for (const [word, value] of [
      ["null", null],
      ["true", true],
      ["false", false],
      ["NaN", Number.NaN],
      ["Infinity", Number.POSITIVE_INFINITY],
      ["-Infinity", Number.NEGATIVE_INFINITY],
    ] as const) {
      if (this.s.startsWith(word, this.i)) {
        this.i += word.length;
        return value;
      }
    }
    const number = /^(-?(?:0|[1-9][0-9]*))(\.[0-9]+)?([eE][-+]?[0-9]+)?/.exec(this.s.slice(this.i));
    if (!number) this.fail("Expecting value");
    this.i += number[0].length;
    return number[2] === undefined && number[3] === undefined ? BigInt(number[1] as string) : Number(number[0]);
  }

  string(): string {
    this.i++;
    let out = "";
    for (;;) {
      const c = this.s[this.i];
      if (c === undefined) this.fail("Unterminated string starting at");
      if (c === '"') {
        this.i++;
        return out;
      }
      if (c.charCodeAt(0) < 0x20) this.fail("Invalid control character at");
      if (c !== "\\") {
        out += c;
        this.i++;
        continue;
      }
      const e = this.s[this.i + 1];
      const simple: Record<string, string> = { '"': '"', "\\": "\\", "/": "/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
      if (e !== undefined && simple[e] !== undefined) {
        out += simple[e];
        this.i += 2;
      } else if (e === "u" && /^[0-9a-fA-F]{4}$/.test(this.s.slice(this.i + 2, this.i + 6))) {
        out += String.fromCharCode(Number.parseInt(this.s.slice(this.i + 2, this.i + 6), 16));
        this.i += 6;
      } else this.fail("Invalid \\escape");
    }
  }

  object(): PyDict {
    this.i++;
    const out: PyDict = new Map();
    this.ws();
    if (this.s[this.i] === "}") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      if (this.s[this.i] !== '"') this.fail("Expecting property name enclosed in double quotes");
      const key = this.string();
      this.ws();
      if (this.s[this.i] !== ":") this.fail("Expecting ':' delimiter");
      this.i++;
      this.ws();
      out.set(key, this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "}") return out;
      if (c !== ",") this.fail("Expecting ',' delimiter");
    }
  }

  array(): Py[] {
    this.i++;
    const out: Py[] = [];
    this.ws();
    if (this.s[this.i] === "]") {
      this.i++;
      return out;
    }
    for (;;) {
      this.ws();
      out.push(this.value());
      this.ws();
      const c = this.s[this.i++];
      if (c === "]") return out;
      if (c !== ",") this.fail("Expecting ',' delimiter");
    }
  }
}

/** `json.loads(text)`. */
export function loads(text: string): Py {
  const parser = new Parser(text);
  parser.ws();
  const value = parser.value();
  parser.ws();
  if (parser.i !== text.length) parser.fail("Extra data");
  return value;
}

// --- json.dumps --------------------------------------------------------------------------------

/** `repr(float)` as json.dumps writes it (allow_nan: NaN / Infinity / -Infinity). */
export function floatRepr(x: number): string {
  if (Number.isNaN(x)) return "NaN";
  if (x === Number.POSITIVE_INFINITY) return "Infinity";
  if (x === Number.NEGATIVE_INFINITY) return "-Infinity";
  if (x === 0) return Object.is(x, -0) ? "-0.0" : "0.0";
  const sign = x < 0 ? "-" : "";
  const [mantissa = "", exponent = "0"] = Math.abs(x).toExponential().split("e");
  const digits = mantissa.replace(".", "");
  const exp = Number(exponent);
  if (exp < -4 || exp >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
  }
  if (exp < 0) return `${sign}0.${"0".repeat(-exp - 1)}${digits}`;
  if (digits.length <= exp + 1) return `${sign}${digits}${"0".repeat(exp + 1 - digits.length)}.0`;
  return `${sign}${digits.slice(0, exp + 1)}.${digits.slice(exp + 1)}`;
}

const NAMED_ESCAPES: Record<string, string> = { '"': '\\"', "\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f" };

/** A str as json.dumps writes it with ensure_ascii: everything outside ' '..'~' escaped. */
function dumpString(s: string): string {
  let out = '"';
  for (let i = 0; i < s.length; i++) {
    const ch = s[i] as string;
    const code = s.charCodeAt(i);
    if (NAMED_ESCAPES[ch] !== undefined) out += NAMED_ESCAPES[ch];
    else if (code >= 0x20 && code <= 0x7e) out += ch;
    else out += `\\u${code.toString(16).padStart(4, "0")}`;
  }
  return `${out}"`;
}

/** `json.dumps(value)`; a `map` object raises TypeError as it does in Python. */
export function dumps(value: Py): string {
  if (value === null) return "null";
  if (value === true) return "true";
  if (value === false) return "false";
  if (typeof value === "string") return dumpString(value);
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number") return floatRepr(value);
  if (Array.isArray(value)) return `[${value.map(dumps).join(", ")}]`;
  if (value instanceof PyMapObject) throw new PyError("TypeError: Object of type map is not JSON serializable");
  return `{${[...value].map(([k, v]) => `${dumpString(k)}: ${dumps(v)}`).join(", ")}}`;
}
