package contracts

import (
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
)

func TestProxyWalletDerivationMatchesVenue(t *testing.T) {
	factory := common.HexToAddress("0xaB45c5A4B0c941a2F231C04C3f49182e1A254052")
	// Init-code hash of polymarket-protocol.md §2.2 and the proxy of the golden vectors.
	if got := crypto.Keccak256Hash(ProxyWalletInitCode(factory, ProxyWalletImplementation)); got != common.HexToHash("0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b") {
		t.Fatalf("init code hash %s", got)
	}
	tests := []struct{ owner, want string }{
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x365f0CA36Ae1f641E02fE3B7743673da42A13A70"},
		{"0x0000000000000000000000000000000000000001", "0x7754536ecd85c00b2e0cf9c1aa679340d8550756"},
	}
	for _, tc := range tests {
		if got := ProxyWalletAddress(factory, ProxyWalletImplementation, common.HexToAddress(tc.owner)); got != common.HexToAddress(tc.want) {
			t.Errorf("owner %s: proxy %s, want %s", tc.owner, got, tc.want)
		}
	}
}

func TestSafeDerivationWithMainnetHash(t *testing.T) {
	// The derivation formula itself, checked against the mainnet vectors
	// (the sandbox only swaps the init-code hash).
	factory := common.HexToAddress("0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b")
	hash := common.HexToHash("0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf")
	tests := []struct{ owner, want string }{
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47"},
		{"0x0000000000000000000000000000000000000001", "0x766b6851a199bf91ae3fa13b1cfac5187355118f"},
	}
	for _, tc := range tests {
		if got := SafeAddress(factory, hash, common.HexToAddress(tc.owner)); got != common.HexToAddress(tc.want) {
			t.Errorf("owner %s: safe %s, want %s", tc.owner, got, tc.want)
		}
	}
}

func TestArtefactsPresent(t *testing.T) {
	for _, n := range Names {
		rt, err := RuntimeCode(n)
		if err != nil || len(rt) == 0 {
			t.Errorf("%s runtime: %v (len %d)", n, err, len(rt))
		}
		cc, err := CreationCode(n)
		if err != nil || len(cc) <= len(rt) {
			t.Errorf("%s creation: %v (len %d)", n, err, len(cc))
		}
	}
}
