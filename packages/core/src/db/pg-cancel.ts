/**
 * Cancelling a statement that runs on a pooled pg connection, for QueryOptions.signal.
 *
 * On abort, PostgreSQL is sent the protocol's CancelRequest for the connection's backend (what
 * psql's Ctrl-C and libpq's PQcancel send, https://www.postgresql.org/docs/current/protocol-flow.html#PROTOCOL-FLOW-CANCELING-REQUESTS):
 * it needs no login and no free connection slot, so it works when the pool and the server are
 * saturated by the very statements it stops. If the statement has still not ended CANCEL_GRACE_MS
 * later (the request was lost, a proxy dropped it), the connection is closed; the server then
 * ends the statement within `client_connection_check_interval` (set on every pooled connection,
 * see pg.ts). A connection is only reused when its statement ended by our cancel (SQLSTATE
 * 57014) or before any cancel was sent: a cancel that arrives late must not hit the next
 * statement of another request.
 */
import { connect as connectSocket } from "node:net";
import type pg from "pg";

/** How long a cancelled statement may take to stop before its connection is closed. */
export const CANCEL_GRACE_MS = 300;

const CANCEL_REQUEST_CODE = 80877102;

/** The backend key data pg keeps on a connected client (not in its typings). */
interface BackendKey {
  processID: number | null;
  secretKey: number | null;
  host: string;
  port: number;
}

/** Sends a CancelRequest for `client`'s backend; resolves once the server closed the request's socket. */
export function sendCancelRequest(client: pg.ClientBase): Promise<void> {
  const { processID, secretKey, host, port } = client as unknown as BackendKey;
  if (processID === null || secretKey === null) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const socket = host.startsWith("/") ? connectSocket(`${host}/.s.PGSQL.${port}`) : connectSocket(port, host);
    socket.setTimeout(CANCEL_GRACE_MS, () => socket.destroy());
    socket.once("connect", () => {
      const packet = Buffer.alloc(16);
      packet.writeInt32BE(16, 0);
      packet.writeInt32BE(CANCEL_REQUEST_CODE, 4);
      packet.writeInt32BE(processID, 8);
      packet.writeInt32BE(secretKey, 12);
      socket.end(packet);
    });
    socket.once("error", reject);
    socket.once("close", () => resolve());
  });
}

/**
 * With a statement still running, pg's `end()` closes the socket at once; it rejects only when
 * the socket is already closed, which is the state a cancel's `close` wants: nothing to report.
 */
function socketAlreadyClosed(): void {
  // Deliberately nothing: see above.
}

/** A checked-out connection and whether it must be closed instead of going back to the pool. */
export interface Checkout {
  client: pg.PoolClient;
  broken: boolean;
}

const isQueryCanceled = (error: unknown) => (error as { code?: unknown } | null)?.code === "57014";

/**
 * Runs one statement on `checkout.client`, cancelling it in PostgreSQL when `signal` or `also`
 * aborts; then rejects with the reason of the one that aborted first (both aborted before: with
 * `signal`'s, as AbortSignal.any would). Marks the connection broken when it cannot be trusted.
 * Two signals are listened to rather than joined with AbortSignal.any, which does not follow a
 * LightAbortSignal (abort.ts).
 */
export async function cancellable<T>(
  checkout: Checkout,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
  also?: AbortSignal,
): Promise<T> {
  if (!signal && !also) return run();
  if (signal?.aborted) throw signal.reason;
  if (also?.aborted) throw also.reason;
  let stoppedBy: AbortSignal | undefined;
  let cancelSent: Promise<void> | undefined;
  let grace: NodeJS.Timeout | undefined;
  const onAbort = (event: Event) => {
    if (stoppedBy) return;
    stoppedBy = event.currentTarget as AbortSignal;
    const close = () => {
      checkout.broken = true;
      checkout.client.end().catch(socketAlreadyClosed);
    };
    // A cancel request that cannot reach the server: close the connection now rather than after
    // the grace time; the server then stops the statement (client_connection_check_interval).
    // The request's own error (the statement's cancellation or the signal's reason) is what the
    // caller sees; the cancel request's failure only decides that the connection goes.
    cancelSent = sendCancelRequest(checkout.client).catch(close);
    grace = setTimeout(close, CANCEL_GRACE_MS);
  };
  signal?.addEventListener("abort", onAbort, { once: true });
  also?.addEventListener("abort", onAbort, { once: true });
  let endedByCancel = false;
  try {
    return await run();
  } catch (error) {
    endedByCancel = isQueryCanceled(error);
    if (stoppedBy) throw stoppedBy.reason;
    throw error;
  } finally {
    signal?.removeEventListener("abort", onAbort);
    also?.removeEventListener("abort", onAbort);
    clearTimeout(grace);
    if (cancelSent) {
      await cancelSent;
      if (!endedByCancel) checkout.broken = true;
    }
  }
}

/** pool.connect() that gives up when `signal` aborts (the connection, once it comes, goes back). */
export function connectCancellable(pool: pg.Pool, signal: AbortSignal | undefined): Promise<pg.PoolClient> {
  if (!signal) return pool.connect();
  signal.throwIfAborted();
  return new Promise((resolve, reject) => {
    let settled = false;
    const onAbort = () => {
      if (settled) return;
      settled = true;
      reject(signal.reason);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    pool.connect().then(
      (client) => {
        signal.removeEventListener("abort", onAbort);
        if (settled) client.release();
        else {
          settled = true;
          resolve(client);
        }
      },
      (error: unknown) => {
        signal.removeEventListener("abort", onAbort);
        if (!settled) {
          settled = true;
          reject(error);
        }
      },
    );
  });
}
