import { createServer, Socket, type Server } from 'node:net';
import { seededRandom } from './checker.js';

/**
 * What the proxy does with traffic:
 * - `pass`: forwards both ways;
 * - `delay`: delivers each chunk `ms` later (plus up to `jitterMs`), in order, in the chosen direction(s);
 * - `blackhole`: sockets stay open, every byte is dropped (new connections are accepted and go silent too);
 *   a connection that lost bytes can no longer carry a consistent stream, so leaving this mode resets it;
 * - `reset`: resets every connection, and every new one at once;
 * - `reply-drop`: forwards every request and resets its connection as soon as Redis starts to answer, so
 *   commands run but their replies never arrive (`dropRepliesTo` does this for chosen requests only).
 */
export type ProxyMode =
  | { readonly type: 'pass' }
  | { readonly type: 'delay'; readonly ms: number; readonly jitterMs?: number; readonly direction?: 'both' | 'requests' | 'replies' }
  | { readonly type: 'blackhole' }
  | { readonly type: 'reset' }
  | { readonly type: 'reply-drop' };

/** A TCP proxy on loopback between clients and one Redis port. */
export interface TcpProxy {
  readonly port: number;
  /** Switches every connection, open or new, to `mode`. */
  setMode(mode: ProxyMode): void;
  /**
   * Reply-drop: the next `count` requests that `matches` are forwarded, and the connection that sent each of
   * them is reset as soon as Redis starts to answer it, so the command ran but its reply never arrives.
   * Resolves with how many were dropped once `count` were, or when `disarm()` is called.
   */
  dropRepliesTo(matches: (request: Buffer) => boolean, count?: number): Promise<number>;
  /** Stops dropping replies; resolves a pending `dropRepliesTo` with the number dropped so far. */
  disarm(): void;
  /** Open client connections. */
  readonly connections: number;
  /** Connections reset by the proxy so far (reset mode, reply drops, leaving blackhole). */
  readonly resets: number;
  close(): Promise<void>;
}

interface Link {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Bytes were dropped: the RESP stream is broken. */
  tainted: boolean;
  /** A matched request was forwarded; reset on its first reply byte. */
  awaitingReply: boolean;
  /** Chunks waiting for their delivery time, in order, per direction. */
  readonly delayedRequests: Delayed[];
  readonly delayedReplies: Delayed[];
  /** The pending delivery timer of each direction, cleared when the link goes, so that none outlives the proxy. */
  readonly timers: Map<Delayed[], ReturnType<typeof setTimeout>>;
}

interface Delayed {
  readonly due: number;
  readonly chunk: Buffer;
}

/** Starts a proxy on a free loopback port that forwards to `targetPort` on 127.0.0.1. */
export async function startProxy(targetPort: number, options: { seed?: number } = {}): Promise<TcpProxy> {
  const random = seededRandom(options.seed ?? 1);
  const links = new Set<Link>();
  let mode: ProxyMode = { type: 'pass' };
  let resets = 0;
  let drop: { matches: (request: Buffer) => boolean; left: number; dropped: number; done: (dropped: number) => void } | undefined;

  /** Takes a link out of the proxy; false if it was gone already. */
  const forget = (link: Link): boolean => {
    if (!links.delete(link)) return false;
    for (const timer of link.timers.values()) clearTimeout(timer);
    link.timers.clear();
    return true;
  };

  const reset = (link: Link): void => {
    if (!forget(link)) return;
    resets++;
    link.client.resetAndDestroy();
    link.upstream.destroy();
  };

  const delayFor = (direction: 'requests' | 'replies'): number | undefined => {
    if (mode.type !== 'delay') return undefined;
    const applies = (mode.direction ?? 'both') === 'both' || mode.direction === direction;
    return applies ? mode.ms + (mode.jitterMs ?? 0) * random() : undefined;
  };

  const forward = (link: Link, direction: 'requests' | 'replies', chunk: Buffer): void => {
    if (!links.has(link)) return;
    if (mode.type === 'blackhole') {
      link.tainted = true;
      return;
    }
    const target = direction === 'requests' ? link.upstream : link.client;
    if (direction === 'requests' && mode.type === 'reply-drop') link.awaitingReply = true;
    if (direction === 'requests' && drop !== undefined && drop.left > 0 && drop.matches(chunk)) {
      drop.left--;
      drop.dropped++;
      link.awaitingReply = true;
      if (drop.left === 0) {
        drop.done(drop.dropped);
        drop = undefined;
      }
    }
    if (direction === 'replies' && link.awaitingReply) {
      reset(link);
      return;
    }
    const queue = direction === 'requests' ? link.delayedRequests : link.delayedReplies;
    const now = performance.now();
    const due = Math.max(queue.at(-1)?.due ?? 0, now + (delayFor(direction) ?? 0));
    // Chunks still delayed from an earlier mode keep their place: nothing overtakes them.
    if (due <= now) {
      target.write(chunk);
      return;
    }
    queue.push({ due, chunk });
    if (queue.length === 1) drain(link, queue, target);
  };

  const drain = (link: Link, queue: Delayed[], target: Socket): void => {
    const head = queue[0];
    link.timers.delete(queue);
    if (head === undefined) return;
    const timer = setTimeout(
      () => {
        if (!links.has(link)) return;
        while (queue.length > 0 && (queue[0]?.due ?? Infinity) <= performance.now()) target.write(queue.shift()!.chunk);
        drain(link, queue, target);
      },
      Math.max(0, Math.ceil(head.due - performance.now())),
    );
    link.timers.set(queue, timer);
  };

  const server: Server = createServer({ noDelay: true }, (client) => {
    client.on('error', () => undefined);
    if (mode.type === 'reset') {
      resets++;
      client.resetAndDestroy();
      return;
    }
    const upstream = new Socket();
    upstream.setNoDelay(true);
    upstream.on('error', () => undefined);
    const link: Link = { client, upstream, tainted: false, awaitingReply: false, delayedRequests: [], delayedReplies: [], timers: new Map() };
    links.add(link);
    upstream.connect(targetPort, '127.0.0.1');
    client.on('data', (chunk: Buffer) => forward(link, 'requests', chunk));
    upstream.on('data', (chunk: Buffer) => forward(link, 'replies', chunk));
    const close = (): void => {
      if (!forget(link)) return;
      client.destroy();
      upstream.destroy();
    };
    client.on('close', close);
    upstream.on('close', close);
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address !== 'object') throw new Error('proxy: no port');

  return {
    port: address.port,
    get connections() {
      return links.size;
    },
    get resets() {
      return resets;
    },
    setMode(next) {
      mode = next;
      if (next.type === 'reset') {
        for (const link of [...links]) reset(link);
      } else if (next.type !== 'blackhole') {
        for (const link of [...links]) if (link.tainted) reset(link);
      }
    },
    dropRepliesTo(matches, count = 1) {
      drop?.done(drop.dropped);
      return new Promise<number>((resolve) => {
        drop = { matches, left: count, dropped: 0, done: resolve };
      });
    },
    disarm() {
      drop?.done(drop.dropped);
      drop = undefined;
    },
    async close() {
      drop?.done(drop.dropped);
      drop = undefined;
      for (const link of [...links]) {
        forget(link);
        link.client.destroy();
        link.upstream.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
