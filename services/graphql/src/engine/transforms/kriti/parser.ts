/**
 * The parser of Kriti templates, following Kriti's grammar
 * (https://github.com/hasura/kriti-lang, grammar.bnf and src/Kriti/Parser/Grammar.y):
 *
 *   expr  := atom OP atom (OP one of > < >= <= != == && || in ??, not chained) | ap | '{{' expr '}}'
 *   ap    := ident '(' expr ')' | 'not' expr | atom
 *   atom  := var | atom '.' ident | atom '[' 'lit' ']' | atom '[' atom ']' | atom '?' field*
 *          | range | if | json | '(' expr ')'
 *   range := '{{' 'range' (ident | '_') ',' ident ':=' expr '}}' expr '{{' 'end' '}}'
 *   if    := '{{' 'if' expr '}}' expr ('{{' 'elif' expr '}}' expr)* '{{' 'else' '}}' expr '{{' 'end' '}}'
 *
 * JSON values are templates; a string may hold `{{ expr }}` parts. A range body and each branch
 * of an `if` are one expression, so a range inside `[ ]` gives an array inside the array.
 */
import type { JsonNumber } from "../../json/number.js";
import { KritiError, type Span } from "./errors.js";
import { lex, type Token } from "./lexer.js";

export type Field = string | Node;

export type Node = { span: Span } & (
  | { k: "string"; value: string }
  | { k: "number"; value: number | JsonNumber }
  | { k: "bool"; value: boolean }
  | { k: "null" }
  | { k: "object"; fields: Array<[string, Node]> }
  | { k: "array"; items: Node[] }
  | { k: "template"; parts: Node[] }
  | { k: "var"; name: string }
  | { k: "field"; target: Node; key: Field }
  | { k: "optional"; target: Node; path: Field[] }
  | { k: "if"; branches: Array<[Node, Node]>; otherwise: Node }
  | { k: "range"; index: string | null; binder: string; over: Node; body: Node }
  | { k: "call"; name: string; arg: Node }
  | { k: "binary"; op: BinaryOp; left: Node; right: Node }
);

export type BinaryOp = ">" | "<" | ">=" | "<=" | "!=" | "==" | "&&" | "||" | "in" | "??";
const BINARY = new Set(["??", "==", "!=", ">=", "<=", "&&", "||", ">", "<"]);
/** Words the grammar reserves inside `{{ }}`: never a variable. */
const KEYWORDS = new Set(["range", "if", "elif", "else", "end"]);
/** Nesting deeper than this is refused, so a template cannot exhaust the stack. */
const MAX_DEPTH = 200;

export function parse(source: string): Node {
  const tokens = lex(source);
  let at = 0;
  let depth = 0;
  const token = (index: number): Token => tokens[Math.min(Math.max(index, 0), tokens.length - 1)] as Token;
  const peek = (ahead = 0): Token => token(at + ahead);
  const take = (): Token => token(at++);
  const span = (from: Token, to: Token = token(at - 1)): Span => ({ start: from.start, end: to.end });
  const unexpected = (token: Token): never => {
    const what = token.kind === "eof" ? "end of input" : token.text;
    throw new KritiError("ParseErrorCode", `Unexpected token '${what}'.`, { start: token.start, end: token.end });
  };
  const isSymbol = (text: string, token = peek()) => token.kind === "symbol" && token.text === text;
  const isWord = (text: string, token = peek()) => token.kind === "ident" && token.text === text;
  const expectSymbol = (text: string): Token => (isSymbol(text) ? take() : unexpected(peek()));
  const expectWord = (text: string): Token => (isWord(text) ? take() : unexpected(peek()));
  const expectKind = (kind: Token["kind"]): Token => (peek().kind === kind ? take() : unexpected(peek()));
  const ident = (): string => {
    const name = expectKind("ident");
    return KEYWORDS.has(name.text) ? unexpected(name) : name.text;
  };
  const nested = <T>(parseIt: () => T): T => {
    if (++depth > MAX_DEPTH) throw new KritiError("ParseErrorCode", "Template nested too deeply.", span(peek(), peek()));
    try {
      return parseIt();
    } finally {
      depth--;
    }
  };

  const expr = (): Node =>
    nested(() => {
      const first = peek();
      if (first.kind === "open" && !isWord("range", peek(1)) && !isWord("if", peek(1))) {
        take();
        const inner = expr();
        expectKind("close");
        return inner;
      }
      // `not` takes a whole expression: `not(a) && b` is not(a && b), as in Kriti.
      if (isWord("not")) {
        take();
        const arg = expr();
        return { k: "call", name: "not", arg, span: span(first) };
      }
      if (first.kind === "ident" && isSymbol("(", peek(1)) && !KEYWORDS.has(first.text)) {
        take();
        take();
        const arg = expr();
        expectSymbol(")");
        return { k: "call", name: first.text, arg, span: span(first) };
      }
      const left = atom();
      const op = peek();
      if ((op.kind === "symbol" && BINARY.has(op.text)) || isWord("in", op)) {
        take();
        const right = atom();
        return { k: "binary", op: op.text as BinaryOp, left, right, span: span(first) };
      }
      return left;
    });

  const field = (): Field => {
    if (isSymbol(".")) {
      take();
      return ident();
    }
    expectSymbol("[");
    let key: Field;
    if (peek().kind === "quote") {
      take();
      key = peek().kind === "text" ? take().text : "";
      expectKind("quote");
    } else key = atom();
    expectSymbol("]");
    return key;
  };

  const atom = (): Node =>
    nested(() => {
      const first = peek();
      let node = primary();
      for (;;) {
        if (isSymbol(".") || isSymbol("[")) node = { k: "field", target: node, key: field(), span: span(first) };
        else if (isSymbol("?")) {
          take();
          const path: Field[] = [];
          while (isSymbol(".") || isSymbol("[")) path.push(field());
          node = { k: "optional", target: node, path, span: span(first) };
        } else return node;
      }
    });

  const primary = (): Node => {
    const first = peek();
    switch (first.kind) {
      case "ident":
        if (first.text === "null") {
          take();
          return { k: "null", span: span(first) };
        }
        return { k: "var", name: ident(), span: span(first) };
      case "bool":
        take();
        return { k: "bool", value: first.value as boolean, span: span(first) };
      case "int":
      case "number":
        take();
        return { k: "number", value: first.value as number | JsonNumber, span: span(first) };
      case "string-begin":
        return stringTemplate();
      case "open":
        return isWord("range", peek(1)) ? range() : ifThenElse();
      case "symbol":
        if (first.text === "[") return array();
        if (first.text === "{") return object();
        if (first.text === "(") {
          take();
          const inner = expr();
          expectSymbol(")");
          return inner;
        }
        return unexpected(first);
      default:
        return unexpected(first);
    }
  };

  const stringTemplate = (): Node => {
    const first = take();
    const parts: Node[] = [];
    while (peek().kind !== "string-end") {
      const token = peek();
      if (token.kind === "text") {
        take();
        parts.push({ k: "string", value: token.text, span: span(token) });
      } else if (token.kind === "open") {
        take();
        parts.push(expr());
        expectKind("close");
      } else unexpected(token);
    }
    take();
    return { k: "template", parts, span: span(first) };
  };

  const array = (): Node => {
    const first = take();
    const items: Node[] = [];
    if (!isSymbol("]"))
      do items.push(expr());
      while (isSymbol(",") && take());
    expectSymbol("]");
    return { k: "array", items, span: span(first) };
  };

  const object = (): Node => {
    const first = take();
    const fields: Array<[string, Node]> = [];
    if (!isSymbol("}"))
      do {
        expectKind("string-begin");
        let key = "";
        while (peek().kind === "text") key += take().text;
        expectKind("string-end");
        expectSymbol(":");
        fields.push([key, expr()]);
      } while (isSymbol(",") && take());
    expectSymbol("}");
    return { k: "object", fields, span: span(first) };
  };

  const range = (): Node => {
    const first = take();
    take();
    let index: string | null = null;
    if (isSymbol("_")) take();
    else index = ident();
    expectSymbol(",");
    const binder = ident();
    expectSymbol(":=");
    const over = expr();
    expectKind("close");
    const body = expr();
    expectKind("open");
    expectWord("end");
    expectKind("close");
    return { k: "range", index, binder, over, body, span: span(first) };
  };

  const ifThenElse = (): Node => {
    const first = take();
    take();
    const branches: Array<[Node, Node]> = [];
    let condition = expr();
    for (;;) {
      expectKind("close");
      branches.push([condition, expr()]);
      expectKind("open");
      if (isWord("elif")) {
        take();
        condition = expr();
        continue;
      }
      expectWord("else");
      expectKind("close");
      const otherwise = expr();
      expectKind("open");
      expectWord("end");
      expectKind("close");
      return { k: "if", branches, otherwise, span: span(first) };
    }
  };

  const template = expr();
  if (peek().kind !== "eof") unexpected(peek());
  return template;
}
