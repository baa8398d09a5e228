/**
 * The GET /health probe of signin-health.ts on a worker thread of its own, so that what it
 * measures is the service and not the bench's own event loop (which runs autocannon and the SMTP
 * sink during the /otp load). The thread is started (and has loaded its modules) before anything
 * is measured; each `measure()` probes until its `stop()`, which answers the {@link ProbeResult}.
 */
import { isMainThread, parentPort, type Worker, workerData } from "node:worker_threads";
import { startModuleWorker } from "@platform/core";
import { type ProbeResult, probeHealth } from "./signin-health.js";

interface ProbeData {
  base: string;
  pauseMs: number;
}

type Command = "start" | "stop";

export class HealthProbe {
  private constructor(private readonly worker: Worker) {}

  /** A probe thread for `base`, once it is ready. */
  static async start(base: string, pauseMs = 5): Promise<HealthProbe> {
    // This module again, on its own thread.
    const worker = startModuleWorker(new URL(import.meta.url), { workerData: { base, pauseMs } satisfies ProbeData });
    await new Promise<void>((resolve, reject) => {
      worker.once("message", () => resolve());
      worker.once("error", reject);
    });
    return new HealthProbe(worker);
  }

  /** Starts probing; `stop()` ends it and answers what was measured. */
  measure(): { stop(): Promise<ProbeResult> } {
    const result = new Promise<ProbeResult>((resolve, reject) => {
      this.worker.once("message", (value: ProbeResult) => resolve(value));
      this.worker.once("error", reject);
    });
    this.worker.postMessage("start" satisfies Command);
    return {
      stop: () => {
        this.worker.postMessage("stop" satisfies Command);
        return result;
      },
    };
  }

  async close(): Promise<void> {
    await this.worker.terminate();
  }
}

if (!isMainThread && parentPort) {
  const port = parentPort;
  const { base, pauseMs } = workerData as ProbeData;
  let stopped = false;
  port.on("message", (command: Command) => {
    if (command === "stop") {
      stopped = true;
      return;
    }
    stopped = false;
    void probeHealth(base, () => stopped, pauseMs).then((result) => port.postMessage(result));
  });
  port.postMessage("ready");
}
