// HighwayHash-128 as Redisson's `org.redisson.misc.HighwayHash` computes it (Google's algorithm, keyed with
// Redisson's `Hash.KEY`), on 32-bit halves: a 64-bit lane `i` is `lo[i]`, `hi[i]` of a Uint32Array pair, so that
// hashing a group of thousands of values costs no BigInt allocation per step.

/** Redisson's key (`org.redisson.misc.Hash.KEY`), as [lo, hi] 32-bit halves of its four 64-bit words. */
const KEY: readonly (readonly [number, number])[] = [
  [0x7f4a7c15, 0x9e3779b9],
  [0x5cedc834, 0xf39cc060],
  [0xf3a27251, 0x1082276b],
  [0xd0c18e95, 0xf86c6a11],
];

const INIT_MUL0: readonly (readonly [number, number])[] = [
  [0xfe4cce2f, 0xdbe6d5d5],
  [0x299f31d0, 0xa4093822],
  [0x03707344, 0x13198a2e],
  [0x85a308d3, 0x243f6a88],
];

const INIT_MUL1: readonly (readonly [number, number])[] = [
  [0xcb0ef593, 0x3bd39e10],
  [0xb5f18a8c, 0xc0acf169],
  [0x34e90c6c, 0xbe5466cf],
  [0x38d01377, 0x452821e6],
];

const TWO_32 = 0x1_0000_0000;

/** An element of a typed array or tuple list whose index is in range by construction. */
function at<T>(items: ArrayLike<T>, index: number): T {
  return items[index] as T;
}

/** The hash state: four 64-bit lanes in each of v0, v1, mul0, mul1, as low and high halves. */
class State {
  readonly v0 = new Uint32Array(8);
  readonly v1 = new Uint32Array(8);
  readonly mul0 = new Uint32Array(8);
  readonly mul1 = new Uint32Array(8);
  /** A packet's four 64-bit words, little-endian, as halves. */
  readonly packet = new Uint32Array(8);

  constructor() {
    for (let i = 0; i < 4; i++) {
      const [keyLo, keyHi] = at(KEY, i);
      const [m0Lo, m0Hi] = at(INIT_MUL0, i);
      const [m1Lo, m1Hi] = at(INIT_MUL1, i);
      this.mul0[2 * i] = m0Lo;
      this.mul0[2 * i + 1] = m0Hi;
      this.mul1[2 * i] = m1Lo;
      this.mul1[2 * i + 1] = m1Hi;
      this.v0[2 * i] = m0Lo ^ keyLo;
      this.v0[2 * i + 1] = m0Hi ^ keyHi;
      // v1 = mul1 ^ (key rotated by 32 bits)
      this.v1[2 * i] = m1Lo ^ keyHi;
      this.v1[2 * i + 1] = m1Hi ^ keyLo;
    }
  }
}

/** lanes[i] += (hi:lo), modulo 2^64. */
function add(lanes: Uint32Array, i: number, lo: number, hi: number): void {
  const low = at(lanes, 2 * i) + lo;
  lanes[2 * i] = low;
  lanes[2 * i + 1] = at(lanes, 2 * i + 1) + hi + (low >= TWO_32 ? 1 : 0);
}

/** lanes[i] ^= a * b, the full 64-bit product of two 32-bit numbers. */
function xorProduct(lanes: Uint32Array, i: number, a: number, b: number): void {
  const a0 = a & 0xffff;
  const a1 = a >>> 16;
  const b0 = b & 0xffff;
  const b1 = b >>> 16;
  const middle = a0 * b1 + a1 * b0;
  const low = a0 * b0 + (middle % 0x1_0000) * 0x1_0000;
  const high = a1 * b1 + Math.floor(middle / 0x1_0000) + Math.floor(low / TWO_32);
  lanes[2 * i] = at(lanes, 2 * i) ^ (low % TWO_32);
  lanes[2 * i + 1] = at(lanes, 2 * i + 1) ^ (high % TWO_32);
}

/** Byte `k` (0 = least significant) of lane `i`. */
function byte(lanes: Uint32Array, i: number, k: number): number {
  return k < 4 ? (at(lanes, 2 * i) >>> (8 * k)) & 0xff : (at(lanes, 2 * i + 1) >>> (8 * (k - 4))) & 0xff;
}

/**
 * lanes[dst] += zipperMerge0 of the Java code: `zipperMerge0(src[high], src[low])` reshuffles bytes into
 * (least significant first) low.3, high.4, low.2, low.5, high.6, low.1, high.7, low.0.
 */
function addZipper0(lanes: Uint32Array, dst: number, src: Uint32Array, high: number, low: number): void {
  add(
    lanes,
    dst,
    (byte(src, low, 3) | (byte(src, high, 4) << 8) | (byte(src, low, 2) << 16) | (byte(src, low, 5) << 24)) >>> 0,
    (byte(src, high, 6) | (byte(src, low, 1) << 8) | (byte(src, high, 7) << 16) | (byte(src, low, 0) << 24)) >>> 0,
  );
}

/** lanes[dst] += zipperMerge1: bytes high.3, low.4, high.2, high.5, high.1, low.6, high.0, low.7. */
function addZipper1(lanes: Uint32Array, dst: number, src: Uint32Array, high: number, low: number): void {
  add(
    lanes,
    dst,
    (byte(src, high, 3) | (byte(src, low, 4) << 8) | (byte(src, high, 2) << 16) | (byte(src, high, 5) << 24)) >>> 0,
    (byte(src, high, 1) | (byte(src, low, 6) << 8) | (byte(src, high, 0) << 16) | (byte(src, low, 7) << 24)) >>> 0,
  );
}

/** One round on the packet in `state.packet`. */
function update(state: State): void {
  const { v0, v1, mul0, mul1, packet } = state;
  for (let i = 0; i < 4; i++) {
    add(v1, i, at(mul0, 2 * i), at(mul0, 2 * i + 1));
    add(v1, i, at(packet, 2 * i), at(packet, 2 * i + 1));
  }
  for (let i = 0; i < 4; i++) {
    xorProduct(mul0, i, at(v1, 2 * i), at(v0, 2 * i + 1));
    add(v0, i, at(mul1, 2 * i), at(mul1, 2 * i + 1));
    xorProduct(mul1, i, at(v0, 2 * i), at(v1, 2 * i + 1));
  }
  // v1 is not changed by the first four, so they read it as it is; v0 likewise for the last four.
  addZipper0(v0, 0, v1, 1, 0);
  addZipper1(v0, 1, v1, 1, 0);
  addZipper0(v0, 2, v1, 3, 2);
  addZipper1(v0, 3, v1, 3, 2);
  addZipper0(v1, 0, v0, 1, 0);
  addZipper1(v1, 1, v0, 1, 0);
  addZipper0(v1, 2, v0, 3, 2);
  addZipper1(v1, 3, v0, 3, 2);
}

/** Loads 32 bytes from `data` at `offset` into the packet, little-endian. */
function load(state: State, data: Uint8Array, offset: number): void {
  for (let k = 0; k < 8; k++) {
    const start = offset + 4 * k;
    state.packet[k] = (at(data, start) | (at(data, start + 1) << 8) | (at(data, start + 2) << 16) | (at(data, start + 3) << 24)) >>> 0;
  }
}

/** The last `size` (1-31) bytes, at `offset`, as the Java `updateRemainder` packs them. */
function updateRemainder(state: State, data: Uint8Array, offset: number, size: number): void {
  const { v0, v1 } = state;
  for (let i = 0; i < 4; i++) add(v0, i, size, size);
  for (let k = 0; k < 8; k++) {
    const half = at(v1, k);
    v1[k] = size === 0 ? half : ((half << size) | (half >>> (32 - size))) >>> 0;
  }
  const sizeMod4 = size & 3;
  const remainder = size & ~3;
  const bytes = new Uint8Array(32);
  bytes.set(data.subarray(offset, offset + remainder));
  if ((size & 16) !== 0) {
    for (let i = 0; i < 4; i++) bytes[28 + i] = at(data, offset + remainder + i + sizeMod4 - 4);
  } else if (sizeMod4 !== 0) {
    bytes[16] = at(data, offset + remainder);
    bytes[17] = at(data, offset + remainder + (sizeMod4 >>> 1));
    bytes[18] = at(data, offset + remainder + sizeMod4 - 1);
  }
  load(state, bytes, 0);
  update(state);
}

/** One of the finishing rounds: v0's lanes 2, 3, 0, 1, each rotated by 32 bits, as the packet. */
function permuteAndUpdate(state: State): void {
  const { v0, packet } = state;
  for (let i = 0; i < 4; i++) {
    const from = i ^ 2;
    packet[2 * i] = at(v0, 2 * from + 1);
    packet[2 * i + 1] = at(v0, 2 * from);
  }
  update(state);
}

/**
 * HighwayHash-128 of `data` with Redisson's key, as the 16 bytes Redisson's `Hash.hash128toBase64` encodes:
 * the two 64-bit words, each big-endian.
 */
export function highwayHash128(data: Uint8Array): Uint8Array {
  const state = new State();
  const whole = data.length - (data.length & 31);
  for (let offset = 0; offset < whole; offset += 32) {
    load(state, data, offset);
    update(state);
  }
  if ((data.length & 31) !== 0) updateRemainder(state, data, whole, data.length & 31);
  for (let round = 0; round < 6; round++) permuteAndUpdate(state);
  const { v0, v1, mul0, mul1 } = state;
  const out = new Uint8Array(16);
  const view = new DataView(out.buffer);
  for (let word = 0; word < 2; word++) {
    // hash[w] = v0[w] + mul0[w] + v1[w + 2] + mul1[w + 2]
    const sum = new Uint32Array(8);
    sum[0] = at(v0, 2 * word);
    sum[1] = at(v0, 2 * word + 1);
    add(sum, 0, at(mul0, 2 * word), at(mul0, 2 * word + 1));
    add(sum, 0, at(v1, 2 * (word + 2)), at(v1, 2 * (word + 2) + 1));
    add(sum, 0, at(mul1, 2 * (word + 2)), at(mul1, 2 * (word + 2) + 1));
    view.setUint32(8 * word, at(sum, 1));
    view.setUint32(8 * word + 4, at(sum, 0));
  }
  return out;
}
