/**
 * NOTIFYs raised by a process that reaches the embedded store through its socket (a `lattice`
 * command such as `keys revoke`) travel back to that process's own connection only: the
 * owner's listeners never hear them, so its caches would keep a revoked key. This gives the
 * socket server a view of the database whose protocol stream is read on the way out, and
 * hands every NotificationResponse it carries to the owner's listeners as well.
 */
import type { PGlite } from '@electric-sql/pglite';

const text = new TextDecoder();

type RawStream = (message: Uint8Array, options: { onRawData: (data: Uint8Array) => void; syncToFs?: boolean }) => Promise<void>;

/** Calls `deliver` for each NotificationResponse ('A') message in a chunk of the protocol stream. */
export function scanNotifications(data: Uint8Array, deliver: (channel: string, payload: string) => void): void {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = 0;
  while (at + 5 <= data.length) {
    const type = data[at]!;
    const length = view.getInt32(at + 1);
    if (length < 4 || at + 1 + length > data.length) return;
    if (type === 0x41) {
      // int32 process id, channel\0, payload\0
      const start = at + 9;
      const end = at + 1 + length;
      const channelEnd = data.indexOf(0, start);
      const payloadEnd = channelEnd >= 0 ? data.indexOf(0, channelEnd + 1) : -1;
      if (channelEnd >= 0 && payloadEnd >= 0 && payloadEnd < end) {
        deliver(text.decode(data.subarray(start, channelEnd)), text.decode(data.subarray(channelEnd + 1, payloadEnd)));
      }
    }
    at += 1 + length;
  }
}

/** The PGlite to give the socket server: the same database, with notifications forwarded to `deliver`. */
export function pgliteForSocket(pglite: PGlite, deliver: (channel: string, payload: string) => void): PGlite {
  const raw = pglite.execProtocolRawStream.bind(pglite) as RawStream;
  const forwarding: RawStream = (message, options) =>
    raw(message, {
      ...options,
      onRawData: (data) => {
        options.onRawData(data);
        try {
          scanNotifications(data, deliver);
        } catch {
          // A listener's failure must not break the command's connection.
        }
      },
    });
  return new Proxy(pglite, {
    get(target, prop) {
      if (prop === 'execProtocolRawStream') return forwarding;
      const value = Reflect.get(target, prop, target) as unknown;
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
}
