/**
 * Starts a module of this workspace as a worker thread (node:worker_threads).
 *
 * The services run as TypeScript through tsx, whose loader a worker thread does not get: tsx
 * registers its hooks for the thread that imported it, and vitest transforms only its own
 * threads' modules. So for a `.ts` module the worker first registers tsx (its `tsx/esm/api`,
 * https://tsx.is/dev-api/register-esm) and then imports the module; a `.js` module is started as
 * it is. Errors while loading reach the Worker's `error` event like any other.
 */
import { Worker, type WorkerOptions } from "node:worker_threads";

export function startModuleWorker(module: URL, options: Omit<WorkerOptions, "eval"> = {}): Worker {
  if (!module.pathname.endsWith(".ts")) return new Worker(module, options);
  // Resolved here, where the workspace's node_modules are, and not from the worker's current directory.
  const tsx = import.meta.resolve("tsx/esm/api");
  const bootstrap = `import(${JSON.stringify(tsx)}).then((tsx) => {
    tsx.register();
    return import(${JSON.stringify(module.href)});
  });`;
  return new Worker(bootstrap, { ...options, eval: true });
}
