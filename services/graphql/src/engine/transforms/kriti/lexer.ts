/**
 * The lexer of Kriti, the JSON templating language of Hasura's REST connectors
 * (https://github.com/hasura/kriti-lang, src/Kriti/Parser/Lexer.x; language described in its
 * README and at https://hasura.io/docs/latest/api-reference/kriti-templating/).
 *
 * Like Kriti's it has modes: outside braces and inside `{{ }}` it reads JSON punctuation,
 * numbers, identifiers and operators; a `"` enters string mode, where text is read up to the
 * closing quote and `{{` opens an expression inside the string; a `'` enters literal mode (a
 * quoted key in a path lookup). Identifiers may contain `$`, `_` and `-` (`$body.user-id` is
 * one field name). `#` starts a comment outside strings.
 */
import { type JsonNumber, numberFromText } from "../../json/number.js";
import { KritiError, type Position } from "./errors.js";

export type TokenKind =
  | "ident"
  | "bool"
  | "int"
  | "number"
  | "symbol"
  | "string-begin"
  | "string-end"
  | "text"
  | "quote"
  | "open"
  | "close"
  | "eof";

export interface Token {
  kind: TokenKind;
  /** The identifier, the symbol, or the text (escapes resolved). */
  text: string;
  value?: number | JsonNumber | boolean;
  start: Position;
  end: Position;
}

type Mode = "json" | "expr" | "string" | "literal";

/** Two-character symbols first, so the longer one wins, as Kriti's longest-match lexer does. */
const SYMBOLS = ["??", "==", "!=", ">=", "<=", "&&", "||", ":=", ":", ".", ",", "?", ">", "<", "_", "{", "}", "[", "]", "(", ")"];
const STRING_ESCAPES: Record<string, string> = { "{": "{", '"': '"', "\\": "\\", "/": "\\/", b: "\b", f: "\f", n: "\n", r: "\r", t: "\t" };
const IDENT = /\$?[a-zA-Z][$a-zA-Z0-9_-]*|\$/y;
const NUMBER = /-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/y;
const INT = /-?[0-9]+/y;

export function lex(source: string): Token[] {
  const tokens: Token[] = [];
  const modes: Mode[] = ["json"];
  let offset = 0;
  let line = 0;
  let col = 0;
  const here = (): Position => ({ line, col });
  const advance = (count: number) => {
    for (let i = 0; i < count; i++) {
      if (source[offset] === "\n") {
        line++;
        col = 0;
      } else col++;
      offset++;
    }
  };
  const push = (kind: TokenKind, length: number, text: string, value?: number | JsonNumber | boolean) => {
    const start = here();
    advance(length);
    tokens.push({ kind, text, value, start, end: here() });
  };
  const invalid = (): never => {
    throw new KritiError("ParseErrorCode", "Invalid Lexeme", { start: here(), end: here() });
  };
  const match = (re: RegExp): string | null => {
    re.lastIndex = offset;
    return re.exec(source)?.[0] ?? null;
  };

  while (offset < source.length) {
    const mode = modes[modes.length - 1];
    const ch = source[offset] as string;
    const next = source[offset + 1];
    if (mode === "string") {
      if (ch === '"') {
        modes.pop();
        push("string-end", 1, '"');
      } else if (ch === "{" && next === "{") {
        modes.push("expr");
        push("open", 2, "{{");
      } else if (ch === "\\") {
        if (next === "u" && /^[0-9a-fA-F]{4}$/.test(source.slice(offset + 2, offset + 6)))
          push("text", 6, String.fromCharCode(Number.parseInt(source.slice(offset + 2, offset + 6), 16)));
        else if (next !== undefined && next in STRING_ESCAPES) push("text", 2, STRING_ESCAPES[next] as string);
        else invalid();
      } else {
        let end = offset + 1;
        while (end < source.length && !'\\"{'.includes(source[end] as string)) end++;
        push("text", end - offset, source.slice(offset, end));
      }
      continue;
    }
    if (mode === "literal") {
      if (ch === "'") {
        modes.pop();
        push("quote", 1, "'");
        continue;
      }
      let end = offset;
      while (end < source.length && source[end] !== "'" && source[end] !== "{") end++;
      if (end === offset) invalid();
      push("text", end - offset, source.slice(offset, end));
      continue;
    }
    if (/\s/.test(ch)) {
      advance(1);
      continue;
    }
    if (ch === "#") {
      while (offset < source.length && source[offset] !== "\n") advance(1);
      continue;
    }
    if (ch === '"') {
      modes.push("string");
      push("string-begin", 1, '"');
      continue;
    }
    if (ch === "'") {
      modes.push("literal");
      push("quote", 1, "'");
      continue;
    }
    if (ch === "{" && next === "{") {
      modes.push("expr");
      push("open", 2, "{{");
      continue;
    }
    if (mode === "expr" && ch === "}" && next === "}") {
      modes.pop();
      push("close", 2, "}}");
      continue;
    }
    const number = match(NUMBER);
    const int = match(INT);
    if (number || int) {
      // The longest match wins; on a tie the integer rule, which Kriti lists first.
      // A number a double cannot hold exactly keeps its digits (a JsonNumber), as Kriti's Scientific does.
      if (int && (!number || int.length >= number.length)) push("int", int.length, int, numberFromText(int));
      else if (number) push("number", number.length, number, numberFromText(number));
      continue;
    }
    const ident = match(IDENT);
    if (ident) {
      if (ident === "true" || ident === "false") push("bool", ident.length, ident, ident === "true");
      else push("ident", ident.length, ident);
      continue;
    }
    const symbol = SYMBOLS.find((s) => source.startsWith(s, offset));
    if (symbol) push("symbol", symbol.length, symbol);
    else invalid();
  }
  tokens.push({ kind: "eof", text: "", start: here(), end: here() });
  return tokens;
}
