package clob

import (
	"context"
	"encoding/json"
	"math/big"
	"os"
	"strconv"
	"testing"

	"github.com/ethereum/go-ethereum/common"
	"github.com/ethereum/go-ethereum/crypto"
	"github.com/shopspring/decimal"
	"github.com/stretchr/testify/require"
)

type vectorFile struct {
	PrivateKey string `json:"privateKey"`
	Address    string `json:"address"`
	TokenID    string `json:"tokenId"`
	OrderCount int    `json:"orderCount"`
	Orders     []struct {
		ID     int `json:"id"`
		Inputs struct {
			Kind          string       `json:"kind"`
			Side          string       `json:"side"`
			Price         json.Number  `json:"price"`
			Size          json.Number  `json:"size"`
			Amount        json.Number  `json:"amount"`
			TickSize      string       `json:"tickSize"`
			NegRisk       bool         `json:"negRisk"`
			SignatureType uint8        `json:"signatureType"`
			Signer        string       `json:"signer"`
			Funder        *string      `json:"funder"`
			ChainID       int64        `json:"chainId"`
			OrderVersion  int          `json:"orderVersion"`
			Salt          string       `json:"salt"`
			Timestamp     string       `json:"timestamp"`
			Expiration    *json.Number `json:"expiration"`
			Metadata      *string      `json:"metadata"`
			BuilderCode   *string      `json:"builderCode"`
			OrderType     string       `json:"orderType"`
			PostOnly      bool         `json:"postOnly"`
			DeferExec     bool         `json:"deferExec"`
			Owner         string       `json:"owner"`
		} `json:"inputs"`
		Outputs struct {
			PostBodyJSON string `json:"postBodyJson"`
			TypedData    struct {
				Domain struct {
					Version           string `json:"version"`
					ChainID           int64  `json:"chainId"`
					VerifyingContract string `json:"verifyingContract"`
				} `json:"domain"`
			} `json:"typedData"`
			DomainSeparator     string `json:"domainSeparator"`
			StructHash          string `json:"structHash"`
			OrderHash           string `json:"orderHash"`
			Signature           string `json:"signature"`
			TypedDataSignDigest string `json:"typedDataSignDigest"`
			SignatureParts      *struct {
				InnerSignature     string `json:"innerSignature"`
				AppDomainSeparator string `json:"appDomainSeparator"`
				ContentsHash       string `json:"contentsHash"`
				ContentsType       string `json:"contentsType"`
				ContentsTypeLength int    `json:"contentsTypeLength"`
			} `json:"signatureParts"`
		} `json:"outputs"`
	} `json:"orders"`
	L1 []struct {
		Inputs struct {
			ChainID   int64  `json:"chainId"`
			Timestamp int64  `json:"timestamp"`
			Nonce     uint64 `json:"nonce"`
			Address   string `json:"address"`
		} `json:"inputs"`
		Digest  string            `json:"digest"`
		Headers map[string]string `json:"headers"`
	} `json:"l1"`
	L2 []struct {
		Inputs struct {
			Creds struct {
				Key        string `json:"key"`
				Secret     string `json:"secret"`
				Passphrase string `json:"passphrase"`
			} `json:"creds"`
			Timestamp   int64   `json:"timestamp"`
			Method      string  `json:"method"`
			RequestPath string  `json:"requestPath"`
			Body        *string `json:"body"`
		} `json:"inputs"`
		HMACMessage string            `json:"hmacMessage"`
		Headers     map[string]string `json:"headers"`
	} `json:"l2"`
}

func loadVectors(t testing.TB) vectorFile {
	t.Helper()
	b, err := os.ReadFile("testdata/clob-v2-vectors.json")
	require.NoError(t, err)
	var v vectorFile
	dec := json.NewDecoder(bytesReader(b))
	dec.UseNumber()
	require.NoError(t, dec.Decode(&v))
	require.Len(t, v.Orders, 138)
	require.Equal(t, v.OrderCount, len(v.Orders))
	require.Len(t, v.L1, 3)
	require.Len(t, v.L2, 6)
	return v
}

func mustDec(t testing.TB, n json.Number) decimal.Decimal {
	t.Helper()
	d, err := decimal.NewFromString(n.String())
	require.NoError(t, err)
	return d
}

func hexBytes32(t testing.TB, s *string) [32]byte {
	t.Helper()
	var out [32]byte
	if s == nil {
		return out
	}
	b, err := decodeHex(*s)
	require.NoError(t, err)
	copy(out[:], b)
	return out
}

// TestGoldenOrders rebuilds every vector order from its human inputs with
// this package's amount builders and signer and compares every output.
func TestGoldenOrders(t *testing.T) {
	v := loadVectors(t)
	key, err := crypto.HexToECDSA(v.PrivateKey[2:])
	require.NoError(t, err)
	signer := NewKeySigner(key)
	require.Equal(t, v.Address, signer.Address().Hex())

	for _, c := range v.Orders {
		t.Run(strconv.Itoa(c.ID), func(t *testing.T) {
			in, out := c.Inputs, c.Outputs
			side, err := ParseSide(in.Side)
			require.NoError(t, err)
			tick, err := ParseTickSize(in.TickSize)
			require.NoError(t, err)
			var maker, taker *big.Int
			if in.Kind == "limit" {
				maker, taker, err = BuildLimitAmounts(side, mustDec(t, in.Price), mustDec(t, in.Size), tick)
			} else {
				maker, taker, err = BuildMarketAmounts(side, mustDec(t, in.Amount), mustDec(t, in.Price), tick)
			}
			require.NoError(t, err)

			eoa := common.HexToAddress(in.Signer)
			makerAddr := eoa
			if in.Funder != nil {
				makerAddr = common.HexToAddress(*in.Funder)
			}
			signerAddr := eoa
			if in.SignatureType == SigPoly1271 {
				signerAddr = makerAddr
			}
			salt, err := strconv.ParseUint(in.Salt, 10, 64)
			require.NoError(t, err)
			ts, err := strconv.ParseUint(in.Timestamp, 10, 64)
			require.NoError(t, err)
			tokenID, ok := new(big.Int).SetString(v.TokenID, 10)
			require.True(t, ok)
			o := Order{
				Salt: salt, Maker: makerAddr, Signer: signerAddr, TokenID: tokenID,
				MakerAmount: maker, TakerAmount: taker, Side: side, SignatureType: in.SignatureType,
				Timestamp: ts, Metadata: hexBytes32(t, in.Metadata), Builder: hexBytes32(t, in.BuilderCode),
			}
			if in.Expiration != nil {
				e, err := strconv.ParseUint(in.Expiration.String(), 10, 64)
				require.NoError(t, err)
				o.Expiration = e
			}

			dom := out.TypedData.Domain
			require.Equal(t, strconv.Itoa(in.OrderVersion), dom.Version)
			d := Domain(dom.ChainID, common.HexToAddress(dom.VerifyingContract), dom.Version)
			if in.OrderVersion == 2 {
				// The builder's choice of exchange must match the official one.
				var n = map[bool]common.Address{false: common.HexToAddress("0xE111180000d2663C0091e4f400237545B87B996B"), true: common.HexToAddress("0xe2222d279d744050d28e00520010520000310F59")}
				require.Equal(t, n[in.NegRisk], d.VerifyingContract)
			}
			require.Equal(t, out.DomainSeparator, d.Separator().Hex())

			sh, err := o.StructHash()
			require.NoError(t, err)
			require.Equal(t, out.StructHash, sh.Hex())
			oh, err := OrderHash(o, d)
			require.NoError(t, err)
			require.Equal(t, out.OrderHash, oh.Hex())

			require.NoError(t, SignOrderWith(context.Background(), &o, signer, d))
			require.Equal(t, out.Signature, "0x"+common.Bytes2Hex(o.Signature))

			if in.SignatureType == SigPoly1271 {
				require.Len(t, o.Signature, Poly1271SignatureLen)
				tds, err := TypedDataSignDigest(o, d)
				require.NoError(t, err)
				require.Equal(t, out.TypedDataSignDigest, tds.Hex())
				p, err := ParsePoly1271(o.Signature)
				require.NoError(t, err)
				require.Equal(t, out.SignatureParts.InnerSignature, "0x"+common.Bytes2Hex(p.Inner))
				require.Equal(t, out.SignatureParts.AppDomainSeparator, p.AppDomainSep.Hex())
				require.Equal(t, out.SignatureParts.ContentsHash, p.ContentsHash.Hex())
				require.Equal(t, out.SignatureParts.ContentsType, p.ContentsType)
				require.Equal(t, out.SignatureParts.ContentsTypeLength, len(p.ContentsType))
			}

			rec, err := RecoverOrderSigner(o, d)
			require.NoError(t, err)
			require.Equal(t, eoa, rec)
			owner := common.Address{}
			if in.SignatureType == SigPoly1271 {
				owner = eoa
			}
			_, err = VerifyOrderSignature(o, d, owner)
			if in.SignatureType == SigEOA && in.Funder != nil {
				require.Error(t, err)
			} else {
				require.NoError(t, err)
			}

			req := PostOrderRequest{DeferExec: in.DeferExec, PostOnly: in.PostOnly, Order: o, Owner: in.Owner, OrderType: OrderType(in.OrderType)}
			body, err := json.Marshal(req)
			require.NoError(t, err)
			require.Equal(t, out.PostBodyJSON, string(body))

			// Round trip: the sandbox decodes what the client sends.
			var back PostOrderRequest
			require.NoError(t, json.Unmarshal([]byte(out.PostBodyJSON), &back))
			again, err := json.Marshal(back)
			require.NoError(t, err)
			require.Equal(t, out.PostBodyJSON, string(again))
			rec2, err := RecoverOrderSigner(back.Order, d)
			require.NoError(t, err)
			require.Equal(t, eoa, rec2)
		})
	}
}

func TestGoldenL1(t *testing.T) {
	v := loadVectors(t)
	key, err := crypto.HexToECDSA(v.PrivateKey[2:])
	require.NoError(t, err)
	s := NewKeySigner(key)
	for i, c := range v.L1 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			in := c.Inputs
			require.Equal(t, c.Digest, ClobAuthDigest(in.ChainID, common.HexToAddress(in.Address), in.Timestamp, in.Nonce).Hex())
			h, err := L1Headers(context.Background(), s, in.ChainID, in.Timestamp, in.Nonce)
			require.NoError(t, err)
			for k, want := range c.Headers {
				require.Equal(t, want, h.Get(k), k)
			}
			addr, nonce, ts, err := VerifyL1(h, in.ChainID)
			require.NoError(t, err)
			require.Equal(t, in.Address, addr.Hex())
			require.Equal(t, in.Nonce, nonce)
			require.Equal(t, in.Timestamp, ts)
			// The same headers are not valid for another chain.
			other := int64(137)
			if in.ChainID == 137 {
				other = 80002
			}
			_, _, _, err = VerifyL1(h, other)
			require.Error(t, err)
		})
	}
}

func TestGoldenL2(t *testing.T) {
	v := loadVectors(t)
	for i, c := range v.L2 {
		t.Run(strconv.Itoa(i), func(t *testing.T) {
			in := c.Inputs
			creds := Creds{Key: in.Creds.Key, Secret: in.Creds.Secret, Passphrase: in.Creds.Passphrase}
			var body []byte
			if in.Body != nil {
				body = []byte(*in.Body)
			}
			h, err := L2Headers(creds, common.HexToAddress(c.Headers["POLY_ADDRESS"]), in.Timestamp, in.Method, in.RequestPath, body)
			require.NoError(t, err)
			for k, want := range c.Headers {
				require.Equal(t, want, h.Get(k), k)
			}
			r, err := VerifyL2(h, creds, in.Method, in.RequestPath, body)
			require.NoError(t, err)
			require.Equal(t, in.Timestamp, r.Timestamp)
			// Any change to the signed material fails.
			_, err = VerifyL2(h, creds, in.Method, in.RequestPath+"x", body)
			require.Error(t, err)
			_, err = VerifyL2(h, creds, in.Method, in.RequestPath, append(body, ' '))
			require.Error(t, err)
		})
	}
}
