/**
 * Browser tests: Debian's `chromium` package driven by playwright-core (npm's browser downloads
 * cannot reach their hosts on these machines). Pages are opened offline: only the origins a
 * test names may be fetched, and every other request is aborted and recorded, so a page that
 * needs the internet fails its test instead of passing on a machine that happens to be online.
 *
 * Imported as `@platform/core/browser-testing`, never from the package root: playwright-core is
 * a development dependency.
 */
import { existsSync } from "node:fs";
import { type Browser, chromium, type Page } from "playwright-core";

export type { Browser, Page } from "playwright-core";

const CANDIDATES = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"];

/** The browser binary: CHROMIUM_PATH, else the first Debian/Chrome path that exists; null when none. */
export function chromiumPath(env: Record<string, string | undefined> = process.env): string | null {
  const configured = env.CHROMIUM_PATH;
  if (configured) return existsSync(configured) ? configured : null;
  return CANDIDATES.find((path) => existsSync(path)) ?? null;
}

/**
 * Why browser tests cannot run here, or null when they can. Tests pass this to `describe.skipIf`
 * and log it, so a skip is never silent.
 */
export function browserUnavailableReason(): string | null {
  if (chromiumPath()) return null;
  return "no Chromium found (install Debian's chromium package, as .ci/run does, or set CHROMIUM_PATH)";
}

/** Headless Chromium with the flags that keep it off the network on its own (updates, sync, ...). */
export async function launchChromium(): Promise<Browser> {
  const executablePath = chromiumPath();
  if (!executablePath) throw new Error(browserUnavailableReason() ?? "no Chromium");
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
    ],
  });
}

export interface OfflinePage {
  page: Page;
  /** Every request the page tried outside the allowed origins (each was aborted). */
  blocked: string[];
  /** Console errors and uncaught page errors, for assertions and for failure messages. */
  errors: string[];
  close(): Promise<void>;
}

/** A page in a fresh context that may only reach `allowedOrigins` (e.g. `http://127.0.0.1:8080`). */
export async function openOfflinePage(browser: Browser, allowedOrigins: string[]): Promise<OfflinePage> {
  const context = await browser.newContext();
  const allowed = new Set(allowedOrigins.map((origin) => new URL(origin).origin));
  const blocked: string[] = [];
  const errors: string[] = [];
  await context.route("**/*", async (route) => {
    const url = route.request().url();
    const origin = URL.canParse(url) ? new URL(url).origin : "";
    if (allowed.has(origin) || url.startsWith("data:") || url.startsWith("blob:")) return route.continue();
    blocked.push(url);
    return route.abort("internetdisconnected");
  });
  const page = await context.newPage();
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return { page, blocked, errors, close: () => context.close() };
}
