// Package clob is the Polymarket CLOB V2 venue client: the EIP-712 order
// model and its signing/verification, L1 (ClobAuth) and L2 (HMAC) request
// authentication, amount computation, the HTTP client for the CLOB REST API
// and a high-level Trader.
//
// The signing, verification and amount code is deliberately free of I/O so
// the sandbox exchange imports exactly the same rules the client uses: an
// order this package signs is, by construction, one the sandbox accepts, and
// both are pinned to the golden vectors produced by the official TypeScript
// client (testdata/clob-v2-vectors.json).
package clob
