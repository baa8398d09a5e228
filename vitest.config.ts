import { defineConfig } from "vitest/config";

const include = [
  "packages/*/test/**/*.test.ts",
  "services/*/test/**/*.test.ts",
  "scripts/test/**/*.test.ts",
  "projects/*/test/**/*.test.ts",
];
// A project's suites run on the database TEST_DATABASE_URL names; with one set (as in CI) they run
// on the embedded PGlite as well, so both stay covered. (The services' suites go over both themselves.)
const onServer = Boolean(process.env.TEST_DATABASE_URL?.trim());

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // One worker per core: each file opens its own databases.
    maxWorkers: 2,
    projects: [
      { extends: true, test: { name: "platform", include } },
      ...(onServer
        ? [
            {
              extends: true,
              test: { name: "projects on PGlite", include: ["projects/*/test/**/*.test.ts"], env: { TEST_DATABASE_URL: "" } },
            },
          ]
        : []),
    ],
  },
});
