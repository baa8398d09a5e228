/**
 * Running PostGIS-dependent setups on a database without PostGIS: the geometry/geography objects are
 * cut out of the setup bodies (a table whose PostGIS column is NOT NULL goes whole, otherwise only the
 * column), and every case that mentions a removed table or column is skipped with the reason.
 */

const POSTGIS_TEXT = /\b(geometry|geography)\b|\bST_[A-Za-z]+\s*\(|\$st_|postgis/i;

export function mentionsPostgis(text: string): boolean {
  return POSTGIS_TEXT.test(text);
}

export interface Removed {
  tables: Set<string>;
  /** table → columns */
  columns: Map<string, Set<string>>;
}

export function emptyRemoved(): Removed {
  return { tables: new Set(), columns: new Map() };
}

/** Splits SQL on top-level semicolons, respecting quotes, dollar quotes and comments. */
export function splitSql(sql: string): string[] {
  const out: string[] = [];
  let start = 0;
  let i = 0;
  while (i < sql.length) {
    const ch = sql[i];
    const rest = sql.slice(i);
    if (ch === "'" || ch === '"') {
      const end = sql.indexOf(ch, i + 1);
      i = end < 0 ? sql.length : end + 1;
    } else if (rest.startsWith("--")) {
      const end = sql.indexOf("\n", i);
      i = end < 0 ? sql.length : end;
    } else if (rest.startsWith("/*")) {
      const end = sql.indexOf("*/", i + 2);
      i = end < 0 ? sql.length : end + 2;
    } else if (ch === "$" && /^\$[A-Za-z_]*\$/.test(rest)) {
      const tag = /^\$[A-Za-z_]*\$/.exec(rest)?.[0] ?? "$$";
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
    } else if (ch === ";") {
      out.push(sql.slice(start, i));
      start = ++i;
    } else i++;
  }
  if (sql.slice(start).trim()) out.push(sql.slice(start));
  return out.filter((s) => s.trim() !== "");
}

function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const ch = body[i];
    if (ch === "(") depth++;
    else if (ch === ")") depth--;
    else if (ch === "," && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

const bare = (name: string) => (name.replace(/"/g, "").split(".").pop() ?? name).toLowerCase();

function stripStatement(statement: string, removed: Removed): string | undefined {
  const create = /^\s*create\s+table\s+(?:if\s+not\s+exists\s+)?([\w."]+)\s*\(/i.exec(statement);
  if (create?.[1]) {
    const table = bare(create[1]);
    const open = create[0].length;
    const close = statement.lastIndexOf(")");
    const parts = splitTopLevel(statement.slice(open, close));
    const spatial = parts.filter((p) => /^\s*"?\w+"?\s+(geometry|geography)\b/i.test(p));
    if (spatial.length === 0) return statement;
    if (spatial.some((p) => /not\s+null/i.test(p))) {
      removed.tables.add(table);
      return undefined;
    }
    const cols = removed.columns.get(table) ?? new Set<string>();
    for (const p of spatial) cols.add(bare(/^\s*("?\w+"?)/.exec(p)?.[1] ?? ""));
    removed.columns.set(table, cols);
    return `${statement.slice(0, open)}${parts.filter((p) => !spatial.includes(p)).join(",")}${statement.slice(close)}`;
  }
  const target = /^\s*(?:insert\s+into|alter\s+table|create\s+index\s+\w*\s*on|truncate)\s+([\w."]+)/i.exec(statement)?.[1];
  if (target && removed.tables.has(bare(target))) return undefined;
  const drop = /^(\s*drop\s+table\s+(?:if\s+exists\s+)?)(.*?)(\s+cascade)?\s*$/is.exec(statement);
  if (drop?.[2]) {
    const names = drop[2].split(",").filter((n) => !removed.tables.has(bare(n.trim())));
    return names.length === 0 ? undefined : `${drop[1]}${names.join(",")}${drop[3] ?? ""}`;
  }
  if (/\bST_[A-Za-z]+\s*\(/.test(statement)) return undefined;
  return statement;
}

function stripSql(sql: string, removed: Removed): string {
  return splitSql(sql)
    .map((s) => stripStatement(s, removed))
    .filter((s): s is string => s !== undefined)
    .join(";\n");
}

function tableOf(args: Record<string, unknown>): string | undefined {
  const t = args.table ?? args.name;
  if (typeof t === "string") return t.toLowerCase();
  if (t && typeof t === "object" && typeof (t as { name?: unknown }).name === "string") return (t as { name: string }).name.toLowerCase();
  return undefined;
}

function stripStep(step: unknown, removed: Removed): unknown {
  if (!step || typeof step !== "object") return step;
  const { type, args } = step as { type?: string; args?: Record<string, unknown> };
  if (!args) return step;
  if (type === "run_sql" && typeof args.sql === "string") return { ...step, args: { ...args, sql: stripSql(args.sql, removed) } };
  const text = JSON.stringify(args);
  for (const table of removed.tables) if (new RegExp(`"${table}"`, "i").test(text)) return undefined;
  const cols = removed.columns.get(tableOf(args) ?? "");
  if (!cols) return step;
  const copy = structuredClone(args) as Record<string, unknown> & {
    objects?: Record<string, unknown>[];
    permission?: { columns?: unknown };
  };
  for (const object of copy.objects ?? []) for (const col of cols) delete object[col];
  if (Array.isArray(copy.permission?.columns)) copy.permission.columns = copy.permission.columns.filter((c) => !cols.has(String(c)));
  return { ...step, args: copy };
}

/** Rewrites a setup or teardown body (bulk or single op); `removed` accumulates across the class's files. */
export function stripPostgis(body: unknown, removed: Removed): unknown {
  if (body && typeof body === "object" && (body as { type?: string }).type === "bulk") {
    const bulk = body as { args: unknown[] };
    return { ...bulk, args: bulk.args.map((s) => stripStep(s, removed)).filter((s) => s !== undefined) };
  }
  return stripStep(body, removed) ?? { type: "bulk", args: [] };
}

/** Why a case must be skipped once PostGIS objects were removed, if it mentions one of them. */
export function postgisSkipReason(caseText: string, removed: Removed): string | undefined {
  const hits: string[] = [];
  for (const table of removed.tables) if (new RegExp(`\\b${table}\\b`, "i").test(caseText)) hits.push(`table ${table}`);
  for (const [table, cols] of removed.columns)
    for (const col of cols) if (new RegExp(`\\b${col}\\b`, "i").test(caseText)) hits.push(`column ${table}.${col}`);
  return hits.length ? `needs PostGIS (${hits.join(", ")}), not installed on this database` : undefined;
}
