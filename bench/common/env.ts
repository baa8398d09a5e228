/** Bench settings from the environment. */

/** A positive number from `env[name]`, or `fallback`; anything else stops the bench with its name. */
export function positiveNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const value = Number(env[name] ?? fallback);
  if (!Number.isFinite(value) || value <= 0) throw new Error(`${name} must be a positive number`);
  return value;
}
