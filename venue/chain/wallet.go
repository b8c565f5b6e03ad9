package chain

import (
	"context"
	"fmt"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

// Kind is how a user's funds are held on the venue. It decides who the order
// maker is, which signature type orders carry and how transactions are
// executed. It is always detected, never asked of the user.
type Kind uint8

// The wallet kinds, in signature-type order.
const (
	// EOA: the key's own address holds the funds (signature type 0).
	EOA Kind = iota
	// Proxy: the venue proxy wallet derived from the key (type 1).
	Proxy
	// Safe: the 1-of-1 Gnosis Safe derived from the key (type 2).
	Safe
	// Deposit: a deposit-wallet contract owned by the key (type 3, ERC-1271).
	Deposit
)

var kindNames = [...]string{EOA: "eoa", Proxy: "proxy", Safe: "safe", Deposit: "deposit"}

// String is the kind's lower-case name as used in API responses.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", uint8(k))
}

// ParseKind is the inverse of Kind.String.
func ParseKind(s string) (Kind, error) {
	for k, n := range kindNames {
		if n == s {
			return Kind(k), nil
		}
	}
	return 0, venue.Ef(venue.Invalid, "unknown wallet kind %q", s)
}

// SignatureType is the CLOB order signature type the kind implies.
func (k Kind) SignatureType() network.SignatureType {
	switch k {
	case Proxy:
		return network.SigPolyProxy
	case Safe:
		return network.SigGnosisSafe
	case Deposit:
		return network.SigPoly1271
	default:
		return network.SigEOA
	}
}

// DeriveProxyAddress is the venue proxy wallet of owner: CREATE2 from the
// network's proxy factory with salt keccak256(abi.encodePacked(owner)).
func DeriveProxyAddress(n network.Network, owner common.Address) common.Address {
	salt := crypto.Keccak256Hash(owner.Bytes())
	return crypto.CreateAddress2(n.ProxyFactory, salt, n.ProxyInitCodeHash.Bytes())
}

// DeriveSafeAddress is the Gnosis Safe of owner: CREATE2 from the network's
// Safe factory with salt keccak256(abi.encode(owner)).
func DeriveSafeAddress(n network.Network, owner common.Address) common.Address {
	salt := crypto.Keccak256Hash(common.LeftPadBytes(owner.Bytes(), 32))
	return crypto.CreateAddress2(n.SafeFactory, salt, n.SafeInitCodeHash.Bytes())
}

// DetectKind is Client.DetectKind for callers holding only a node connection.
func DetectKind(ctx context.Context, b Backend, n network.Network, owner, funder common.Address) (Kind, error) {
	return New(n, b, Options{}).DetectKind(ctx, owner, funder)
}

// DetectKind decides the wallet kind of owner given the address that holds
// the funds (the order maker / funder). A zero funder or the owner itself is
// an EOA; the owner's derived proxy or Safe is that kind; any other address
// must be the owner's deposit wallet as the venue's factory deploys it,
// which is checked on chain (isDepositWalletOf). Anything else is Invalid:
// the key cannot trade for that address.
func (c *Client) DetectKind(ctx context.Context, owner, funder common.Address) (Kind, error) {
	switch {
	case funder == (common.Address{}) || funder == owner:
		return EOA, nil
	case funder == DeriveProxyAddress(c.net, owner):
		return Proxy, nil
	case funder == DeriveSafeAddress(c.net, owner):
		return Safe, nil
	}
	ok, err := c.isDepositWalletOf(ctx, owner, funder)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, venue.E(venue.Invalid, "the wallet address does not belong to this key").WithCode("wallet_not_owned")
	}
	return Deposit, nil
}

// isDepositWalletOf checks that wallet is the deposit wallet the venue's
// deposit-wallet factory deploys for owner: the address the factory's
// walletOf(owner) names (a CREATE2 address fixed by the factory, the owner
// and the wallet code; contracts.DepositWalletAddress is the sandbox's
// derivation), with a contract deployed there whose owner(), when it
// answers one, is owner. A contract anywhere else is refused whatever its
// owner() says: anyone can deploy code that answers owner() with any
// address, and code that was not deployed by the factory need not obey
// the owner at all. A network without a factory, or a factory that cannot
// tell (no walletOf), has no deposit wallets this check can accept.
func (c *Client) isDepositWalletOf(ctx context.Context, owner, wallet common.Address) (bool, error) {
	if c.net.DepositWalletFactory == (common.Address{}) {
		return false, nil
	}
	var derived common.Address
	if err := c.call(ctx, c.net.DepositWalletFactory, depositFactoryABI, &derived, "walletOf", owner); err != nil {
		if venue.Is(err, venue.Unavailable) {
			return false, err
		}
		return false, nil
	}
	if derived != wallet {
		return false, nil
	}
	code, err := c.b.CodeAt(ctx, wallet, nil)
	if err != nil {
		return false, classifyRPC(err, "read the wallet contract")
	}
	if len(code) == 0 {
		return false, nil // not deployed yet: it cannot sign (ERC-1271) or execute
	}
	var got common.Address
	if err := c.call(ctx, wallet, depositWalletABI, &got, "owner"); err != nil {
		if venue.Is(err, venue.Unavailable) {
			return false, err
		}
		return true, nil // the factory's wallet, without an owner() view
	}
	return got == owner, nil
}
