/**
 * How long a test file may take to start its databases, services and engine: more than vitest's
 * default hook timeout, since PGlite migrations share the CPU with every other suite running.
 */
export const SETUP_TIMEOUT_MS = 180_000;
