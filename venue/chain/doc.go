// Package chain is the service's on-chain client for the venue: collateral
// and outcome-token balances, trading approvals, redemption of resolved
// positions, wallet-kind detection and a fill watcher.
//
// Everything the venue lets a user trade from — a plain EOA, the venue proxy
// wallet, a 1-of-1 Gnosis Safe or a deposit wallet — is a Wallet. Calls that
// change state are executed the way that wallet kind requires (a plain
// transaction, the proxy factory's proxy(), the Safe's execTransaction or the
// deposit wallet's execute), so callers only say what should happen, never
// how. Keys never leave a Signer: the client only asks it for signatures.
//
// Errors are venue.Error: an unreachable node is Unavailable,
// a refused transaction is Rejected (codes "insufficient_gas",
// "reverted"), an unresolved market is Conflict ("not_resolved").
package chain
