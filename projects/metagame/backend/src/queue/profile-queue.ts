/**
 * Profile-cache refreshes (MetaGame's `updateIDXProfile`): at most one pending job per player,
 * kept in PostgreSQL so every backend instance sees the same queue.
 */
export interface ProfileQueue {
  /** Queues a refresh of this player's cached profile; false when one is already pending for them. */
  enqueue(playerId: string): Promise<boolean>;
  /** Stops taking jobs and waits for running ones. */
  close(): Promise<void>;
}
