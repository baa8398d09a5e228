/**
 * The engine's one-line SQL laid out for reading in snapshot files: each clause on its own line,
 * indented by the depth of the parentheses it sits in. Only whitespace outside string literals
 * and quoted identifiers changes, so the text still says exactly what ran.
 */

const CLAUSES = [
  "SELECT",
  "FROM",
  "WHERE",
  "GROUP BY",
  "ORDER BY",
  "LIMIT",
  "OFFSET",
  "INSERT INTO",
  "VALUES",
  "ON CONFLICT",
  "DO UPDATE SET",
  "UPDATE",
  "SET",
  "DELETE FROM",
  "RETURNING",
  "UNION ALL",
  "CROSS JOIN",
  "LEFT OUTER JOIN",
  "LEFT JOIN",
  "INNER JOIN",
];

/** The clause keyword starting at `i` (a whole word), if any. */
function clauseAt(text: string, i: number): string | null {
  if (i > 0 && /[\w$"]/.test(text[i - 1] as string)) return null;
  for (const clause of CLAUSES) {
    if (text.startsWith(clause, i) && !/[\w$]/.test(text[i + clause.length] ?? " ")) return clause;
  }
  return null;
}

export function layoutSql(text: string): string {
  let out = "";
  let depth = 0;
  let i = 0;
  const newline = () => {
    out = out.trimEnd();
    if (out.length > 0) out += `\n${"  ".repeat(depth)}`;
  };
  while (i < text.length) {
    const c = text[i] as string;
    if (c === "'" || c === '"') {
      // A literal or quoted identifier, doubled quotes included, copied as it is.
      let j = i + 1;
      while (j < text.length && !(text[j] === c && text[j + 1] !== c)) j += text[j] === c ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
      continue;
    }
    if (c === "(") depth += 1;
    if (c === ")") depth = Math.max(0, depth - 1);
    const clause = clauseAt(text, i);
    if (clause) {
      newline();
      out += clause;
      i += clause.length;
      continue;
    }
    out += c;
    i += 1;
  }
  return out.trim();
}
