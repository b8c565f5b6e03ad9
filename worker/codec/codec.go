// Package codec encrypts Temporal payloads with AES-256-GCM so workflow
// inputs, results and failure details are unreadable to anyone with access
// to the Temporal server or its database, binds each ciphertext to the
// workflow it was written for, refuses anything it did not write, and
// serves the codec over HTTP so the Web UI can show payloads to operators.
//
// # What a ciphertext is bound to
//
// Temporal tells a codec where a payload is being written or read (its
// serialization context): the namespace and workflow id of every workflow
// payload (input, result, signal, update, query, memo, continue-as-new), and
// also the activity type of an activity's input, result and failure. The
// codec writes that context into the payload's metadata (in clear: ids are
// visible in Temporal anyway) and authenticates it as the AEAD's additional
// data together with the key id. On reading it checks the context it is
// given against the one the payload carries:
//
//   - namespace and workflow id must be equal, so a ciphertext copied into
//     another workflow — another user's redeem, another link's approval —
//     is refused before any code sees it;
//   - the activity type must be equal when both sides name one, so an
//     activity's input cannot be replayed as another activity's;
//   - a ciphertext written without a workflow (what the HTTP /encode
//     endpoint produces for operators) is refused wherever a workflow reads.
//
// Not bound, and why that is enough: the run id (a later run of the same
// workflow id — a new redeem of the same wallet — can read an earlier
// run's payloads; every action such a payload could repeat is idempotent or
// carries a proof naming exactly what it does, see models/intent), the
// event's position (an update's payload can be re-sent to the same
// workflow: it repeats the same decision), and payloads of schedules'
// per-run workflow ids (ours take no input). Payloads written before
// binding existed (no context in the metadata) still decrypt, so running
// workflows and recorded histories replay; they are bound to the key only,
// and what they could be moved into checks proofs or database records.
//
// # What is refused
//
// Every payload must be one this codec wrote (binary/encrypted under a
// known key), with one exception: binary/null without data, Temporal's
// encoding of "no value", which carries nothing to trust and is what any
// client achieves by sending no payload at all. Everything else Temporal
// writes unencrypted never reaches a payload codec: search attributes and
// context-propagation headers (the SDK encodes them with its default
// converter, the server indexes them), memos of older SDKs (the Web UI
// decodes memos itself), and the payloads of Temporal's own system
// workflows (scheduler, batcher), which are not ours to vouch for.
package codec

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"

	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/vault"
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
	// MetadataContext holds, as JSON, the context a payload is bound to
	// (Context). Payloads without it predate binding.
	MetadataContext = "encryption-context"
)

// encodingNull is Temporal's encoding of a nil value (no data).
const encodingNull = converter.MetadataEncodingNil

// KeySize is the required key length: AES-256.
const KeySize = 32

// Context is where a payload belongs: Temporal's serialization context as
// the codec binds it.
type Context struct {
	Namespace  string `json:"ns"`
	WorkflowID string `json:"wf"`
	// Activity is the activity type of an activity's input, result or
	// failure; empty for workflow payloads.
	Activity string `json:"act,omitempty"`
}

// Codec is a converter.PayloadCodec encrypting whole payloads (data and
// metadata) with AES-256-GCM. It encrypts with its primary key and decrypts
// with any of its keys, chosen by the payload's key id, so keys can be
// rotated without breaking running workflows. It is safe for concurrent
// use; WithSerializationContext returns a copy bound to a context.
type Codec struct {
	primary string
	aeads   map[string]cipher.AEAD
	// ctx is where this copy encodes and decodes: nil when the caller gave
	// no context (then payloads are written unbound and read unchecked).
	ctx *Context
	// namespaceOnly: ctx names a namespace only and decoding checks just
	// that (the HTTP codec, which is told nothing else).
	namespaceOnly bool
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

// FromMasterKeys is the codec of a process: keyed from the master key, and
// from previous master keys so payloads written before a rotation stay
// readable. Every codec user derives its key here.
func FromMasterKeys(master []byte, previous ...[]byte) (*Codec, error) {
	key := vault.DeriveKey(master, vault.PurposeTemporalPayloads)
	var prev [][]byte
	for _, p := range previous {
		prev = append(prev, vault.DeriveKey(p, vault.PurposeTemporalPayloads))
	}
	return New(key, prev...)
}

// KeyID returns the key id recorded for payloads encrypted with key.
func KeyID(key []byte) string {
	sum := sha256.Sum256(key)
	return "sha256:" + hex.EncodeToString(sum[:8])
}

// PrimaryKeyID is the id of the key new payloads are encrypted with.
func (c *Codec) PrimaryKeyID() string { return c.primary }

// WithSerializationContext implements
// converter.PayloadCodecWithSerializationContext: the SDK calls it with the
// workflow or activity a payload belongs to.
func (c *Codec) WithSerializationContext(sc converter.SerializationContext) converter.PayloadCodec {
	switch s := sc.(type) {
	case converter.WorkflowSerializationContext:
		return c.bound(&Context{Namespace: s.Namespace, WorkflowID: s.WorkflowID}, false)
	case converter.ActivitySerializationContext:
		return c.bound(&Context{Namespace: s.Namespace, WorkflowID: s.WorkflowID, Activity: s.ActivityType}, false)
	}
	return c
}

// ForNamespace is the codec the HTTP endpoint uses: payloads it encodes
// are bound to namespace and no workflow (so no workflow accepts them),
// and it decodes any payload of namespace for display.
func (c *Codec) ForNamespace(namespace string) *Codec {
	return c.bound(&Context{Namespace: namespace}, true)
}

func (c *Codec) bound(ctx *Context, namespaceOnly bool) *Codec {
	cp := *c
	cp.ctx, cp.namespaceOnly = ctx, namespaceOnly
	return &cp
}

// ad is the additional data of a bound payload: the key id and the
// context exactly as stored, length-prefixed.
func ad(keyID string, ctxJSON []byte) []byte {
	out := []byte("ats-payload/v2")
	for _, p := range [][]byte{[]byte(keyID), ctxJSON} {
		out = binary.BigEndian.AppendUint32(out, uint32(len(p)))
		out = append(out, p...)
	}
	return out
}

// Encode implements converter.PayloadCodec: each payload is serialised and
// sealed, bound to the codec's context; the nonce is prepended to the
// ciphertext.
func (c *Codec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	aead := c.aeads[c.primary]
	bound := Context{}
	if c.ctx != nil {
		bound = *c.ctx
	}
	ctxJSON, err := json.Marshal(bound)
	if err != nil {
		return nil, fmt.Errorf("codec: context: %w", err)
	}
	aad := ad(c.primary, ctxJSON)
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
				MetadataContext:  ctxJSON,
			},
			Data: aead.Seal(nonce, nonce, plain, aad),
		}
	}
	return out, nil
}

// Decode implements converter.PayloadCodec. A payload this codec did not
// write (see the package documentation for the one exception), one with
// an unknown key id, one that fails authentication (tampered, wrong key),
// or one bound to another context than the codec's is an error.
func (c *Codec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		dec, err := c.decode(p)
		if err != nil {
			return nil, err
		}
		out[i] = dec
	}
	return out, nil
}

func (c *Codec) decode(p *commonpb.Payload) (*commonpb.Payload, error) {
	md := p.GetMetadata()
	switch enc := string(md[MetadataEncoding]); {
	case enc == encodingNull && len(p.GetData()) == 0:
		return p, nil
	case enc != EncodingEncrypted:
		return nil, fmt.Errorf("codec: refusing a payload this service did not encrypt (encoding %q)", enc)
	}
	id := string(md[MetadataKeyID])
	aead, ok := c.aeads[id]
	if !ok {
		return nil, fmt.Errorf("codec: payload encrypted with unknown key %q", id)
	}
	data := p.GetData()
	if len(data) < aead.NonceSize() {
		return nil, fmt.Errorf("codec: encrypted payload too short")
	}
	ctxJSON, bound := md[MetadataContext]
	aad := []byte(id) // payloads written before binding
	if bound {
		aad = ad(id, ctxJSON)
	}
	plain, err := aead.Open(nil, data[:aead.NonceSize()], data[aead.NonceSize():], aad)
	if err != nil {
		return nil, fmt.Errorf("codec: decrypt payload: %w", err)
	}
	if bound {
		var got Context
		if err := json.Unmarshal(ctxJSON, &got); err != nil {
			return nil, fmt.Errorf("codec: payload context: %w", err)
		}
		if err := c.check(got); err != nil {
			return nil, err
		}
	}
	var dec commonpb.Payload
	if err := proto.Unmarshal(plain, &dec); err != nil {
		return nil, fmt.Errorf("codec: unmarshal payload: %w", err)
	}
	return &dec, nil
}

// check compares the context a payload is bound to with the codec's.
func (c *Codec) check(got Context) error {
	want := c.ctx
	if want == nil {
		return nil
	}
	if c.namespaceOnly {
		// Display: a payload bound to no namespace holds nothing another
		// namespace's operators may not see.
		if got.Namespace != "" && got.Namespace != want.Namespace {
			return fmt.Errorf("codec: payload belongs to namespace %q, not %q", got.Namespace, want.Namespace)
		}
		return nil
	}
	if got.Namespace != want.Namespace {
		return fmt.Errorf("codec: payload belongs to namespace %q, not %q", got.Namespace, want.Namespace)
	}
	if got.WorkflowID != want.WorkflowID {
		return fmt.Errorf("codec: payload belongs to workflow %q, not %q", got.WorkflowID, want.WorkflowID)
	}
	if got.Activity != "" && want.Activity != "" && got.Activity != want.Activity {
		return fmt.Errorf("codec: payload belongs to activity %q, not %q", got.Activity, want.Activity)
	}
	return nil
}

// DataConverter returns the default data converter wrapped with c. Use the
// same converter on every client and worker of a namespace.
func (c *Codec) DataConverter() converter.DataConverter {
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), c)
}
