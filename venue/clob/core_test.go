package clob

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"encoding/json"
	"fmt"
	"log/slog"
	"math/big"
	"strings"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/network"
)

func d(s string) decimal.Decimal { return decimal.RequireFromString(s) }

func TestBuildLimitAmountsTable(t *testing.T) {
	// Rows from the official clients' order-builder tests (protocol doc §2.3).
	cases := []struct {
		side         Side
		price, size  string
		tick         TickSize
		maker, taker string
	}{
		{Buy, "0.5", "21.04", Tick01, "10520000", "21040000"},
		{Buy, "0.56", "21.04", Tick001, "11782400", "21040000"},
		{Buy, "0.056", "21.04", Tick0001, "1178240", "21040000"},
		{Buy, "0.0056", "21.04", Tick00001, "117824", "21040000"},
		{Buy, "0.82", "20", Tick001, "16400000", "20000000"},
		{Sell, "0.5", "21.04", Tick01, "21040000", "10520000"},
		{Sell, "0.56", "21.04", Tick001, "21040000", "11782400"},
		{Buy, "0.57", "19.99", Tick001, "11394300", "19990000"},     // float-noise case of the JS client
		{Sell, "0.5649", "21.049", Tick001, "21040000", "11782400"}, // price half-up, size floored
		{Buy, "0.555", "10", Tick001, "5600000", "10000000"},        // half-up, not banker's
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%s_%s_%s", c.side, c.price, c.size, c.tick), func(t *testing.T) {
			m, tk, err := BuildLimitAmounts(c.side, d(c.price), d(c.size), c.tick)
			require.NoError(t, err)
			require.Equal(t, c.maker, m.String())
			require.Equal(t, c.taker, tk.String())
			p, err := PriceFromAmounts(c.side, m, tk)
			require.NoError(t, err)
			require.True(t, p.Equal(d(c.price).Round(c.tick.Config().Price)), p.String())
		})
	}
}

func TestBuildMarketAmountsTable(t *testing.T) {
	cases := []struct {
		side          Side
		amount, price string
		tick          TickSize
		maker, taker  string
		mMaker, mTake string // after MarketableAmounts
	}{
		{Buy, "100", "0.5", Tick01, "100000000", "200000000", "100000000", "200000000"},
		{Buy, "119", "0.7", Tick01, "119000000", "170000000", "119000000", "170000000"},
		{Buy, "82.8", "0.8", Tick01, "82800000", "103500000", "82800000", "103500000"},
		{Buy, "21.04", "0.563", Tick0001, "21040000", "37371220", "21040000", "37371200"},
		{Sell, "21.04", "0.5627", Tick00001, "21040000", "11839208", "21040000", "11839200"},
		{Buy, "21.049", "0.567", Tick001, "21040000", "37571400", "21040000", "37571400"},
	}
	for _, c := range cases {
		t.Run(fmt.Sprintf("%s_%s_%s", c.side, c.amount, c.price), func(t *testing.T) {
			m, tk, err := BuildMarketAmounts(c.side, d(c.amount), d(c.price), c.tick)
			require.NoError(t, err)
			require.Equal(t, c.maker, m.String())
			require.Equal(t, c.taker, tk.String())
			m, tk, err = MarketableAmounts(c.side, d(c.amount), d(c.price), c.tick)
			require.NoError(t, err)
			require.Equal(t, c.mMaker, m.String())
			require.Equal(t, c.mTake, tk.String())
			require.NoError(t, CheckMarketablePrecision(c.side, m, tk))
		})
	}
	require.Error(t, CheckMarketablePrecision(Buy, big.NewInt(21040000), big.NewInt(37371220)))
	require.Error(t, CheckMarketablePrecision(Sell, big.NewInt(21041000), big.NewInt(100)))
}

func TestAmountValidation(t *testing.T) {
	cases := []struct {
		name        string
		price, size string
		tick        TickSize
		code, msg   string
	}{
		{"below min", "0.005", "10", Tick001, "invalid_price", "invalid price (0.005), min: 0.01 - max: 0.99"},
		{"above max", "0.995", "10", Tick001, "invalid_price", "invalid price (0.995), min: 0.01 - max: 0.99"},
		{"off tick", "0.563", "10", Tick0005, "invalid_tick_size", "price (0.563) breaks minimum tick size rule: 0.005"},
		{"zero size", "0.5", "0.009", Tick001, "invalid_size", ""},
		{"bad tick", "0.5", "1", TickSize("0.02"), "invalid_tick_size", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := BuildLimitAmounts(Buy, d(c.price), d(c.size), c.tick)
			require.Error(t, err)
			require.Equal(t, venue.Invalid, venue.CategoryOf(err))
			require.Equal(t, c.code, venue.CodeOf(err))
			if c.msg != "" {
				require.Equal(t, c.msg, venue.MessageOf(err))
			}
		})
	}
	require.NoError(t, ValidateMinSize(d("5"), d("5")))
	err := ValidateMinSize(d("4.99"), d("5"))
	require.Equal(t, "below_min_size", venue.CodeOf(err))
}

func TestParseTickSize(t *testing.T) {
	for in, want := range map[string]TickSize{"0.01": Tick001, "0.010": Tick001, ".1": Tick01, "0.0025": Tick00025, "1e-4": Tick00001} {
		got, err := ParseTickSize(in)
		require.NoError(t, err, in)
		require.Equal(t, want, got)
	}
	_, err := ParseTickSize("0.02")
	require.Error(t, err)
	var ts TickSize
	require.NoError(t, json.Unmarshal([]byte(`0.001`), &ts))
	require.Equal(t, Tick0001, ts)
	require.True(t, Tick0001.Smaller(Tick001))
	require.NoError(t, json.Unmarshal([]byte(`""`), &ts))
	require.False(t, ts.Valid())
	require.Error(t, json.Unmarshal([]byte(`"0.02"`), &ts))
}

func testOrder(t *testing.T, sigType SignatureType) (Order, *KeySigner, EIP712Domain) {
	key, err := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	require.NoError(t, err)
	s := NewKeySigner(key)
	o := Order{Salt: 1, Maker: s.Address(), Signer: s.Address(), TokenID: big.NewInt(42), MakerAmount: big.NewInt(5_000_000),
		TakerAmount: big.NewInt(10_000_000), Side: Buy, SignatureType: sigType, Timestamp: 1767225600000}
	if sigType == SigPoly1271 {
		o.Maker = common.HexToAddress("0xDeaDbeefdEAdbeefdEadbEEFdeadbeEFdEaDbeeF")
		o.Signer = o.Maker
	}
	dom := NetworkDomain(network.Sandbox("http://x"), false)
	require.NoError(t, SignOrderWith(context.Background(), &o, s, dom))
	return o, s, dom
}

func TestSignatureTampering(t *testing.T) {
	for _, st := range []SignatureType{SigEOA, SigPoly1271} {
		o, s, dom := testOrder(t, st)
		owner := common.Address{}
		if st == SigPoly1271 {
			owner = s.Address()
		}
		_, err := VerifyOrderSignature(o, dom, owner)
		require.NoError(t, err)

		mut := map[string]func(o *Order) EIP712Domain{
			"amount": func(o *Order) EIP712Domain { o.MakerAmount = big.NewInt(5_000_001); return dom },
			"domain": func(o *Order) EIP712Domain { return NetworkDomain(network.Sandbox("http://x"), true) },
			"chain":  func(o *Order) EIP712Domain { return NetworkDomain(network.Polygon(), false) },
			"sigbit": func(o *Order) EIP712Domain { o.Signature = bytes.Clone(o.Signature); o.Signature[10] ^= 1; return dom },
			"trunc":  func(o *Order) EIP712Domain { o.Signature = o.Signature[:len(o.Signature)-1]; return dom },
		}
		for name, m := range mut {
			t.Run(fmt.Sprintf("%d_%s", st, name), func(t *testing.T) {
				oc := o
				dd := m(&oc)
				_, err := VerifyOrderSignature(oc, dd, owner)
				require.Error(t, err)
				require.Equal(t, "invalid_signature", venue.CodeOf(err))
			})
		}
		// Expiration is not signed: changing it keeps the signature valid.
		oc := o
		oc.Expiration = 1767229200
		_, err = VerifyOrderSignature(oc, dom, owner)
		require.NoError(t, err)
	}
	// Type 3 signed by someone other than the wallet owner.
	o, _, dom := testOrder(t, SigPoly1271)
	_, err := VerifyOrderSignature(o, dom, common.HexToAddress("0x0000000000000000000000000000000000000001"))
	require.Error(t, err)
	// A type-1 order claiming a signer that did not sign.
	o, _, dom = testOrder(t, SigPolyProxy)
	o.Signer = common.HexToAddress("0x0000000000000000000000000000000000000002")
	_, err = VerifyOrderSignature(o, dom, common.Address{})
	require.Error(t, err)
}

func TestHighSRejected(t *testing.T) {
	o, s, dom := testOrder(t, SigEOA)
	n := crypto.S256().Params().N
	sv := new(big.Int).SetBytes(o.Signature[32:64])
	hs := new(big.Int).Sub(n, sv)
	sig := bytes.Clone(o.Signature)
	hs.FillBytes(sig[32:64])
	sig[64] ^= 1 // 27<->28
	h, _ := OrderHash(o, dom)
	_, err := RecoverDigest(h, sig)
	require.Error(t, err)
	got, err := RecoverDigest(h, o.Signature)
	require.NoError(t, err)
	require.Equal(t, s.Address(), got)
}

func TestSignOrderSignerMismatch(t *testing.T) {
	o, s, dom := testOrder(t, SigEOA)
	o.Signer = common.HexToAddress("0x0000000000000000000000000000000000000003")
	err := SignOrderWith(context.Background(), &o, s, dom)
	require.Equal(t, "signer_mismatch", venue.CodeOf(err))
}

func TestOrderUnmarshalErrors(t *testing.T) {
	o, _, _ := testOrder(t, SigEOA)
	good, err := json.Marshal(o)
	require.NoError(t, err)
	cases := map[string][2]string{
		"salt":      {`"salt":1`, `"salt":"x"`},
		"maker":     {`"maker":"0x`, `"maker":"zz`},
		"side":      {`"side":"BUY"`, `"side":"HOLD"`},
		"sigtype":   {`"signatureType":0`, `"signatureType":7`},
		"negative":  {`"makerAmount":"5000000"`, `"makerAmount":"-5"`},
		"metadata":  {`"metadata":"0x00`, `"metadata":"0x0`},
		"signature": {`"signature":"0x`, `"signature":"0xq`},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			bad := strings.Replace(string(good), c[0], c[1], 1)
			require.NotEqual(t, string(good), bad)
			var o2 Order
			err := json.Unmarshal([]byte(bad), &o2)
			require.Error(t, err)
			require.Equal(t, venue.Invalid, venue.CategoryOf(err))
		})
	}
	// Lenient: salt as string, side as number.
	alt := strings.Replace(strings.Replace(string(good), `"salt":1`, `"salt":"1"`, 1), `"side":"BUY"`, `"side":0`, 1)
	var o3 Order
	require.NoError(t, json.Unmarshal([]byte(alt), &o3))
	require.Equal(t, o.Salt, o3.Salt)
	var r PostOrderRequest
	require.NoError(t, json.Unmarshal([]byte(`{"order":`+string(good)+`,"owner":"k"}`), &r))
	require.Equal(t, GTC, r.OrderType)
}

func TestCredsRedaction(t *testing.T) {
	c := Creds{Key: "kid", Secret: "TOPSECRET", Passphrase: "PASSPHRASE"}
	var buf bytes.Buffer
	slog.New(slog.NewJSONHandler(&buf, nil)).Info("x", "creds", c)
	js, err := json.Marshal(map[string]any{"c": c})
	require.NoError(t, err)
	ks := NewKeySigner(mustKey(t))
	require.NotContains(t, fmt.Sprintf("%v %+v %#v", ks, ks, ks), "ac0974be")
	for _, s := range []string{string(js), fmt.Sprint(c), fmt.Sprintf("%+v", c), fmt.Sprintf("%#v", c), fmt.Sprintf("%v", &c), buf.String()} {
		require.NotContains(t, s, "TOPSECRET")
		require.NotContains(t, s, "PASSPHRASE")
		require.Contains(t, s, "kid")
	}
}

func TestL2SecretDecoding(t *testing.T) {
	_, err := L2Signature("", 1, "GET", "/x", nil)
	require.Equal(t, venue.Unauthorized, venue.CategoryOf(err))
	_, err = L2Signature("!!!!", 1, "GET", "/x", nil)
	require.Error(t, err)
	a, err := L2Signature("PadR-PcjXk3e6KwhaBirYKR9v2Pr-YdYtJXhEUJFSf4=", 1, "GET", "/x", nil)
	require.NoError(t, err)
	b, err := L2Signature("PadR+PcjXk3e6KwhaBirYKR9v2Pr+YdYtJXhEUJFSf4", 1, "GET", "/x", nil)
	require.NoError(t, err)
	require.Equal(t, a, b)
}

func BenchmarkSignOrder(b *testing.B) {
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	s := NewKeySigner(key)
	dom := NetworkDomain(network.Polygon(), false)
	o := Order{Maker: s.Address(), Signer: s.Address(), TokenID: big.NewInt(42), MakerAmount: big.NewInt(5_000_000),
		TakerAmount: big.NewInt(10_000_000), Side: Buy, Timestamp: 1767225600000}
	ctx := context.Background()
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		o.Salt = uint64(i)
		if err := SignOrderWith(ctx, &o, s, dom); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "orders/s")
}

func BenchmarkRecoverOrderSigner(b *testing.B) {
	key, _ := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	s := NewKeySigner(key)
	dom := NetworkDomain(network.Polygon(), false)
	o := Order{Maker: s.Address(), Signer: s.Address(), TokenID: big.NewInt(42), MakerAmount: big.NewInt(5_000_000),
		TakerAmount: big.NewInt(10_000_000), Side: Buy, Timestamp: 1767225600000}
	if err := SignOrderWith(context.Background(), &o, s, dom); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := RecoverOrderSigner(o, dom); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "orders/s")
}

func mustKey(t *testing.T) *ecdsa.PrivateKey {
	k, err := crypto.HexToECDSA("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
	require.NoError(t, err)
	return k
}
