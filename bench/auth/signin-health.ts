/**
 * Password sign-ins (bcrypt) must not block the event loop: while `concurrency` sign-in loops
 * run, a light probe (one GET /health at a time, a short pause between) measures the latency of
 * a request that needs no hashing and no database.
 */
import http from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { percentile, roundMs } from "../common/closed-loop.js";
import { emailOf, PASSWORD } from "./service.js";

export interface ProbeResult {
  probes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  failed: number;
}

export interface SignInLoad {
  concurrency: number;
  seconds: number;
  signIns: number;
  signInsPerSecond: number;
  signInP50Ms: number;
  signInP99Ms: number;
  failed: number;
  /** /health while nothing else runs, for comparison. */
  idleHealth: ProbeResult;
  health: ProbeResult;
}

export function summarize(latencies: number[], failed: number): ProbeResult {
  const sorted = [...latencies].sort((a, b) => a - b);
  return {
    probes: sorted.length,
    p50Ms: roundMs(percentile(sorted, 50)),
    p99Ms: roundMs(percentile(sorted, 99)),
    maxMs: roundMs(sorted.at(-1) ?? 0),
    failed,
  };
}

/** One keep-alive GET at a time through its own agent, so the bench's other requests do not queue ahead of it. */
export async function probeHealth(base: string, until: () => boolean, pauseMs: number): Promise<ProbeResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const url = new URL("/health", base);
  const latencies: number[] = [];
  let failed = 0;
  const once = () =>
    new Promise<number>((resolve, reject) => {
      const start = performance.now();
      const request = http.get(url, { agent }, (response) => {
        response.resume();
        response.on("end", () =>
          response.statusCode === 200 ? resolve(performance.now() - start) : reject(new Error(`${response.statusCode}`)),
        );
      });
      request.on("error", reject);
    });
  try {
    await once(); // the socket's connect is not measured
    while (!until()) {
      try {
        latencies.push(await once());
      } catch {
        failed++;
      }
      await sleep(pauseMs);
    }
  } finally {
    agent.destroy();
  }
  return summarize(latencies, failed);
}

export async function measureSignInHealth(
  base: string,
  users: number,
  concurrency: number,
  seconds: number,
  pauseMs = 5,
): Promise<SignInLoad> {
  const idleEnd = performance.now() + 2000;
  const idleHealth = await probeHealth(base, () => performance.now() >= idleEnd, pauseMs);

  let stop = false;
  const signInLatencies: number[] = [];
  let failed = 0;
  const signInLoop = async (worker: number) => {
    for (let n = 0; !stop; n++) {
      const email = emailOf((worker + n * concurrency) % users);
      const start = performance.now();
      try {
        const response = await fetch(`${base}/token?grant_type=password`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ email, password: PASSWORD }),
          signal: AbortSignal.timeout(60_000),
        });
        await response.arrayBuffer();
        if (response.status === 200) signInLatencies.push(performance.now() - start);
        else failed++;
      } catch {
        failed++;
      }
    }
  };
  const started = performance.now();
  const loops = Array.from({ length: concurrency }, (_, i) => signInLoop(i));
  // Let every loop have its first sign-in in flight before probing.
  await sleep(200);
  const end = started + seconds * 1000;
  const health = await probeHealth(base, () => performance.now() >= end, pauseMs);
  stop = true;
  await Promise.all(loops);
  const elapsed = (performance.now() - started) / 1000;
  const signIns = summarize(signInLatencies, failed);
  return {
    concurrency,
    seconds,
    signIns: signIns.probes,
    signInsPerSecond: Math.round((signIns.probes / elapsed) * 10) / 10,
    signInP50Ms: signIns.p50Ms,
    signInP99Ms: signIns.p99Ms,
    failed,
    idleHealth,
    health,
  };
}
