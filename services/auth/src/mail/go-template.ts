/**
 * The part of Go's text/template language that GoTrue's email templates use: `{{ .Name }}`,
 * `{{ .Data.key }}` (dotted lookups), `{{ if .X }}`, `{{ else }}`, `{{ end }}`, comments
 * `{{/* ... *\/}}` and the `{{-` / `-}}` whitespace trimming. Anything else is a parse error, so a
 * template using more of the language falls back to the built-in default instead of being
 * sent half-rendered. Truthiness follows Go: false, 0, "", nil and empty maps/slices are false.
 */

type Node = { text: string } | { field: string[] } | { if: string[]; yes: Node[]; no: Node[] };

export class TemplateError extends Error {}

export interface Template {
  render(data: Record<string, unknown>, escapeValue?: (value: string) => string): string;
}

const ACTION = /\{\{(-\s)?\s*([\s\S]*?)\s*(\s-)?\}\}/g;
const FIELD = /^(\.[A-Za-z_][A-Za-z0-9_]*)+$|^\.$/;

function fieldPath(source: string, expression: string): string[] {
  if (!FIELD.test(expression)) throw new TemplateError(`unsupported template expression "${expression}" in "${source}"`);
  return expression === "." ? [] : expression.slice(1).split(".");
}

type Token = { text: string } | { action: string };

function tokenize(source: string): Token[] {
  const tokens: Token[] = [];
  let last = 0;
  let trimNext = false;
  for (const match of source.matchAll(ACTION)) {
    let text = source.slice(last, match.index);
    if (trimNext) text = text.trimStart();
    if (match[1]) text = text.trimEnd();
    if (text) tokens.push({ text });
    const action = match[2] ?? "";
    if (!/^\/\*[\s\S]*\*\/$/.test(action)) tokens.push({ action });
    trimNext = Boolean(match[3]);
    last = (match.index ?? 0) + match[0].length;
  }
  let rest = source.slice(last);
  if (trimNext) rest = rest.trimStart();
  if (rest) tokens.push({ text: rest });
  return tokens;
}

function parseNodes(source: string, tokens: Token[], at: { i: number }, inside: boolean): { nodes: Node[]; stop?: "else" | "end" } {
  const nodes: Node[] = [];
  while (at.i < tokens.length) {
    const token = tokens[at.i++] as Token;
    if ("text" in token) {
      nodes.push({ text: token.text });
      continue;
    }
    const action = token.action;
    if (action === "end" || action === "else") {
      if (!inside) throw new TemplateError(`unexpected {{ ${action} }} in "${source}"`);
      return { nodes, stop: action };
    }
    const condition = /^if\s+(\S+)$/.exec(action);
    if (condition) {
      const then = parseNodes(source, tokens, at, true);
      let otherwise: Node[] = [];
      if (then.stop === "else") {
        const tail = parseNodes(source, tokens, at, true);
        if (tail.stop !== "end") throw new TemplateError(`missing {{ end }} in "${source}"`);
        otherwise = tail.nodes;
      } else if (then.stop !== "end") throw new TemplateError(`missing {{ end }} in "${source}"`);
      nodes.push({ if: fieldPath(source, condition[1] as string), yes: then.nodes, no: otherwise });
      continue;
    }
    nodes.push({ field: fieldPath(source, action) });
  }
  if (inside) throw new TemplateError(`missing {{ end }} in "${source}"`);
  return { nodes };
}

function lookup(data: unknown, path: string[]): unknown {
  let value = data;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

function truthy(value: unknown): boolean {
  if (Array.isArray(value)) return value.length > 0;
  if (value !== null && typeof value === "object") return Object.keys(value).length > 0;
  return Boolean(value);
}

function print(value: unknown): string {
  if (value === undefined || value === null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

function renderNodes(nodes: Node[], data: unknown, escapeValue: (value: string) => string): string {
  let out = "";
  for (const node of nodes) {
    if ("text" in node) out += node.text;
    else if ("field" in node) out += escapeValue(print(lookup(data, node.field)));
    else out += renderNodes(truthy(lookup(data, node.if)) ? node.yes : node.no, data, escapeValue);
  }
  return out;
}

export function parseTemplate(source: string): Template {
  const { nodes } = parseNodes(source, tokenize(source), { i: 0 }, false);
  return {
    render: (data, escapeValue = (value) => value) => renderNodes(nodes, data, escapeValue),
  };
}

const HTML_ESCAPES: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&#34;", "'": "&#39;" };

/** How Go's html/template escapes a value printed into HTML text or a quoted attribute. */
export const escapeHtml = (value: string) => value.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c] as string);
