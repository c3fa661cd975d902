/** A majority of `instances`: the smallest number of them that any two majorities share at least one of. */
export function quorumOf(instances: number): number {
  return Math.floor(instances / 2) + 1;
}

/** What one instance answered to one script run: still pending, a reply, or a failure (error or no reply in time). */
export type Ballot<R> =
  { readonly state: 'pending' } | { readonly state: 'replied'; readonly reply: R } | { readonly state: 'failed'; readonly error: unknown };

/** Counts ballots by state. */
export function countBallots<R>(ballots: readonly Ballot<R>[]): { pending: number; failed: number; replies: R[] } {
  let pending = 0;
  let failed = 0;
  const replies: R[] = [];
  for (const ballot of ballots) {
    if (ballot.state === 'pending') pending++;
    else if (ballot.state === 'failed') failed++;
    else replies.push(ballot.reply);
  }
  return { pending, failed, replies };
}
