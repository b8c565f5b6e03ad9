package codec

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
)

func newKey(t *testing.T) []byte {
	t.Helper()
	k := make([]byte, KeySize)
	if _, err := rand.Read(k); err != nil {
		t.Fatal(err)
	}
	return k
}

func mustCodec(t *testing.T, key []byte, previous ...[]byte) *Codec {
	t.Helper()
	c, err := New(key, previous...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

type orderInput struct {
	ClientOrderID string `json:"client_order_id"`
	TokenID       string `json:"token_id"`
	Price         string `json:"price"`
}

func TestRoundTripHidesPlaintext(t *testing.T) {
	c := mustCodec(t, newKey(t))
	dc := c.DataConverter()
	in := orderInput{ClientOrderID: "ord_plaintext_marker_42", TokenID: "7123456789", Price: "0.57"}
	payload, err := dc.ToPayload(in)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := proto.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{in.ClientOrderID, in.TokenID, "json/plain", `"price"`} {
		if bytes.Contains(raw, []byte(secret)) {
			t.Errorf("encoded payload contains plaintext %q", secret)
		}
	}
	if got := string(payload.Metadata[MetadataEncoding]); got != EncodingEncrypted {
		t.Errorf("encoding = %q, want %q", got, EncodingEncrypted)
	}
	if got := string(payload.Metadata[MetadataKeyID]); got != c.PrimaryKeyID() {
		t.Errorf("key id = %q, want %q", got, c.PrimaryKeyID())
	}
	var out orderInput
	if err := dc.FromPayload(payload, &out); err != nil {
		t.Fatal(err)
	}
	if out != in {
		t.Fatalf("round trip = %+v, want %+v", out, in)
	}
}

func TestEncryptionIsRandomised(t *testing.T) {
	c := mustCodec(t, newKey(t))
	p := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`"same"`)}
	a, err := c.Encode([]*commonpb.Payload{p})
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.Encode([]*commonpb.Payload{p})
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Equal(a[0].Data, b[0].Data) {
		t.Fatal("two encryptions of the same payload are identical: nonce reuse")
	}
}

func TestDecodeRejects(t *testing.T) {
	key := newKey(t)
	c := mustCodec(t, key)
	plain := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`{"a":1}`)}
	enc, err := c.Encode([]*commonpb.Payload{plain})
	if err != nil {
		t.Fatal(err)
	}
	clone := func() *commonpb.Payload { return proto.Clone(enc[0]).(*commonpb.Payload) }
	tests := []struct {
		name   string
		codec  *Codec
		mutate func(p *commonpb.Payload)
	}{
		{"flipped ciphertext bit", c, func(p *commonpb.Payload) { p.Data[len(p.Data)-1] ^= 1 }},
		{"flipped nonce bit", c, func(p *commonpb.Payload) { p.Data[0] ^= 0x80 }},
		{"truncated", c, func(p *commonpb.Payload) { p.Data = p.Data[:5] }},
		{"empty data", c, func(p *commonpb.Payload) { p.Data = nil }},
		{"unknown key id", c, func(p *commonpb.Payload) { p.Metadata[MetadataKeyID] = []byte("sha256:0000000000000000") }},
		{"wrong key", mustCodec(t, newKey(t)), func(p *commonpb.Payload) {}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := clone()
			tt.mutate(p)
			if _, err := tt.codec.Decode([]*commonpb.Payload{p}); err == nil {
				t.Fatal("Decode succeeded, want an error")
			}
		})
	}
	t.Run("key id bound to ciphertext", func(t *testing.T) {
		// Re-labelling a payload with another key's id must not decrypt
		// even if that key were somehow the right one: the id is
		// authenticated data.
		other := newKey(t)
		multi := mustCodec(t, other, key)
		p := clone()
		p.Metadata[MetadataKeyID] = []byte(KeyID(other))
		if _, err := multi.Decode([]*commonpb.Payload{p}); err == nil {
			t.Fatal("Decode succeeded with a relabelled key id")
		}
	})
}

func TestDecodePassesThroughUnencrypted(t *testing.T) {
	c := mustCodec(t, newKey(t))
	plain := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`{"legacy":true}`)}
	out, err := c.Decode([]*commonpb.Payload{plain})
	if err != nil {
		t.Fatal(err)
	}
	if !proto.Equal(out[0], plain) {
		t.Fatalf("Decode changed an unencrypted payload: %v", out[0])
	}
}

func TestKeyRotation(t *testing.T) {
	oldKey, newKey_ := newKey(t), newKey(t)
	oldC := mustCodec(t, oldKey)
	rotated := mustCodec(t, newKey_, oldKey)
	p, err := oldC.DataConverter().ToPayload("written before rotation")
	if err != nil {
		t.Fatal(err)
	}
	var s string
	if err := rotated.DataConverter().FromPayload(p, &s); err != nil || s != "written before rotation" {
		t.Fatalf("rotated codec cannot read old payload: %q, %v", s, err)
	}
	p2, err := rotated.DataConverter().ToPayload("after")
	if err != nil {
		t.Fatal(err)
	}
	if string(p2.Metadata[MetadataKeyID]) != KeyID(newKey_) {
		t.Fatal("rotated codec does not encrypt with the new key")
	}
	if err := oldC.DataConverter().FromPayload(p2, &s); err == nil {
		t.Fatal("old codec decrypted a payload of the new key")
	}
}

func TestNewRejectsBadKeys(t *testing.T) {
	for _, n := range []int{0, 16, 31, 33, 64} {
		if _, err := New(make([]byte, n)); err == nil {
			t.Errorf("New accepted a %d-byte key", n)
		}
	}
	if _, err := New(newKey(t), make([]byte, 5)); err == nil {
		t.Error("New accepted a bad previous key")
	}
}

func TestKeyIDDoesNotRevealKey(t *testing.T) {
	key := newKey(t)
	id := KeyID(key)
	if strings.Contains(id, hex.EncodeToString(key[:4])) || strings.Contains(id, string(key[:4])) {
		t.Fatal("key id contains key material")
	}
	if KeyID(key) != id || KeyID(newKey(t)) == id {
		t.Fatal("key id not a stable fingerprint")
	}
}

func TestHTTPHandler(t *testing.T) {
	c := mustCodec(t, newKey(t))
	const ui = "http://127.0.0.1:8233"
	srv := httptest.NewServer(NewHTTPHandler(c, ui+"/"))
	defer srv.Close()

	plain, err := converter.GetDefaultDataConverter().ToPayloads("hello operator")
	if err != nil {
		t.Fatal(err)
	}
	post := func(path, origin string, body []byte) *http.Response {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	body, _ := protojson.Marshal(plain)
	resp := post("/default/encode", ui, body)
	encBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("encode: %s %s", resp.Status, encBody)
	}
	if got := resp.Header.Get("Access-Control-Allow-Origin"); got != ui {
		t.Errorf("CORS origin = %q, want %q", got, ui)
	}
	if bytes.Contains(encBody, []byte("hello operator")) {
		t.Fatal("encode response contains plaintext")
	}

	resp = post("/default/decode", "http://evil.example", encBody)
	decBody, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("decode: %s %s", resp.Status, decBody)
	}
	if resp.Header.Get("Access-Control-Allow-Origin") != "" {
		t.Error("CORS headers sent to a foreign origin")
	}
	var dec commonpb.Payloads
	if err := protojson.Unmarshal(decBody, &dec); err != nil {
		t.Fatal(err)
	}
	var s string
	if err := converter.GetDefaultDataConverter().FromPayloads(&dec, &s); err != nil || s != "hello operator" {
		t.Fatalf("decoded %q, %v", s, err)
	}

	// Preflight from the UI.
	req, _ := http.NewRequest(http.MethodOptions, srv.URL+"/default/decode", nil)
	req.Header.Set("Origin", ui)
	req.Header.Set("Access-Control-Request-Method", "POST")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || resp.Header.Get("Access-Control-Allow-Headers") == "" {
		t.Fatalf("preflight: %s, headers %v", resp.Status, resp.Header)
	}

	// GET is not part of the protocol.
	resp, err = http.Get(srv.URL + "/default/decode")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusMethodNotAllowed {
		t.Fatalf("GET: %s", resp.Status)
	}
}

func BenchmarkEncodeDecode1KiB(b *testing.B) {
	key := make([]byte, KeySize)
	c, err := New(key)
	if err != nil {
		b.Fatal(err)
	}
	p := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: bytes.Repeat([]byte("x"), 1024)}
	in := []*commonpb.Payload{p}
	b.SetBytes(1024)
	b.ReportAllocs()
	for b.Loop() {
		enc, err := c.Encode(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := c.Decode(enc); err != nil {
			b.Fatal(err)
		}
	}
}
