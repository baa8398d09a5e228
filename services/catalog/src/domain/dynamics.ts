/**
 * The time series of one snapshot field on a grid anchored at date_from, as the original service
 * computes it. Each bucket takes the value of the snapshot with the latest observed_at (then the
 * highest id) whose effective interval touches it; untouched buckets are null. Snapshots are
 * painted newest first and every bucket is painted at most once, using a "next unpainted bucket"
 * pointer: O(snapshots log snapshots + buckets) instead of the original's snapshots x buckets.
 */
import { formatInstant, type Instant, parseStoredInstant } from "./time.js";
import { float, int } from "./values.js";

export const INTERVALS = { "1h": 3600, "6h": 21_600, "1d": 86_400, "7d": 604_800 } as const;
export type IntervalName = keyof typeof INTERVALS;
export const MAX_POINTS = 20_000;

export interface SeriesSnapshot {
  id: number;
  observedAt: Instant;
  start: Instant;
  end: Instant;
  value: number | null;
}

/** Reads snapshot rows; the effective interval falls back to observed_at when valid_* is null. */
export function toSeriesSnapshot(row: Record<string, unknown>): SeriesSnapshot | null {
  const observedAt = parseStoredInstant(row.observed_at);
  if (observedAt === null) return null;
  const from = parseStoredInstant(row.valid_from_at) ?? observedAt;
  const to = parseStoredInstant(row.valid_to_at) ?? observedAt;
  return {
    id: int(row.id) ?? 0,
    observedAt,
    start: Math.min(from, to),
    end: Math.max(from, to),
    value: float(row.value),
  };
}

export function pointCount(from: Instant, to: Instant, stepMicros: number): number {
  return Math.floor((to - from) / stepMicros) + 1;
}

export function buildSeries(snapshots: readonly SeriesSnapshot[], from: Instant, to: Instant, stepMicros: number): Array<number | null> {
  const points = pointCount(from, to, stepMicros);
  const values: Array<number | null> = new Array(points).fill(null);
  // next[i]: the first unpainted bucket at or after i (points = none left).
  const next = new Int32Array(points + 1);
  for (let i = 0; i <= points; i++) next[i] = i;
  const find = (i: number): number => {
    let root = i;
    while (next[root] !== root) root = next[root] as number;
    while (next[i] !== root) {
      const up = next[i] as number;
      next[i] = root;
      i = up;
    }
    return root;
  };
  const newestFirst = [...snapshots].sort((a, b) => b.observedAt - a.observedAt || b.id - a.id);
  for (const s of newestFirst) {
    const start = Math.max(s.start, from);
    const end = Math.min(s.end, to);
    if (start > end) continue;
    const first = Math.min(Math.max(Math.floor((start - from) / stepMicros), 0), points - 1);
    const last = Math.min(Math.max(Math.floor((end - from) / stepMicros), 0), points - 1);
    for (let b = find(first); b <= last; b = find(b)) {
      values[b] = s.value;
      next[b] = b + 1;
    }
  }
  return values;
}

const grids = new Map<string, readonly string[]>();

/** The formatted dates of a grid. Clients ask for the same windows again and again, so recent grids are kept. */
export function gridDates(from: Instant, stepMicros: number, points: number): readonly string[] {
  const key = `${from}/${stepMicros}/${points}`;
  let dates = grids.get(key);
  if (dates) {
    grids.delete(key);
  } else {
    dates = Array.from({ length: points }, (_, i) => formatInstant(from + i * stepMicros));
    if (grids.size >= 32) grids.delete(grids.keys().next().value as string);
  }
  grids.set(key, dates);
  return dates;
}
