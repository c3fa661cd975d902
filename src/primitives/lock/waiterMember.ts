/**
 * How an rxlock waiter is listed in a lock's waiters ZSET: `<field> <leaseMs> <flags> <holdId>`, where
 * `flags` holds `f` (a fencing token is wanted) and `d` (a direct hand-off is accepted), or is `-`, and
 * `holdId` is `-` for an owner that never re-enters. An unlock that hands the lock to this waiter needs all
 * of it: whose field to write, for how long, whether to draw a token and which hold id to record. The
 * score is the server time (µs) the waiter joined.
 *
 * None of the parts contains a space: fields are `<clientId>:<owner>` and both are checked for it.
 */
export interface WaiterMember {
  readonly field: string;
  readonly leaseMs: number;
  readonly fencing: boolean;
  /** Whether the waiter's client takes a grant from the hand-off message (see `clientChannel`). */
  readonly direct: boolean;
  readonly holdId: string | undefined;
}

/** Lua: the member of this acquire's caller, from its arguments (`flags`: the letters after the mode's `+`). */
export const LUA_MEMBER_OF = `local function memberOf(field, lease, flags, hold)
  if flags == '' then flags = '-' end
  return field .. ' ' .. lease .. ' ' .. flags .. ' ' .. (hold or '-')
end`;

/** Lua: the parts of a member (nil for a member in another form). */
export const LUA_PARSE_MEMBER = `local function parseMember(member)
  return string.match(member, '^(%S+) (%d+) (%S+) (%S+)$')
end`;

export function waiterMember({ field, leaseMs, fencing, direct, holdId }: WaiterMember): string {
  const flags = `${fencing ? 'f' : ''}${direct ? 'd' : ''}`;
  return `${field} ${leaseMs} ${flags === '' ? '-' : flags} ${holdId ?? '-'}`;
}

/** The parts of a member, or undefined for one in another form. */
export function parseWaiterMember(member: string): WaiterMember | undefined {
  const parts = /^(\S+) (\d+) (\S+) (\S+)$/.exec(member);
  if (parts === null) return undefined;
  const [, field = '', leaseMs = '0', flags = '', holdId = '-'] = parts;
  return { field, leaseMs: Number(leaseMs), fencing: flags.includes('f'), direct: flags.includes('d'), holdId: holdId === '-' ? undefined : holdId };
}

/** The waiter's field (`<clientId>:<owner>`) of a member; a member in another form is taken as the field itself. */
export function memberField(member: string): string {
  const space = member.indexOf(' ');
  return space === -1 ? member : member.slice(0, space);
}
