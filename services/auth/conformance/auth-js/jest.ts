/** Runs one of the suite's jest configurations, unchanged, and reads jest's JSON result. */
import { spawn } from "node:child_process";
import { createWriteStream, existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";

export interface TestOutcome {
  file: string;
  name: string;
  status: "passed" | "failed" | "skipped";
  /** The failure messages as jest gives them (ANSI colours removed). */
  errors: string[];
}

export interface FileOutcome {
  file: string;
  tests: TestOutcome[];
  /** Why the file failed outside any test (does not compile, a hook threw...). */
  error: string | undefined;
}

interface JestJson {
  testResults: {
    name: string;
    status: string;
    message: string;
    assertionResults: { fullName: string; status: string; failureMessages: string[] }[];
  }[];
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: ANSI escapes
const plain = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, "");

function outcome(status: string): TestOutcome["status"] {
  if (status === "passed") return "passed";
  if (status === "failed") return "failed";
  return "skipped"; // pending, todo, skipped, disabled
}

/** `jest --config <config> --runInBand` in the package folder, as upstream's nx targets run it (coverage off). */
export async function runJest(
  packageDir: string,
  config: string,
  outputDir: string,
  label: string,
  tests?: string,
): Promise<FileOutcome[]> {
  const manifest = createRequire(join(packageDir, "package.json")).resolve("jest/package.json");
  const jest = join(dirname(manifest), "bin/jest.js");
  const output = join(outputDir, `${label}.jest.json`);
  const log = createWriteStream(join(outputDir, `${label}.jest.log`));
  const args = [jest, "--config", config, "--runInBand", "--ci", "--coverage=false", "--json", `--outputFile=${output}`];
  if (tests) args.push("--testPathPatterns", tests);
  const code = await new Promise<number | null>((resolve, reject) => {
    const child = spawn(process.execPath, args, { cwd: packageDir, stdio: ["ignore", "pipe", "pipe"] });
    child.stdout.pipe(log, { end: false });
    child.stderr.pipe(log, { end: false });
    child.on("error", reject);
    child.on("close", resolve);
  });
  log.end();
  if (!existsSync(output))
    throw new Error(`jest (${config}) exited with ${code} and wrote no result; see ${join(outputDir, `${label}.jest.log`)}`);
  const result = JSON.parse(readFileSync(output, "utf8")) as JestJson;
  return result.testResults.map((file) => {
    const name = relative(packageDir, file.name);
    const tests = file.assertionResults.map((test) => ({
      file: name,
      name: test.fullName,
      status: outcome(test.status),
      errors: test.failureMessages.map(plain),
    }));
    const error = file.status === "failed" && tests.every((t) => t.status !== "failed") ? plain(file.message) : undefined;
    return { file: name, tests, error };
  });
}
