package chain

import (
	"bytes"
	"context"
	"math/big"
	"testing"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue/network"
)

// TestRedeemCallTargets pins which contract and signature each network's
// redemption uses; the sandbox paths are exercised end to end in
// TestWalletKinds.
func TestRedeemCallTargets(t *testing.T) {
	ctfSig := []byte{0x01, 0xb7, 0x03, 0x7c}     // redeemPositions(address,bytes32,bytes32,uint256[])
	adapterSig := []byte{0xdb, 0xec, 0xcb, 0x23} // redeemPositions(bytes32,uint256[])
	poly, sb := network.Polygon(), network.Sandbox("http://127.0.0.1:1")
	tests := []struct {
		name    string
		net     network.Network
		negRisk bool
		to      common.Address
		sig     []byte
	}{
		{"polygon normal via the collateral adapter", poly, false, poly.RedeemNormal, ctfSig},
		{"polygon neg-risk via the neg-risk collateral adapter", poly, true, poly.RedeemNegRisk, ctfSig},
		{"sandbox normal via the conditional tokens", sb, false, sb.ConditionalTokens, ctfSig},
		{"sandbox neg-risk via the neg-risk adapter", sb, true, sb.NegRiskAdapter, adapterSig},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := New(tt.net, nil, Options{})
			p := RedeemPosition{ConditionID: common.HexToHash("0x01"), NegRisk: tt.negRisk,
				Amounts: []*big.Int{big.NewInt(1), big.NewInt(0)}}
			cl, err := c.redeemCall(context.Background(), common.HexToAddress("0x02"), p)
			if err != nil {
				t.Fatal(err)
			}
			if cl.to != tt.to {
				t.Fatalf("to %s, want %s", cl.to, tt.to)
			}
			if !bytes.Equal(cl.data[:4], tt.sig) {
				t.Fatalf("selector %x, want %x", cl.data[:4], tt.sig)
			}
		})
	}
}
