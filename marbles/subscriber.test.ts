import { EventEmitter } from 'node:events';
import type { TestScheduler } from 'rxjs/testing';
import { describe, expect, it } from 'vitest';
import type { SubscriberLike } from '../src/store/redis/RedisLike.js';
import { Subscriber } from '../src/store/redis/Subscriber.js';
import type { ChannelEvent } from '../src/store/Store.js';
import { createTestScheduler } from './helpers.js';

interface Call {
  readonly at: number;
  readonly command: string;
  readonly channels: readonly string[];
  confirm(): void;
  refuse(error: Error): void;
}

/** An ioredis subscriber connection whose replies the test gives by hand; it records every command with its virtual time. */
class HandDrivenConnection extends EventEmitter implements SubscriberLike {
  status = 'wait';
  readonly calls: Call[] = [];
  disconnects = 0;
  readonly #scheduler: TestScheduler;

  constructor(scheduler: TestScheduler) {
    super();
    this.#scheduler = scheduler;
  }

  subscribe(...channels: string[]): Promise<unknown> {
    return this.#call('subscribe', channels);
  }
  unsubscribe(...channels: string[]): Promise<unknown> {
    return this.#call('unsubscribe', channels);
  }
  ssubscribe(...channels: string[]): Promise<unknown> {
    return this.#call('ssubscribe', channels);
  }
  sunsubscribe(...channels: string[]): Promise<unknown> {
    return this.#call('sunsubscribe', channels);
  }
  disconnect(): void {
    this.disconnects++;
    this.status = 'end';
  }

  /** When each command with this name was sent, in virtual ms. */
  times(command: string): number[] {
    return this.calls.filter((call) => call.command === command).map((call) => call.at);
  }

  last(command: string): Call {
    const call = this.calls.filter((candidate) => candidate.command === command).at(-1);
    if (call === undefined) throw new Error(`no ${command} was sent`);
    return call;
  }

  #call(command: string, channels: string[]): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.calls.push({ at: this.#scheduler.now(), command, channels, confirm: () => resolve(channels.length), refuse: reject });
    });
  }
}

/**
 * A Subscriber on a hand-driven connection, and a clock the test moves: `advanceTo` first lets the replies
 * given so far arrive, then runs the timers due by then, then the replies those settled.
 */
function scene(sharded = false) {
  const scheduler = createTestScheduler();
  const connection = new HandDrivenConnection(scheduler);
  let opened = 0;
  const subscriber = new Subscriber(
    () => {
      opened++;
      return connection;
    },
    sharded,
    scheduler,
  );
  const heard: string[] = [];
  const listen = (channel: string, label = channel) =>
    subscriber.listen(channel).subscribe((event: ChannelEvent) => heard.push(`${label} ${event.type === 'ready' ? 'ready' : event.message}`));
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  const advanceTo = async (ms: number): Promise<void> => {
    await settle();
    scheduler.maxFrames = ms;
    scheduler.flush();
    // Virtual time stands still without an action due: move it to `ms` anyway, as a real clock would.
    scheduler.frame = Math.max(scheduler.frame, ms);
    await settle();
  };
  return { scheduler, connection, subscriber, heard, listen, settle, advanceTo, opened: () => opened };
}

describe('Subscriber: confirming subscriptions', () => {
  it('opens one connection on first use; a channel is subscribed once, and each listener hears ready once the server confirmed it', async () => {
    const { connection, heard, listen, settle, advanceTo, opened } = scene();
    expect(opened()).toBe(0);
    const first = listen('a', 'first');
    const second = listen('a', 'second');
    expect(opened()).toBe(1);
    expect(connection.times('subscribe')).toEqual([0]);
    expect(heard).toEqual([]);
    connection.last('subscribe').confirm();
    await settle();
    expect(heard).toEqual(['first ready', 'second ready']);
    // A listener that joins a confirmed channel hears ready without a command of its own.
    const third = listen('a', 'third');
    await advanceTo(0);
    expect(heard).toEqual(['first ready', 'second ready', 'third ready']);
    expect(connection.times('subscribe')).toEqual([0]);
    [first, second, third].forEach((subscription) => subscription.unsubscribe());
  });

  it('sends an unconfirmed subscription again after 2 s, doubling the pause up to 30 s, and stops once it is confirmed', async () => {
    const { connection, heard, listen, advanceTo } = scene();
    const listening = listen('a');
    await advanceTo(100_000);
    expect(connection.times('subscribe')).toEqual([0, 2_000, 6_000, 14_000, 30_000, 60_000, 90_000]);
    connection.last('subscribe').confirm();
    await advanceTo(1_000_000);
    expect(heard).toEqual(['a ready']);
    expect(connection.times('subscribe')).toHaveLength(7);
    listening.unsubscribe();
  });

  it('sends a subscription the client refused before it connected again at the first ready, not 2 s later', async () => {
    const { connection, heard, listen, settle, advanceTo } = scene();
    const listening = listen('a');
    // What ioredis does with enableOfflineQueue: false before the connection is up.
    connection.last('subscribe').refuse(new Error("Stream isn't writeable and enableOfflineQueue options is false"));
    await advanceTo(5);
    connection.status = 'ready';
    connection.emit('ready');
    expect(connection.times('subscribe')).toEqual([0, 5]);
    connection.last('subscribe').confirm();
    await settle();
    expect(heard).toEqual(['a ready']);
    await advanceTo(10_000);
    expect(connection.times('subscribe')).toEqual([0, 5]);
    listening.unsubscribe();
  });

  it('leaves a subscription that waits in the offline queue to ioredis at the first ready', async () => {
    const { connection, heard, listen, settle } = scene();
    const listening = listen('a');
    connection.emit('ready');
    expect(connection.times('subscribe')).toEqual([0]);
    connection.last('subscribe').confirm();
    await settle();
    expect(heard).toEqual(['a ready']);
    listening.unsubscribe();
  });
});

describe('Subscriber: subscribing while ioredis is still handshaking (ioredis #2037)', () => {
  it('holds a new channel back while the connection is connected but not ready, and sends it at the first ready', async () => {
    const { connection, subscriber, heard, listen, settle } = scene();
    const first = listen('a');
    connection.status = 'connect';
    const second = listen('b');
    expect(connection.calls.map(({ command, channels }) => `${command} ${channels.join()}`)).toEqual(['subscribe a']);
    connection.status = 'ready';
    connection.emit('ready');
    expect(connection.calls.map(({ command, channels }) => `${command} ${channels.join()}`)).toEqual(['subscribe a', 'subscribe b']);
    connection.calls.forEach((call) => call.confirm());
    await settle();
    expect(heard).toEqual(['a ready', 'b ready']);
    expect(subscriber.epoch).toBe(0);
    [first, second].forEach((subscription) => subscription.unsubscribe());
  });

  it('subscribes a channel confirmed before the first ready again at that ready: the connection may have been replaced in between', async () => {
    const { connection, heard, listen, settle } = scene();
    const listening = listen('a');
    connection.last('subscribe').confirm();
    await settle();
    connection.status = 'ready';
    connection.emit('ready');
    expect(connection.times('subscribe')).toEqual([0, 0]);
    connection.last('subscribe').confirm();
    await settle();
    expect(heard).toEqual(['a ready', 'a ready']);
    listening.unsubscribe();
  });
});

describe('Subscriber: gaps, messages and leaving', () => {
  it('after a reconnect subscribes every channel again, its listeners hear ready again, and the epoch counts the gap', async () => {
    const { connection, subscriber, heard, listen, settle } = scene();
    const listening = [listen('a'), listen('b')];
    connection.emit('ready');
    connection.calls.forEach((call) => call.confirm());
    await settle();
    expect(subscriber.epoch).toBe(0);
    connection.emit('ready');
    expect(subscriber.epoch).toBe(1);
    expect(connection.last('subscribe').channels).toEqual(['a', 'b']);
    connection.last('subscribe').confirm();
    await settle();
    expect(heard).toEqual(['a ready', 'b ready', 'a ready', 'b ready']);
    listening.forEach((subscription) => subscription.unsubscribe());
  });

  it("hands a message to its channel's listeners only", () => {
    const { connection, heard, listen } = scene();
    const listening = [listen('a'), listen('b')];
    connection.emit('message', 'a', 'unlocked');
    connection.emit('message', 'c', 'nobody listens');
    expect(heard).toEqual(['a unlocked']);
    listening.forEach((subscription) => subscription.unsubscribe());
  });

  it('unsubscribes a channel when its last listener leaves, and sends nothing more for it', async () => {
    const { connection, subscriber, listen, advanceTo } = scene();
    const first = listen('a');
    const second = listen('a');
    first.unsubscribe();
    expect(connection.times('unsubscribe')).toEqual([]);
    second.unsubscribe();
    expect(connection.calls.map(({ command, channels }) => `${command} ${channels.join()}`)).toEqual(['subscribe a', 'unsubscribe a']);
    expect([...subscriber.channels()]).toEqual([]);
    await advanceTo(100_000);
    expect(connection.calls).toHaveLength(2);
  });

  it('confirms a channel listened to again only with the reply to its own SUBSCRIBE, not an earlier one', async () => {
    const { connection, heard, listen, settle } = scene();
    listen('a', 'gone').unsubscribe();
    const again = listen('a', 'again');
    expect(connection.calls.map(({ command, channels }) => `${command} ${channels.join()}`)).toEqual(['subscribe a', 'unsubscribe a', 'subscribe a']);
    // The first SUBSCRIBE's reply: the server has not run the second yet, and unsubscribed the channel in between.
    connection.calls[0]?.confirm();
    await settle();
    expect(heard).toEqual([]);
    connection.last('subscribe').confirm();
    await settle();
    expect(heard).toEqual(['again ready']);
    again.unsubscribe();
  });

  it('on a sharded connection subscribes each channel with its own SSUBSCRIBE, and resubscribes one the server unsubscribed', async () => {
    const { scheduler, connection, subscriber, heard, listen, settle, advanceTo } = scene(true);
    const listening = [listen('{a}'), listen('{b}')];
    expect(connection.calls.map(({ command, channels }) => `${command} ${channels.join()}`)).toEqual(['ssubscribe {a}', 'ssubscribe {b}']);
    connection.calls.forEach((call) => call.confirm());
    await settle();
    // Redis 7.0 moving a slot away: ioredis 5 reports the server's SUNSUBSCRIBE as an error naming it.
    connection.emit('nodeError', new Error('Command queue state error. Last reply: sunsubscribe,{a},0'));
    expect(subscriber.epoch).toBe(1);
    await advanceTo(scheduler.now());
    expect(connection.calls.slice(2).map(({ command, channels }) => `${command} ${channels.join()}`)).toEqual(['ssubscribe {a}', 'ssubscribe {b}']);
    connection.calls.slice(2).forEach((call) => call.confirm());
    await settle();
    expect(heard).toEqual(['{a} ready', '{b} ready', '{a} ready', '{b} ready']);
    listening.forEach((subscription) => subscription.unsubscribe());
  });

  it('close() disconnects, stops listening to the connection, and leaves no timer behind', async () => {
    const { scheduler, connection, subscriber, listen } = scene();
    const listening = listen('a');
    expect(scheduler.actions).toHaveLength(1);
    await subscriber.close();
    expect(connection.disconnects).toBe(1);
    expect(['message', 'smessage', 'ready', 'subscribersReady', 'nodeError'].map((event) => connection.listenerCount(event))).toEqual([0, 0, 0, 0, 0]);
    expect(scheduler.actions).toHaveLength(0);
    listening.unsubscribe();
    expect(connection.times('unsubscribe')).toEqual([]);
  });
});
