/**
 * Lua: sets the already declared locals `now` (the server's clock in ms) and `micros` (the same clock in
 * µs, as a decimal string: exact, unlike a Lua number printed by Redis). Scripts read time from Redis so
 * that client clocks never matter.
 */
export const LUA_CLOCK = `local clock = redis.call('time')
now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)
micros = clock[1] .. string.format('%06d', tonumber(clock[2]))`;
