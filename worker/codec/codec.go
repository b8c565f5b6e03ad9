// Package codec encrypts Temporal payloads with AES-256-GCM so workflow
// inputs, results and failure details are unreadable to anyone with access
// to the Temporal server or its database, and serves the codec over HTTP so
// the Web UI can show them to operators.
package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/agent-trading/ats/models/errs"
)

// Payload metadata written by the codec.
const (
	// MetadataEncoding is the standard Temporal metadata key naming a
	// payload's encoding.
	MetadataEncoding = converter.MetadataEncoding
	// EncodingEncrypted is the encoding of payloads produced by this codec.
	EncodingEncrypted = "binary/encrypted"
	// MetadataKeyID names the key a payload was encrypted with.
	MetadataKeyID = "encryption-key-id"
)

// KeySize is the required key length: AES-256.
const KeySize = 32

// Codec is a converter.PayloadCodec encrypting whole payloads (data and
// metadata) with AES-256-GCM. It encrypts with its primary key and decrypts
// with any of its keys, chosen by the payload's key id, so keys can be
// rotated without breaking running workflows. It is safe for concurrent use.
type Codec struct {
	primary string
	aeads   map[string]cipher.AEAD
}

// New returns a codec encrypting with key and decrypting with key or any of
// previous. Every key must be KeySize bytes. The key id recorded in
// payloads is a truncated SHA-256 fingerprint of the key, which identifies
// it without revealing it.
func New(key []byte, previous ...[]byte) (*Codec, error) {
	c := &Codec{aeads: make(map[string]cipher.AEAD, 1+len(previous))}
	for i, k := range append([][]byte{key}, previous...) {
		if len(k) != KeySize {
			return nil, errs.Ef(errs.Invalid, "codec key must be %d bytes, got %d", KeySize, len(k))
		}
		block, err := aes.NewCipher(k)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "cannot create AES cipher")
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, errs.Wrap(errs.Internal, err, "cannot create AES-GCM")
		}
		id := KeyID(k)
		if i == 0 {
			c.primary = id
		}
		c.aeads[id] = aead
	}
	return c, nil
}

// KeyID returns the key id recorded for payloads encrypted with key.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// PrimaryKeyID is the id of the key new payloads are encrypted with.
func (c *Codec) PrimaryKeyID() string { return c.primary }

// Encode implements converter.PayloadCodec: each payload is serialised and
// sealed; the nonce is prepended to the ciphertext.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	aead := c.aeads[c.primary]
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		plain, err := proto.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("codec: marshal payload: %w", err)
		}
		nonce := make([]byte, aead.NonceSize(), aead.NonceSize()+len(plain)+aead.Overhead())
		if _, err := rand.Read(nonce); err != nil {
			return nil, fmt.Errorf("codec: nonce: %w", err)
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{
				MetadataEncoding: []byte(EncodingEncrypted),
				MetadataKeyID:    []byte(c.primary),
			},
			Data: aead.Seal(nonce, nonce, plain, []byte(c.primary)),
		}
	}
	return out, nil
}

// Decode implements converter.PayloadCodec. Payloads not produced by this
// codec pass through unchanged, so histories written before encryption was
// enabled stay readable. A payload with an unknown key id or that fails
// authentication (tampered, wrong key) is an error.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		if string(p.GetMetadata()[MetadataEncoding]) != EncodingEncrypted {
			out[i] = p
			continue
		}
		id := string(p.GetMetadata()[MetadataKeyID])
		aead, ok := c.aeads[id]
		if !ok {
			return nil, fmt.Errorf("codec: payload encrypted with unknown key %q", id)
		}
		data := p.GetData()
		if len(data) < aead.NonceSize() {
			return nil, fmt.Errorf("codec: encrypted payload too short")
		}
		plain, err := aead.Open(nil, data[:aead.NonceSize()], data[aead.NonceSize():], []byte(id))
		if err != nil {
			return nil, fmt.Errorf("codec: decrypt payload: %w", err)
		}
		var dec commonpb.Payload
		if err := proto.Unmarshal(plain, &dec); err != nil {
			return nil, fmt.Errorf("codec: unmarshal payload: %w", err)
		}
		out[i] = &dec
	}
	return out, nil
}

// DataConverter returns the default data converter wrapped with c. Use the
// same converter on every client and worker of a namespace.
func (c *Codec) DataConverter() converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}
