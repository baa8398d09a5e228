/**
 * One value mapping for both drivers: timestamps and dates stay as the server's text (so no
 * precision or zone is lost to JS Date), numeric stays text, int8 becomes a number when it
 * is exactly representable and text otherwise.
 */
export const OID = { int8: 20, date: 1082, timestamp: 1114, timestamptz: 1184, numeric: 1700 } as const;

export function parseInt8(text: string): number | string {
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : text;
}

const identity = (text: string): string => text;

export const textParsers: Record<number, (text: string) => unknown> = {
  [OID.int8]: parseInt8,
  [OID.date]: identity,
  [OID.timestamp]: identity,
  [OID.timestamptz]: identity,
  [OID.numeric]: identity,
};
