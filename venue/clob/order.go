package clob

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math/big"
	"strconv"
	"strings"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/venue"
)

// Order is a CLOB V2 order: the eleven signed fields, the unsigned
// Expiration and the Signature. Amounts are base units (6 decimals).
type Order struct {
	// Salt makes otherwise identical orders distinct. It travels as a JSON
	// number, so keep it below 2^53 (NewSalt does).
	Salt          uint64
	Maker         common.Address // funder: whose collateral/tokens move
	Signer        common.Address // EOA, or the deposit wallet for type 3
	TokenID       *big.Int       // CTF position id
	MakerAmount   *big.Int       // what the maker gives, base units
	TakerAmount   *big.Int       // what the maker receives, base units
	Side          Side
	SignatureType SignatureType
	Timestamp     uint64 // creation time, unix milliseconds (signed)
	Expiration    uint64 // unix seconds, 0 = none (NOT signed)
	Metadata      [32]byte
	Builder       [32]byte
	Signature     []byte
}

// MarshalJSON encodes the order exactly as the official client's
// orderToJsonV2 does (key order and value types), so the bytes, and hence
// the L2 HMAC over them, match the venue's expectations.
func (o Order) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := o.appendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func bigString(x *big.Int) string {
	if x == nil {
		return "0"
	}
	return x.String()
}

func (o Order) appendJSON(b *bytes.Buffer) error {
	if !o.Side.Valid() {
		return fmt.Errorf("clob: invalid side %d", uint8(o.Side))
	}
	b.WriteString(`{"salt":`)
	b.WriteString(strconv.FormatUint(o.Salt, 10))
	b.WriteString(`,"maker":"`)
	b.WriteString(o.Maker.Hex())
	b.WriteString(`","signer":"`)
	b.WriteString(o.Signer.Hex())
	b.WriteString(`","tokenId":"`)
	b.WriteString(bigString(o.TokenID))
	b.WriteString(`","makerAmount":"`)
	b.WriteString(bigString(o.MakerAmount))
	b.WriteString(`","takerAmount":"`)
	b.WriteString(bigString(o.TakerAmount))
	b.WriteString(`","side":"`)
	b.WriteString(o.Side.String())
	b.WriteString(`","signatureType":`)
	b.WriteString(strconv.FormatUint(uint64(o.SignatureType), 10))
	b.WriteString(`,"timestamp":"`)
	b.WriteString(strconv.FormatUint(o.Timestamp, 10))
	b.WriteString(`","expiration":"`)
	b.WriteString(strconv.FormatUint(o.Expiration, 10))
	b.WriteString(`","metadata":"0x`)
	b.WriteString(hex.EncodeToString(o.Metadata[:]))
	b.WriteString(`","builder":"0x`)
	b.WriteString(hex.EncodeToString(o.Builder[:]))
	b.WriteString(`","signature":"0x`)
	b.WriteString(hex.EncodeToString(o.Signature))
	b.WriteString(`"}`)
	return nil
}

// wireOrder is the lenient decoding shape: numbers may arrive as JSON
// numbers or strings depending on the client that produced them.
type wireOrder struct {
	Salt          json.RawMessage `json:"salt"`
	Maker         string          `json:"maker"`
	Signer        string          `json:"signer"`
	TokenID       json.RawMessage `json:"tokenId"`
	MakerAmount   json.RawMessage `json:"makerAmount"`
	TakerAmount   json.RawMessage `json:"takerAmount"`
	Side          json.RawMessage `json:"side"`
	SignatureType json.RawMessage `json:"signatureType"`
	Timestamp     json.RawMessage `json:"timestamp"`
	Expiration    json.RawMessage `json:"expiration"`
	Metadata      string          `json:"metadata"`
	Builder       string          `json:"builder"`
	Signature     string          `json:"signature"`
}

func invalidPayload(field string, cause error) error {
	e := venue.Ef(venue.Invalid, "Invalid order payload: bad %s", field).WithCode("invalid_order_payload")
	if cause != nil {
		e = e.WithCause(cause)
	}
	return e
}

// rawUint parses a JSON number or numeric string into a non-negative big.Int.
func rawUint(raw json.RawMessage, field string, required bool) (*big.Int, error) {
	s := strings.TrimSpace(string(raw))
	if s == "" || s == "null" {
		if required {
			return nil, invalidPayload(field, nil)
		}
		return new(big.Int), nil
	}
	s = strings.Trim(s, `"`)
	if s == "" && !required {
		return new(big.Int), nil
	}
	x, ok := new(big.Int).SetString(s, 10)
	if !ok || x.Sign() < 0 || x.BitLen() > 256 {
		return nil, invalidPayload(field, nil)
	}
	return x, nil
}

func rawUint64(raw json.RawMessage, field string, required bool) (uint64, error) {
	x, err := rawUint(raw, field, required)
	if err != nil {
		return 0, err
	}
	if !x.IsUint64() {
		return 0, invalidPayload(field, nil)
	}
	return x.Uint64(), nil
}

func parseAddress(s, field string) (common.Address, error) {
	if !common.IsHexAddress(s) {
		return common.Address{}, invalidPayload(field, nil)
	}
	return common.HexToAddress(s), nil
}

func parseBytes32(s, field string) ([32]byte, error) {
	var out [32]byte
	if s == "" {
		return out, nil
	}
	b, err := decodeHex(s)
	if err != nil || len(b) != 32 {
		return out, invalidPayload(field, err)
	}
	copy(out[:], b)
	return out, nil
}

func decodeHex(s string) ([]byte, error) {
	s = strings.TrimPrefix(strings.TrimPrefix(s, "0x"), "0X")
	return hex.DecodeString(s)
}

// UnmarshalJSON decodes the wire order. It accepts numbers as JSON numbers
// or strings and the side as "BUY"/"SELL" (or 0/1), so orders produced by any
// official client decode; all errors are venue.Invalid.
func (o *Order) UnmarshalJSON(b []byte) error {
	var w wireOrder
	if err := json.Unmarshal(b, &w); err != nil {
		return invalidPayload("json", err)
	}
	var out Order
	var err error
	if out.Salt, err = rawUint64(w.Salt, "salt", true); err != nil {
		return err
	}
	if out.Maker, err = parseAddress(w.Maker, "maker"); err != nil {
		return err
	}
	if out.Signer, err = parseAddress(w.Signer, "signer"); err != nil {
		return err
	}
	if out.TokenID, err = rawUint(w.TokenID, "tokenId", true); err != nil {
		return err
	}
	if out.MakerAmount, err = rawUint(w.MakerAmount, "makerAmount", true); err != nil {
		return err
	}
	if out.TakerAmount, err = rawUint(w.TakerAmount, "takerAmount", true); err != nil {
		return err
	}
	side := strings.Trim(strings.TrimSpace(string(w.Side)), `"`)
	switch strings.ToUpper(side) {
	case "BUY", "0":
		out.Side = Buy
	case "SELL", "1":
		out.Side = Sell
	default:
		return invalidPayload("side", nil)
	}
	st, err := rawUint64(w.SignatureType, "signatureType", true)
	if err != nil {
		return err
	}
	if st > uint64(SigPoly1271) {
		return invalidPayload("signatureType", nil)
	}
	out.SignatureType = SignatureType(st)
	if out.Timestamp, err = rawUint64(w.Timestamp, "timestamp", true); err != nil {
		return err
	}
	if out.Expiration, err = rawUint64(w.Expiration, "expiration", false); err != nil {
		return err
	}
	if out.Metadata, err = parseBytes32(w.Metadata, "metadata"); err != nil {
		return err
	}
	if out.Builder, err = parseBytes32(w.Builder, "builder"); err != nil {
		return err
	}
	if out.Signature, err = decodeHex(w.Signature); err != nil || len(out.Signature) == 0 {
		return invalidPayload("signature", err)
	}
	*o = out
	return nil
}

// PostOrderRequest is the body of POST /order (and one element of POST
// /orders). Field order is the wire key order of the official client.
type PostOrderRequest struct {
	DeferExec bool
	PostOnly  bool
	Order     Order
	// Owner is the API key the order is posted under.
	Owner     string
	OrderType OrderType
}

// MarshalJSON reproduces JSON.stringify(orderToJsonV2(...)) byte for byte.
func (r PostOrderRequest) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	if err := r.appendJSON(&b); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

func (r PostOrderRequest) appendJSON(b *bytes.Buffer) error {
	if !r.OrderType.Valid() {
		return fmt.Errorf("clob: invalid order type %q", string(r.OrderType))
	}
	b.WriteString(`{"deferExec":`)
	b.WriteString(strconv.FormatBool(r.DeferExec))
	b.WriteString(`,"postOnly":`)
	b.WriteString(strconv.FormatBool(r.PostOnly))
	b.WriteString(`,"order":`)
	if err := r.Order.appendJSON(b); err != nil {
		return err
	}
	b.WriteString(`,"owner":`)
	b.Write(jsonString(r.Owner))
	b.WriteString(`,"orderType":"`)
	b.WriteString(string(r.OrderType))
	b.WriteString(`"}`)
	return nil
}

// jsonString quotes s like JSON.stringify (no HTML escaping).
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // encoding a string cannot fail
	return bytes.TrimRight(b.Bytes(), "\n")
}

type wirePostOrder struct {
	DeferExec *bool           `json:"deferExec"`
	PostOnly  *bool           `json:"postOnly"`
	Order     json.RawMessage `json:"order"`
	Owner     string          `json:"owner"`
	OrderType string          `json:"orderType"`
}

// UnmarshalJSON decodes a POST /order body; missing booleans are false and
// a missing order type is GTC, as the venue defaults them.
func (r *PostOrderRequest) UnmarshalJSON(b []byte) error {
	var w wirePostOrder
	if err := json.Unmarshal(b, &w); err != nil {
		return invalidPayload("json", err)
	}
	if len(w.Order) == 0 {
		return invalidPayload("order", nil)
	}
	var o Order
	if err := o.UnmarshalJSON(w.Order); err != nil {
		return err
	}
	ot := GTC
	if w.OrderType != "" {
		var err error
		if ot, err = ParseOrderType(w.OrderType); err != nil {
			return err
		}
	}
	*r = PostOrderRequest{Order: o, Owner: w.Owner, OrderType: ot}
	if w.DeferExec != nil {
		r.DeferExec = *w.DeferExec
	}
	if w.PostOnly != nil {
		r.PostOnly = *w.PostOnly
	}
	return nil
}

// MarshalPostOrders encodes a POST /orders body (a JSON array).
func MarshalPostOrders(reqs []PostOrderRequest) ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, r := range reqs {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := r.appendJSON(&b); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}
