/**
 * `pause_event_trigger_cleanups` and `resume_event_trigger_cleanups`
 * (https://hasura.io/docs/latest/api-reference/metadata-api/event-triggers/#metadata-pause-event-trigger-cleanups):
 * set `paused` in the `cleanup_config` of the named event triggers, given as
 * `[{source_name, event_triggers: [names]}]`, or of every trigger with a cleanup config
 * (`"*"`). Only triggers that have a cleanup config can be named, as Hasura requires.
 */
import { eventTriggerNotFound, HasuraError } from "../errors/index.js";
import { argsObject, asArray, at, isObject, type Json, parseFailed, requireKey } from "./args.js";
import { ARGS, findSource, type Operation, setOrDrop, success, withSource } from "./edit.js";
import type { Metadata } from "./types.js";
import { tableList } from "./unserved.js";

function noCleanupConfig(name: string): HasuraError {
  return new HasuraError("not-exists", `cleanup config does not exist for event trigger "${name}"`, ARGS);
}

/** Which triggers of which sources: `"*"` is every trigger with a cleanup config. */
function named(metadata: Metadata, raw: unknown): Map<string, Set<string> | "all"> {
  const path = at(ARGS, "event_triggers");
  if (raw === "*") return new Map(metadata.sources.map((s) => [s.name, "all"]));
  const wanted = new Map<string, Set<string> | "all">();
  for (const [i, entry] of asArray(raw, path).entries()) {
    if (!isObject(entry)) throw parseFailed("expected Object", at(path, i));
    const source = typeof entry.source_name === "string" ? entry.source_name : "default";
    findSource(metadata, source, at(path, i));
    const names = asArray(requireKey(entry, "event_triggers", at(path, i)), at(at(path, i), "event_triggers")).map(String);
    const set = wanted.get(source);
    wanted.set(source, new Set([...(set instanceof Set ? set : []), ...names]));
  }
  return wanted;
}

function setPaused(paused: boolean): Operation {
  return (metadata, raw) => {
    const args = argsObject(raw, ARGS);
    const wanted = named(metadata, requireKey(args, "event_triggers", ARGS));
    let next = metadata;
    for (const [source, names] of wanted) {
      const triggers = new Map(
        findSource(next, source).tables.flatMap((t) => tableList(t, "event_triggers").map((e): [string, Json] => [String(e.name), e])),
      );
      if (names !== "all")
        for (const name of names) {
          const trigger = triggers.get(name);
          if (!trigger) throw eventTriggerNotFound(name);
          if (!isObject(trigger.cleanup_config)) throw noCleanupConfig(name);
        }
      const chosen = (e: Json) => isObject(e.cleanup_config) && (names === "all" || names.has(String(e.name)));
      next = withSource(next, source, (s) => ({
        ...s,
        tables: s.tables.map((t) => {
          const list = tableList(t, "event_triggers");
          if (!list.some(chosen)) return t;
          return setOrDrop(
            t,
            "event_triggers",
            list.map((e) => (chosen(e) ? { ...e, cleanup_config: { ...(e.cleanup_config as Json), paused } } : e)),
          );
        }),
      }));
    }
    return success(next);
  };
}

export const pauseEventTriggerCleanups = setPaused(true);
export const resumeEventTriggerCleanups = setPaused(false);
