import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["packages/*/test/**/*.test.ts", "services/*/test/**/*.test.ts", "scripts/test/**/*.test.ts", "projects/*/test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One worker per core: each file opens its own databases.
    maxWorkers: 2,
  },
});
