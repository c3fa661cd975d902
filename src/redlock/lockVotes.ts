import { lockAcquireScript } from '../primitives/lock/acquireScript.js';
import { lockKeys } from '../primitives/lock/lockKeys.js';
import { lockLeaveScript, lockReleaseScript } from '../primitives/lock/releaseScript.js';
import { lockRenewScript } from '../primitives/lock/renewScript.js';
import { int, list, type Reply } from '../store/Script.js';
import type { ScriptCall } from '../store/Store.js';
import { StoreError } from '../store/StoreError.js';
import { RENEW_UNDECIDED } from '../engine/Renewer.js';
import { isTransient } from '../engine/toLockError.js';
import { countBallots, type Ballot } from './quorum.js';

/** What a vote knows about the run it decides. */
export interface VoteContext {
  readonly instances: number;
  readonly quorum: number;
  /** The run's keys and arguments, as sent to every instance. */
  readonly keys: readonly string[];
  readonly args: readonly (string | number)[];
  /** Time since the run was sent to the instances. */
  readonly elapsedMs: number;
  /** Whether every instance answered or failed (no reply within `instanceTimeoutMs` counts as failed). */
  readonly settled: boolean;
  /** The safety margin for a TTL, as the engine computes it. */
  driftFor(ttlMs: number): number;
}

/**
 * One reply made of the instances' replies (in the script's raw form, which the script then parses), or an error.
 * `rollback`: what to run on every instance whose ballot failed or is still pending (no reply in time, or an
 * error), because the command may still run there and leave something behind that nobody else will undo, and
 * on every instance that granted an attempt the majority refused.
 */
export type Verdict = { readonly reply: Reply; readonly rollback?: ScriptCall<unknown> } | { readonly error: StoreError };

/**
 * How the raw replies of one script, run on every instance, combine into one. Votes read raw replies so
 * that every parse of the same Lua (a lease's release reads `0` as `not-held`) shares one vote.
 * Undefined: not decided yet.
 */
export interface Vote {
  decide(ballots: readonly Ballot<Reply>[], context: VoteContext): Verdict | undefined;
}

const unavailable = (message: string, outcomeUnknown: boolean): StoreError => new StoreError('unavailable', `Redlock: ${message}`, outcomeUnknown);

/**
 * Why no majority can be reached any more, when a retry cannot change it: so many instances failed with an
 * error that is not transient (a key of another type, clients the user closed, an unexpected reply) that the
 * others are fewer than a majority. Returns that error (the most frequent code among them, the first of its
 * kind) with its code and message kept (`toLockError` reads a wrong type's key out of the message), instead of
 * an `unavailable` that the engine would retry forever. Undefined while a majority could still be reached
 * without those instances: a timeout or a disconnection may pass, and is reported as such.
 * `outcomeUnknown`: whether the run may have changed something somewhere (an acquire that some instances
 * may have granted must be compensated on every instance).
 */
function permanentFailure(ballots: readonly Ballot<Reply>[], instances: number, quorum: number, outcomeUnknown: boolean): StoreError | undefined {
  const byCode = new Map<string, StoreError[]>();
  let permanent = 0;
  for (const ballot of ballots) {
    if (ballot.state !== 'failed' || !(ballot.error instanceof StoreError) || isTransient(ballot.error)) continue;
    permanent++;
    const same = byCode.get(ballot.error.code);
    if (same === undefined) byCode.set(ballot.error.code, [ballot.error]);
    else same.push(ballot.error);
  }
  if (instances - permanent >= quorum) return undefined;
  let chosen: StoreError | undefined;
  let most = 0;
  for (const errors of byCode.values()) {
    if (errors.length > most) [chosen, most] = [errors[0], errors.length];
  }
  if (chosen === undefined) return undefined;
  return new StoreError(chosen.code, chosen.message, outcomeUnknown, { cause: chosen });
}

/**
 * Whether a settled run may still have run, or run later, on an instance whose ballot failed: one that did not
 * answer in time, or whose error says its outcome is unknown. Replies and refusals are known outcomes.
 */
function anyUnknown(ballots: readonly Ballot<Reply>[]): boolean {
  return ballots.some(
    (ballot) => ballot.state === 'pending' || (ballot.state === 'failed' && (!(ballot.error instanceof StoreError) || ballot.error.outcomeUnknown)),
  );
}

/**
 * `lock.acquire` (the token, or `{0, retry ms}`) on every instance: granted when a majority granted it and
 * time is left, that is TTL − elapsed − drift > 0 (Redlock's validity). A lost vote that may have left grants
 * behind (a split, a majority that came too late, a majority that did not answer) fails with an `unavailable`
 * whose outcome is unknown: the engine then releases the attempt on every instance (with the lock's own release,
 * so nothing here depends on its keys) and tries again after a back-off. A clean refusal by the holder's
 * majority waits for the unlock message, or at most until enough of the holder's keys expire for a majority.
 */
const acquireVote: Vote = {
  decide(ballots, context) {
    const { instances, quorum, keys, args, elapsedMs } = context;
    const { pending, failed, replies } = countBallots(ballots);
    // A grant is an integer (its token); a refusal an array whose second element is the retry pause.
    const grants = replies.filter((reply) => typeof reply === 'number').length;
    const refused = replies.filter((reply) => typeof reply !== 'number').map((reply) => list(reply).map(int));
    if (grants >= quorum) {
      const ttl = Number(args[0]);
      const validity = ttl - elapsedMs - context.driftFor(ttl);
      if (validity > 0) return { reply: -1 };
      return { error: unavailable(`a majority granted it after ${elapsedMs} ms, leaving no validity of its ${ttl} ms TTL; released, trying again`, true) };
    }
    if (grants + pending >= quorum) return undefined;
    if (grants === 0 && pending > 0 && failed + pending <= instances - quorum) return undefined;
    if (failed + pending > instances - quorum) {
      // Grants may have been left on the instances still pending: the engine compensates on every instance.
      const permanent = permanentFailure(ballots, instances, quorum, true);
      if (permanent !== undefined) return { error: permanent };
      return { error: unavailable(`${failed + pending} of ${instances} instances did not answer in time; a majority of ${quorum} must`, true) };
    }
    if (grants > 0 && refused.length < quorum) {
      return { error: unavailable(`split vote: ${grants} of ${instances} instances granted it, a majority of ${quorum} must; released, trying again`, true) };
    }
    // Refused by the holder's majority (a master that lost the holder's key, restarted empty, may have granted
    // it: released there, so that it does not keep the lock from the next majority). An instance that did not answer in time may still grant this attempt
    // later (a command queued while it was down): that leftover is a minority and expires with its TTL. A
    // waiter's is its own if it asks again, and its leave (when it gives up) releases it everywhere. A try
    // (`waitMs: 0`) neither asks again nor leaves: its leftover is released here, on the instances that did not
    // answer (behind the attempt on the same connection). Its field and hold id are this attempt's alone, so
    // that release can free nothing else.
    const refusals = refused.map(([, retryInMs = -1]) => retryInMs).sort((a, b) => a - b);
    const mustClear = quorum - (instances - refusals.length);
    const reply: Reply = [0, mustClear <= 0 ? 0 : (refusals[mustClear - 1] ?? -1)];
    const leftovers = grants > 0 || (failed > 0 && String(args[2]).startsWith('try'));
    return leftovers ? { reply, rollback: attemptRelease(keys, args) } : { reply };
  },
};

/**
 * The owner-checked release of one attempt of `lock.acquire` (KEYS: lock, …; ARGV: ttl, field, mode, handoffMs,
 * then the hold id of a reentrant owner), in the lock's release form: only that hold is freed.
 */
function attemptRelease(keys: readonly string[], args: readonly (string | number)[]): ScriptCall<unknown> {
  const [, field = '', , handoffMs = 0, holdId] = args;
  const releaseArgs = holdId === undefined ? [field, handoffMs, 'publish'] : [field, handoffMs, 'publish', holdId];
  return { script: lockReleaseScript, keys: lockKeys(keys[0] ?? '').releaseKeys, args: releaseArgs };
}

/**
 * `lock.release` (0 not held, 1 decremented, 2 unlocked, 3 handed over) on every instance: counted on a majority
 * either way. Instances failing with an error a retry cannot fix, too many for a majority, fail it with that error.
 */
const releaseVote: Vote = {
  decide(ballots, { instances, quorum, settled }) {
    const released = countBallots(ballots).replies.map((reply) => int(reply));
    const done = released.filter((reply) => reply > 0);
    if (done.length >= quorum) return { reply: done.some((reply) => reply >= 2) ? 2 : 1 };
    if (released.length - done.length > instances - quorum) return { reply: 0 };
    if (!settled) return undefined;
    // Settled, so that a release used as a compensation is known to be over when nothing is left pending.
    const permanent = permanentFailure(ballots, instances, quorum, anyUnknown(ballots));
    if (permanent !== undefined) return { error: permanent };
    return { error: unavailable(`released on ${done.length} of ${instances} instances; a majority of ${quorum} must answer`, true) };
  },
};

/**
 * `lock.renew` (one 1 or 0 per hold) on every instance, each hold decided on its own: 1 where a majority renewed
 * it, 0 where so many found it gone that no majority can renew it, and, once every instance answered or failed,
 * `RENEW_UNDECIDED` for a hold neither applies to (the renewer retries that hold alone: one hold missing on
 * one master while another is down must not fail the batch's other holds). When no hold can be decided, the
 * run fails, with the error that made it so.
 */
const renewVote: Vote = {
  decide(ballots, { instances, quorum, args, settled }) {
    const replies = countBallots(ballots).replies.map((reply) => list(reply).map(int));
    const holds = args.length - 1;
    const verdicts: number[] = [];
    let undecided = 0;
    for (let i = 0; i < holds; i++) {
      const renewed = replies.filter((reply) => reply[i] === 1).length;
      if (renewed >= quorum) verdicts.push(1);
      else if (replies.length - renewed > instances - quorum) verdicts.push(0);
      else {
        verdicts.push(RENEW_UNDECIDED);
        undecided++;
      }
    }
    if (undecided === 0) return { reply: verdicts };
    if (!settled) return undefined;
    // Enough instances answered, or some holds were decided: the rest are undecided one by one.
    if (undecided < holds || replies.length >= quorum) return { reply: verdicts };
    const permanent = permanentFailure(ballots, instances, quorum, anyUnknown(ballots));
    if (permanent !== undefined) return { error: permanent };
    return { error: unavailable(`a renewal reached ${replies.length} of ${instances} instances; a majority of ${quorum} must answer`, true) };
  },
};

/** `lock.leave` (a waiter gives up) on every instance: done once all answered; it decides nothing. */
const leaveVote: Vote = {
  decide(ballots, { instances, quorum, settled }) {
    if (!settled) return undefined;
    const { replies } = countBallots(ballots);
    if (replies.length > 0) return { reply: 1 };
    return { error: permanentFailure(ballots, instances, quorum, anyUnknown(ballots)) ?? unavailable('no instance answered', true) };
  },
};

/** The lock scripts a Redlock client runs on its instances, by the SHA1 of their Lua, with how each one's replies combine. */
export const LOCK_VOTES: ReadonlyMap<string, Vote> = new Map<string, Vote>([
  [lockAcquireScript.sha1, acquireVote],
  [lockReleaseScript.sha1, releaseVote],
  [lockRenewScript.sha1, renewVote],
  [lockLeaveScript.sha1, leaveVote],
]);
