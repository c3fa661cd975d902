import type { ClientCore } from '../../engine/ClientCore.js';
import type { WakePolicy } from '../../engine/WakeHub.js';

interface ChannelZeros {
  /** `0` messages heard on the channel while anyone watched. */
  zeros: number;
  watchers: number;
}

const byClient = new WeakMap<ClientCore, Map<string, ChannelZeros>>();

function channels(core: ClientCore): Map<string, ChannelZeros> {
  let map = byClient.get(core);
  if (map === undefined) byClient.set(core, (map = new Map<string, ChannelZeros>()));
  return map;
}

/**
 * One `await$`'s view of the latch channel: whether a `0` (the count reached zero) was heard since it began.
 * `0` is published by the script that made the count zero, so hearing it is as good as reading the count,
 * one round trip sooner; Redisson's awaiters trust it the same way.
 */
export class ZeroWatch {
  readonly #entry: ChannelZeros;
  readonly #channels: Map<string, ChannelZeros>;
  readonly #channel: string;
  readonly #start: number;
  #closed = false;

  constructor(core: ClientCore, channel: string) {
    this.#channels = channels(core);
    this.#channel = channel;
    let entry = this.#channels.get(channel);
    if (entry === undefined) this.#channels.set(channel, (entry = { zeros: 0, watchers: 0 }));
    entry.watchers++;
    this.#entry = entry;
    this.#start = entry.zeros;
  }

  get opened(): boolean {
    return this.#entry.zeros > this.#start;
  }

  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (--this.#entry.watchers === 0 && this.#channels.get(this.#channel) === this.#entry) this.#channels.delete(this.#channel);
  }
}

/** Every message wakes every local awaiter (each reads the count again); a `0` is also recorded for the watches. */
export function latchWakePolicy(core: ClientCore, channel: string): WakePolicy {
  return (message) => {
    if (message === '0') {
      const entry = channels(core).get(channel);
      if (entry !== undefined) entry.zeros++;
    }
    return { wake: 'all' };
  };
}
