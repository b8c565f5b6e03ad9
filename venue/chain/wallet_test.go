package chain

import (
	"context"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/core/types"
	"github.com/ethereum/go-ethereum/crypto"

	"github.com/agent-trading/ats/venue/network"
)

func TestDeriveAddresses(t *testing.T) {
	poly := network.Polygon()
	tests := []struct {
		owner, proxy, safe string
	}{
		{"0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0x365f0CA36Ae1f641E02fE3B7743673da42A13A70", "0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47"},
		{"0x0000000000000000000000000000000000000001", "0x7754536ecd85c00b2e0cf9c1aa679340d8550756", "0x766b6851a199bf91ae3fa13b1cfac5187355118f"},
	}
	for _, tt := range tests {
		owner := common.HexToAddress(tt.owner)
		if got := DeriveProxyAddress(poly, owner); got != common.HexToAddress(tt.proxy) {
			t.Errorf("proxy(%s) = %s, want %s", tt.owner, got, tt.proxy)
		}
		if got := DeriveSafeAddress(poly, owner); got != common.HexToAddress(tt.safe) {
			t.Errorf("safe(%s) = %s, want %s", tt.owner, got, tt.safe)
		}
	}
}

func TestKindSignatureType(t *testing.T) {
	tests := []struct {
		k    Kind
		name string
		sig  network.SignatureType
	}{
		{EOA, "eoa", 0}, {Proxy, "proxy", 1}, {Safe, "safe", 2}, {Deposit, "deposit", 3},
	}
	for _, tt := range tests {
		if tt.k.SignatureType() != tt.sig || tt.k.String() != tt.name {
			t.Errorf("%v: sig %d name %s", tt.k, tt.k.SignatureType(), tt.k.String())
		}
		if k, err := ParseKind(tt.name); err != nil || k != tt.k {
			t.Errorf("ParseKind(%s) = %v, %v", tt.name, k, err)
		}
	}
	if _, err := ParseKind("multisig"); err == nil {
		t.Error("ParseKind accepted an unknown kind")
	}
}

func TestKeySignerNeverShowsKey(t *testing.T) {
	const hexKey = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80"
	s, err := KeySignerFromHex("0x" + hexKey)
	if err != nil {
		t.Fatal(err)
	}
	if s.Address() != common.HexToAddress("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266") {
		t.Fatalf("address %s", s.Address())
	}
	for _, text := range []string{s.String(), s.GoString()} {
		if strings.Contains(strings.ToLower(text), hexKey[:16]) {
			t.Fatalf("signer text reveals the key: %s", text)
		}
	}
	if _, err := KeySignerFromHex("zz" + hexKey[2:]); err == nil || strings.Contains(err.Error(), hexKey[2:18]) {
		t.Fatalf("bad key error %v", err)
	}
	digest := crypto.Keccak256([]byte("x"))
	sig, err := s.SignHash(context.Background(), digest)
	if err != nil {
		t.Fatal(err)
	}
	if sig[64] != 27 && sig[64] != 28 {
		t.Fatalf("v = %d, want 27/28", sig[64])
	}
	raw := append([]byte(nil), sig...)
	raw[64] -= 27
	pub, err := crypto.SigToPub(digest, raw)
	if err != nil || crypto.PubkeyToAddress(*pub) != s.Address() {
		t.Fatalf("signature does not recover the signer: %v", err)
	}
	tx := types.NewTx(&types.DynamicFeeTx{ChainID: big.NewInt(80002), Nonce: 1, Gas: 21000})
	signed, err := s.SignTx(context.Background(), tx, big.NewInt(80002))
	if err != nil {
		t.Fatal(err)
	}
	from, err := types.Sender(types.LatestSignerForChainID(big.NewInt(80002)), signed)
	if err != nil || from != s.Address() {
		t.Fatalf("tx sender %s, %v", from, err)
	}
}

func TestRequiredApprovals(t *testing.T) {
	c := New(network.Polygon(), nil, Options{})
	n := c.Network()
	all, err := c.RequiredApprovals(ApproveAll)
	if err != nil {
		t.Fatal(err)
	}
	// Polygon: 3 collateral spenders, 5 CTF operators (both exchanges, the
	// adapter and both collateral adapters that redeem).
	if len(all) != 8 {
		t.Fatalf("all = %d approvals: %+v", len(all), all)
	}
	negRisk, _ := c.RequiredApprovals(ApproveNegRisk)
	for _, a := range negRisk {
		if a.Spender == n.Exchange {
			t.Fatalf("NEG_RISK includes the normal exchange: %+v", a)
		}
	}
	sb := New(network.Sandbox("http://x"), nil, Options{})
	sbAll, _ := sb.RequiredApprovals(ApproveAll)
	for _, a := range sbAll {
		if a.Token == AssetCTF && a.Spender == sb.Network().ConditionalTokens {
			t.Fatal("approval of the CTF to itself")
		}
	}
	if len(sbAll) != 6 {
		t.Fatalf("sandbox all = %d approvals: %+v", len(sbAll), sbAll)
	}
	for _, s := range []string{"usdc", "CTF", "neg_risk", "ALL"} {
		if _, err := ParseApproveToken(s); err != nil {
			t.Errorf("ParseApproveToken(%s): %v", s, err)
		}
	}
	if _, err := ParseApproveToken("ETH"); err == nil {
		t.Error("ParseApproveToken accepted ETH")
	}
}
