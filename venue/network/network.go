// Package network holds the one configuration per network the venue client
// and the chain layer run against: chain id, contract addresses and service
// URLs. The sandbox network deliberately mirrors the official client's Amoy
// (80002) contract configuration, so the same client code serves both and the
// mainnet configuration differs only in addresses, chain id and URLs.
package network

import (
	"fmt"
	"strings"

	"github.com/ethereum/go-ethereum/common"
)

// Network describes a venue deployment.
type Network struct {
	// Name is "polygon" for the live venue or "sandbox" for the local one.
	Name    string
	ChainID int64

	// Trading collateral (pUSD on CLOB V2; "USDC" in the product spec).
	Collateral common.Address
	// Gnosis conditional-tokens ERC1155 (outcome tokens).
	ConditionalTokens common.Address
	// CLOB V2 exchanges (EIP-712 domain version "2").
	Exchange        common.Address
	NegRiskExchange common.Address
	// Neg-risk adapter (redeem path for neg-risk markets).
	NegRiskAdapter common.Address
	// Contracts through which winning positions are redeemed for collateral.
	// On Polygon since the pUSD switch these are the collateral adapters; in
	// the sandbox, whose positions are keyed to the collateral itself, the
	// conditional-tokens contract and the neg-risk adapter.
	RedeemNormal  common.Address
	RedeemNegRisk common.Address

	// Wallet factories: the venue proxy wallet (signature type 1), the Safe
	// (type 2) and the deposit wallet (type 3). Proxy and Safe addresses are
	// CREATE2-derived from the owner EOA with the init-code hashes below.
	ProxyFactory         common.Address
	ProxyInitCodeHash    common.Hash
	SafeFactory          common.Address
	SafeInitCodeHash     common.Hash
	DepositWalletFactory common.Address

	// Service endpoints. For the sandbox they are filled from the sandbox
	// listener address at start-up (see Sandbox).
	CLOBURL    string
	GammaURL   string
	DataAPIURL string
	RPCURL     string
	WSURL      string
	// StreamsURL is the base of the CLOB WebSocket channels (/ws/market,
	// /ws/user); venue/ws accepts it with or without the /ws segment.
	StreamsURL string
	// ExplorerURL is the block explorer of the chain: a transaction is
	// at {ExplorerURL}/tx/{hash} (Polygonscan live; the sandbox serves a
	// small one of its own chain).
	ExplorerURL string
	// No gasless relayer: the venue's (relayer-v2.polymarket.com, builder
	// API keys) is outside our protocol reference, so every wallet kind's
	// transactions are sent by its owner EOA, which pays the gas.
}

// SignatureType is the CLOB order signature type that follows from a wallet kind.
type SignatureType uint8

// Signature types of the V2 order.
const (
	SigEOA        SignatureType = 0
	SigPolyProxy  SignatureType = 1
	SigGnosisSafe SignatureType = 2
	SigPoly1271   SignatureType = 3
)

// Polygon is the live venue on Polygon mainnet (CLOB V2, pUSD collateral).
func Polygon() Network {
	return Network{
		Name:                 "polygon",
		ChainID:              137,
		Collateral:           common.HexToAddress("0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"),
		ConditionalTokens:    common.HexToAddress("0x4D97DCd97eC945f40cF65F87097ACe5EA0476045"),
		Exchange:             common.HexToAddress("0xE111180000d2663C0091e4f400237545B87B996B"),
		NegRiskExchange:      common.HexToAddress("0xe2222d279d744050d28e00520010520000310F59"),
		NegRiskAdapter:       common.HexToAddress("0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296"),
		RedeemNormal:         common.HexToAddress("0xAdA100Db00Ca00073811820692005400218FcE1f"),
		RedeemNegRisk:        common.HexToAddress("0xadA2005600Dec949baf300f4C6120000bDB6eAab"),
		ProxyFactory:         common.HexToAddress("0xaB45c5A4B0c941a2F231C04C3f49182e1A254052"),
		ProxyInitCodeHash:    common.HexToHash("0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b"),
		SafeFactory:          common.HexToAddress("0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b"),
		SafeInitCodeHash:     common.HexToHash("0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf"),
		DepositWalletFactory: common.HexToAddress("0x00000000000Fb5C9ADea0298D729A0CB3823Cc07"),
		CLOBURL:              "https://clob.polymarket.com",
		GammaURL:             "https://gamma-api.polymarket.com",
		DataAPIURL:           "https://data-api.polymarket.com",
		RPCURL:               "https://polygon-rpc.com",
		StreamsURL:           "wss://ws-subscriptions-clob.polymarket.com",
		ExplorerURL:          "https://polygonscan.com",
	}
}

// SandboxChainID is Polygon Amoy's chain id: nothing signed in the sandbox is
// valid on Polygon mainnet.
const SandboxChainID = 80002

// Sandbox is the local venue served by `ats sandbox` at base (for example
// "http://127.0.0.1:8090"). Its contracts sit at the addresses the official
// client's 80002 configuration names. The Safe init-code hash is the one of
// the sandbox's own Safe proxy (see sandbox/chain), since mainnet's Safe
// bytecode is not reproduced byte for byte.
func Sandbox(base string) Network {
	base = strings.TrimRight(base, "/")
	ws := "ws" + strings.TrimPrefix(base, "http")
	n := Polygon()
	n.Name = "sandbox"
	n.ChainID = SandboxChainID
	n.Collateral = common.HexToAddress("0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB")
	n.ConditionalTokens = common.HexToAddress("0x69308FB512518e39F9b16112fA8d994F4e2Bf8bB")
	n.Exchange = common.HexToAddress("0xE111180000d2663C0091e4f400237545B87B996B")
	n.NegRiskExchange = common.HexToAddress("0xe2222d279d744050d28e00520010520000310F59")
	n.NegRiskAdapter = common.HexToAddress("0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296")
	n.RedeemNormal = n.ConditionalTokens
	n.RedeemNegRisk = n.NegRiskAdapter
	n.SafeInitCodeHash = SandboxSafeInitCodeHash
	n.CLOBURL = base + "/clob"
	n.GammaURL = base + "/gamma"
	n.DataAPIURL = base + "/data-api"
	n.RPCURL = base + "/rpc"
	n.WSURL = ws + "/rpc/ws"
	n.StreamsURL = ws + "/ws"
	n.ExplorerURL = base + "/explorer"
	return n
}

// SandboxSafeInitCodeHash is keccak256 of the sandbox Safe proxy's creation
// code; the chain layer's tests assert it matches the compiled contract.
var SandboxSafeInitCodeHash = common.HexToHash("0xf0a8924315115697c0f6065eb6c7c74b763cf3bbeaa1d0ac7bac53bd6eda07b0")

// ExchangeFor returns the exchange that verifies an order for a market.
func (n Network) ExchangeFor(negRisk bool) common.Address {
	if negRisk {
		return n.NegRiskExchange
	}
	return n.Exchange
}

// ByName returns the network for a --venue value.
func ByName(name, sandboxBase string) (Network, error) {
	switch name {
	case "polygon", "polymarket":
		return Polygon(), nil
	case "sandbox":
		return Sandbox(sandboxBase), nil
	}
	return Network{}, fmt.Errorf("unknown venue %q (want sandbox or polymarket)", name)
}
