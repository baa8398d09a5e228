/** The acceptance run's output: sections, passed and failed checks, and the failures gathered for the exit code. */

export class Report {
  readonly failures: string[] = [];

  section(title: string): void {
    console.log(`\n== ${title}`);
  }

  info(line: string): void {
    console.log(`   ${line}`);
  }

  check(ok: boolean, what: string, detail?: string): boolean {
    console.log(`${ok ? " ok " : "FAIL"} ${what}${detail ? `\n       ${detail.replace(/\n/g, "\n       ")}` : ""}`);
    if (!ok) this.failures.push(detail ? `${what}: ${detail}` : what);
    return ok;
  }

  /** Every expected name present in `actual`; the missing ones named. */
  contains(what: string, expected: readonly string[], actual: ReadonlySet<string>): boolean {
    const missing = expected.filter((name) => !actual.has(name));
    return this.check(
      missing.length === 0,
      `${what} (${expected.length - missing.length}/${expected.length})`,
      missing.length ? `missing: ${missing.join(", ")}` : undefined,
    );
  }
}
