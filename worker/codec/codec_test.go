package codec

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
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

// Decode refuses every payload it did not write: an unencrypted one is
// what anyone who reaches the Temporal frontend can send (`temporal
// workflow update execute --input …`). Temporal's encoding of "no value"
// is the one exception.
func TestDecodeRefusesUnencrypted(t *testing.T) {
	c := mustCodec(t, newKey(t))
	bound := c.WithSerializationContext(converter.WorkflowSerializationContext{Namespace: "default", WorkflowID: "device-link/dl_1"})
	refused := map[string]*commonpb.Payload{
		"json/plain":           {Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`{"user_id":"usr_victim"}`)},
		"json/protobuf":        {Metadata: map[string][]byte{"encoding": []byte("json/protobuf")}, Data: []byte(`{}`)},
		"binary/plain":         {Metadata: map[string][]byte{"encoding": []byte("binary/plain")}, Data: []byte("x")},
		"no encoding":          {Data: []byte(`{"user_id":"usr_victim"}`)},
		"binary/null, data":    {Metadata: map[string][]byte{"encoding": []byte("binary/null")}, Data: []byte(`{"user_id":"x"}`)},
		"search-attribute-ish": {Metadata: map[string][]byte{"encoding": []byte("json/plain"), "type": []byte("Keyword")}, Data: []byte(`"usr_1"`)},
	}
	for name, p := range refused {
		t.Run(name, func(t *testing.T) {
			for _, cd := range []converter.PayloadCodec{c, bound} {
				if _, err := cd.Decode([]*commonpb.Payload{p}); err == nil {
					t.Fatal("Decode accepted an unencrypted payload")
				}
			}
		})
	}
	null := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("binary/null")}}
	out, err := bound.Decode([]*commonpb.Payload{null})
	if err != nil || !proto.Equal(out[0], null) {
		t.Fatalf("binary/null: %v, %v", out, err)
	}
	// Through the SDK's converter, as a worker decodes an update's input.
	var v map[string]string
	err = c.DataConverter().FromPayload(refused["json/plain"], &v)
	if err == nil {
		t.Fatalf("the data converter decoded a plaintext payload into %v", v)
	}
}

// legacyEncode writes a payload as the codec did before payloads were
// bound to their context: the key id is the only additional data.
func legacyEncode(t *testing.T, key []byte, p *commonpb.Payload) *commonpb.Payload {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := proto.Marshal(p)
	if err != nil {
		t.Fatal(err)
	}
	nonce := make([]byte, aead.NonceSize())
	if _, err := rand.Read(nonce); err != nil {
		t.Fatal(err)
	}
	id := KeyID(key)
	return &commonpb.Payload{
		Metadata: map[string][]byte{MetadataEncoding: []byte(EncodingEncrypted), MetadataKeyID: []byte(id)},
		Data:     aead.Seal(nonce, nonce, plain, []byte(id)),
	}
}

func TestLegacyPayloadsStillDecode(t *testing.T) {
	key := newKey(t)
	c := mustCodec(t, key)
	plain := &commonpb.Payload{Metadata: map[string][]byte{"encoding": []byte("json/plain")}, Data: []byte(`"from an old history"`)}
	old := legacyEncode(t, key, plain)
	bound := c.WithSerializationContext(converter.ActivitySerializationContext{Namespace: "default", WorkflowID: "order/ord_1", ActivityType: "SubmitOrder"})
	for _, cd := range []converter.PayloadCodec{c, bound, c.ForNamespace("default")} {
		out, err := cd.Decode([]*commonpb.Payload{old})
		if err != nil || !proto.Equal(out[0], plain) {
			t.Fatalf("legacy payload: %v, %v", out, err)
		}
	}
}

// A ciphertext is bound to the workflow (and activity) it was written for:
// moved anywhere else it is refused before any code sees it.
func TestCiphertextBoundToItsContext(t *testing.T) {
	c := mustCodec(t, newKey(t))
	dc := c.DataConverter()
	wf := func(ns, id string) converter.SerializationContext {
		return converter.WorkflowSerializationContext{Namespace: ns, WorkflowID: id}
	}
	act := func(id, typ string) converter.SerializationContext {
		return converter.ActivitySerializationContext{Namespace: "default", WorkflowID: id, ActivityType: typ, WorkflowType: "DeviceLink", TaskQueue: "ats"}
	}
	encode := func(sc converter.SerializationContext, v any) *commonpb.Payload {
		t.Helper()
		d := dc
		if sc != nil {
			d = converter.WithDataConverterSerializationContext(dc, sc)
		}
		p, err := d.ToPayload(v)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	decision := map[string]string{"user_id": "usr_victim"}
	approveOfA := encode(wf("default", "device-link/dl_A"), decision)
	activityOfA := encode(act("device-link/dl_A", "ApproveDeviceLink"), decision)
	unbound := encode(nil, decision)
	fromOperator, err := c.ForNamespace("default").Encode([]*commonpb.Payload{mustPlain(t, decision)})
	if err != nil {
		t.Fatal(err)
	}
	if got := string(approveOfA.Metadata[MetadataContext]); !strings.Contains(got, "device-link/dl_A") {
		t.Fatalf("context metadata %q", got)
	}
	tests := []struct {
		name string
		p    *commonpb.Payload
		into converter.SerializationContext
		ok   bool
	}{
		{"same workflow", approveOfA, wf("default", "device-link/dl_A"), true},
		{"another workflow", approveOfA, wf("default", "device-link/dl_B"), false},
		{"another namespace", approveOfA, wf("other", "device-link/dl_A"), false},
		{"same activity", activityOfA, act("device-link/dl_A", "ApproveDeviceLink"), true},
		{"another activity of the workflow", activityOfA, act("device-link/dl_A", "DenyDeviceLink"), false},
		{"the activity's workflow (its failures are read there)", activityOfA, wf("default", "device-link/dl_A"), true},
		{"activity of another workflow", activityOfA, act("device-link/dl_B", "ApproveDeviceLink"), false},
		{"written without a context, into a workflow", unbound, wf("default", "device-link/dl_A"), false},
		{"encoded by an operator, into a workflow", fromOperator[0], wf("default", "device-link/dl_A"), false},
		{"encoded by an operator, into an activity", fromOperator[0], act("device-link/dl_A", "ApproveDeviceLink"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got map[string]string
			err := converter.WithDataConverterSerializationContext(dc, tt.into).FromPayload(tt.p, &got)
			if tt.ok && (err != nil || got["user_id"] != "usr_victim") {
				t.Fatalf("decode = %v, %v", got, err)
			}
			if !tt.ok && err == nil {
				t.Fatalf("a ciphertext moved %s was accepted: %v", tt.name, got)
			}
		})
	}
	t.Run("context metadata is authenticated", func(t *testing.T) {
		p := proto.Clone(approveOfA).(*commonpb.Payload)
		p.Metadata[MetadataContext] = []byte(strings.ReplaceAll(string(p.Metadata[MetadataContext]), "dl_A", "dl_B"))
		var got map[string]string
		if err := converter.WithDataConverterSerializationContext(dc, wf("default", "device-link/dl_B")).FromPayload(p, &got); err == nil {
			t.Fatal("a payload relabelled with another workflow decrypted")
		}
	})
	t.Run("operators see any payload of their namespace", func(t *testing.T) {
		for _, p := range []*commonpb.Payload{approveOfA, activityOfA, unbound, fromOperator[0]} {
			if _, err := c.ForNamespace("default").Decode([]*commonpb.Payload{p}); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := c.ForNamespace("other").Decode([]*commonpb.Payload{approveOfA}); err == nil {
			t.Fatal("another namespace's codec decoded the payload")
		}
	})
}

func mustPlain(t *testing.T, v any) *commonpb.Payload {
	t.Helper()
	p, err := converter.GetDefaultDataConverter().ToPayload(v)
	if err != nil {
		t.Fatal(err)
	}
	return p
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
	srv := httptest.NewServer(NewHTTPHandler(c, "default"))
	defer srv.Close()

	plain, err := converter.GetDefaultDataConverter().ToPayloads("hello operator")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := protojson.Marshal(plain)
	post := func(path, contentType, namespace string, body []byte) (int, []byte) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, srv.URL+path, bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", contentType)
		if namespace != "" {
			req.Header.Set("X-Namespace", namespace)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, b
	}
	code, encBody := post("/encode", "application/json", "default", body)
	if code != http.StatusOK {
		t.Fatalf("encode: %d %s", code, encBody)
	}
	if bytes.Contains(encBody, []byte("hello operator")) {
		t.Fatal("encode response contains plaintext")
	}
	code, decBody := post("/decode", "application/json; charset=utf-8", "default", encBody)
	if code != http.StatusOK {
		t.Fatalf("decode: %d %s", code, decBody)
	}
	var dec commonpb.Payloads
	if err := protojson.Unmarshal(decBody, &dec); err != nil {
		t.Fatal(err)
	}
	var s string
	if err := converter.GetDefaultDataConverter().FromPayloads(&dec, &s); err != nil || s != "hello operator" {
		t.Fatalf("decoded %q, %v", s, err)
	}

	refusals := []struct {
		name, path, contentType, namespace string
		body                               []byte
		want                               int
	}{
		{"text/plain (no CORS preflight)", "/decode", "text/plain", "default", encBody, http.StatusUnsupportedMediaType},
		{"form", "/decode", "application/x-www-form-urlencoded", "default", encBody, http.StatusUnsupportedMediaType},
		{"no content type", "/decode", "", "default", encBody, http.StatusUnsupportedMediaType},
		{"another namespace", "/decode", "application/json", "other", encBody, http.StatusForbidden},
		{"unencrypted payload", "/decode", "application/json", "default", body, http.StatusBadRequest},
		{"not the protocol", "/decode", "application/json", "default", []byte(`[1,2]`), http.StatusBadRequest},
		{"unknown path", "/decrypt", "application/json", "default", encBody, http.StatusNotFound},
		{"too large", "/decode", "application/json", "default", bytes.Repeat([]byte(" "), MaxHTTPBodyBytes+1), http.StatusRequestEntityTooLarge},
	}
	for _, tt := range refusals {
		t.Run(tt.name, func(t *testing.T) {
			code, b := post(tt.path, tt.contentType, tt.namespace, tt.body)
			if code != tt.want {
				t.Fatalf("status %d, want %d: %s", code, tt.want, b)
			}
			if bytes.Contains(b, []byte("hello operator")) {
				t.Fatal("a refusal carries plaintext")
			}
		})
	}

	resp, err := http.Get(srv.URL + "/decode")
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
