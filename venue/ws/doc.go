// Package ws is the client of the venue's two WebSocket channels (see
// docs/venue-streams.md and the protocol reference
// polymarket-websocket.md): the public market channel (books, price
// changes, last trades, tick-size changes and, on request, best bid/ask,
// new and resolved markets) and the authenticated user channel (the API
// key's order and trade events).
//
// Both streams share one connection machine: subscribe right after the
// handshake, keep the socket alive with the venue's text PING every 10 s
// and a read deadline (no frame at all for PongTimeout means dead),
// reconnect with exponential backoff and jitter, replay every subscription
// on the new socket, and run a REST backfill before reading it so nothing
// that happened during the gap is missed: fresh books for the market
// channel, the changed orders and trades for the user channel. Events are
// typed Go values with decimal prices and sizes, parsed from frames that
// may hold one event or an array of them.
//
// The sandbox venue serves the same channels from its matching engine
// (sandbox/server), so the same code runs against both. This package
// imports nothing of the service but other venue packages.
package ws
