/** The top self-time functions of a V8 .cpuprofile (what `node --cpu-prof` writes on exit). */
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface Hotspot {
  function: string;
  location: string;
  selfMs: number;
  percent: number;
}

/**
 * The busiest profile in `dir` (a process started with `--import tsx` also writes one for its
 * module-loader thread), summarised by function and location; null when there is none.
 */
export function topSelfTime(dir: string, root: string, count = 15): { file: string; hotspots: Hotspot[] } | null {
  const summaries = readdirSync(dir)
    .filter((f) => f.endsWith(".cpuprofile"))
    .map((f) => ({ file: join(dir, f), ...selfTimes(JSON.parse(readFileSync(join(dir, f), "utf8")) as CpuProfile, root) }));
  const busiest = summaries.sort((a, b) => b.busyMs - a.busyMs)[0];
  if (!busiest) return null;
  const hotspots = [...busiest.self.entries()]
    .sort((a, b) => b[1] - a[1])
    .slice(0, count)
    .map(([key, ms]) => {
      const [name = "", location = ""] = key.split("\u0000");
      return { function: name, location, selfMs: Math.round(ms), percent: Math.round((ms / busiest.totalMs) * 1000) / 10 };
    });
  return { file: busiest.file, hotspots };
}

function selfTimes(profile: CpuProfile, root: string): { self: Map<string, number>; totalMs: number; busyMs: number } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<string, number>();
  let totalMs = 0;
  let busyMs = 0;
  profile.samples.forEach((id, i) => {
    const frame = byId.get(id)?.callFrame;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    totalMs += ms;
    if (!frame) return;
    if (frame.functionName !== "(idle)") busyMs += ms;
    const url = frame.url.startsWith("file://") ? relative(root, frame.url.slice(7)) : frame.url;
    const key = `${frame.functionName || "(anonymous)"}\u0000${url ? `${url}:${frame.lineNumber + 1}` : ""}`;
    self.set(key, (self.get(key) ?? 0) + ms);
  });
  return { self, totalMs, busyMs };
}
