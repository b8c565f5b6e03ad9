package server

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/clob"
)

// apiKey is one set of L2 credentials and the EOA that owns it.
type apiKey struct {
	creds   clob.Creds
	address common.Address
	nonce   uint64
	created time.Time
}

// keyStore holds the API keys. Credentials are derived from a per-instance
// secret, the address and the nonce (HMAC-SHA256), so derive-api-key is
// deterministic, as the live venue's is.
type keyStore struct {
	secret []byte
	mu     sync.Mutex
	byKey  map[string]*apiKey
	byAddr map[common.Address]map[uint64]*apiKey
}

func newKeyStore(secret []byte) *keyStore {
	if len(secret) == 0 {
		secret = []byte("sandbox")
	}
	return &keyStore{secret: secret, byKey: map[string]*apiKey{}, byAddr: map[common.Address]map[uint64]*apiKey{}}
}

func (k *keyStore) derive(addr common.Address, nonce uint64) clob.Creds {
	mac := func(label string) []byte {
		m := hmac.New(sha256.New, k.secret)
		m.Write([]byte(label))
		m.Write(addr.Bytes())
		var n [8]byte
		binary.BigEndian.PutUint64(n[:], nonce)
		m.Write(n[:])
		return m.Sum(nil)
	}
	id, _ := uuid.FromBytes(mac("key")[:16]) // 16 bytes never fail
	id[6] = id[6]&0x0f | 0x40                // version 4 layout, like the venue's keys
	id[8] = id[8]&0x3f | 0x80
	return clob.Creds{
		Key:        id.String(),
		Secret:     base64.URLEncoding.EncodeToString(mac("secret")),
		Passphrase: hex.EncodeToString(mac("passphrase")[:32]),
	}
}

// create registers the key of (addr, nonce); it fails when it exists, as the
// live venue's create does (clients then derive).
func (k *keyStore) create(addr common.Address, nonce uint64, now time.Time) (clob.Creds, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if _, ok := k.byAddr[addr][nonce]; ok {
		return clob.Creds{}, false
	}
	return k.registerLocked(addr, nonce, now).creds, true
}

// deriveOrCreate returns the key of (addr, nonce), registering it if needed.
func (k *keyStore) deriveOrCreate(addr common.Address, nonce uint64, now time.Time) clob.Creds {
	k.mu.Lock()
	defer k.mu.Unlock()
	if a, ok := k.byAddr[addr][nonce]; ok {
		return a.creds
	}
	return k.registerLocked(addr, nonce, now).creds
}

func (k *keyStore) registerLocked(addr common.Address, nonce uint64, now time.Time) *apiKey {
	a := &apiKey{creds: k.derive(addr, nonce), address: addr, nonce: nonce, created: now}
	k.byKey[a.creds.Key] = a
	if k.byAddr[addr] == nil {
		k.byAddr[addr] = map[uint64]*apiKey{}
	}
	k.byAddr[addr][nonce] = a
	return a
}

func (k *keyStore) lookup(key string) (*apiKey, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	a, ok := k.byKey[key]
	return a, ok
}

func (k *keyStore) keysOf(addr common.Address) []string {
	k.mu.Lock()
	defer k.mu.Unlock()
	var out []string
	for _, a := range k.byAddr[addr] {
		out = append(out, a.creds.Key)
	}
	sort.Strings(out)
	return out
}

func (k *keyStore) remove(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if a, ok := k.byKey[key]; ok {
		delete(k.byKey, key)
		delete(k.byAddr[a.address], a.nonce)
	}
}

func errL2() error { return venue.E(venue.Unauthorized, "Unauthorized/Invalid api key") }

// l1 verifies ClobAuth headers and their freshness.
func (s *Server) l1(r *http.Request) (common.Address, uint64, error) {
	addr, nonce, ts, err := clob.VerifyL1(r.Header, s.cfg.Network.ChainID)
	if err != nil {
		return common.Address{}, 0, venue.E(venue.Unauthorized, "Invalid L1 Request headers").WithCause(err)
	}
	if d := s.cfg.Clock().Sub(time.Unix(ts, 0)); d > L1MaxSkew || d < -L1MaxSkew {
		return common.Address{}, 0, venue.E(venue.Unauthorized, "Invalid L1 Request headers")
	}
	return addr, nonce, nil
}

// l2 verifies HMAC headers over the method, the path without the /clob
// prefix and query (what clients sign), and the raw body, which it returns.
func (s *Server) l2(r *http.Request) (*apiKey, []byte, error) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 4<<20))
	if err != nil {
		return nil, nil, invalid("could not read the request body")
	}
	req, err := clob.ParseL2(r.Header)
	if err != nil {
		return nil, nil, errL2()
	}
	key, ok := s.keys.lookup(req.APIKey)
	if !ok {
		return nil, nil, errL2()
	}
	got, err := clob.VerifyL2(r.Header, key.creds, r.Method, r.URL.Path, body)
	if err != nil || got.Address != key.address {
		return nil, nil, errL2()
	}
	if d := s.cfg.Clock().Sub(time.Unix(got.Timestamp, 0)); d > L2MaxSkew || d < -L2MaxSkew {
		return nil, nil, errL2()
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return key, body, nil
}

type l2Handler func(w http.ResponseWriter, r *http.Request, key *apiKey, body []byte)

func (s *Server) withL2(h l2Handler) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		key, body, err := s.l2(r)
		if err != nil {
			writeError(w, err)
			return
		}
		h(w, r, key, body)
	}
}

func credsJSON(c clob.Creds) map[string]string {
	return map[string]string{"apiKey": c.Key, "secret": c.Secret, "passphrase": c.Passphrase}
}

func (s *Server) createAPIKey(w http.ResponseWriter, r *http.Request) {
	addr, nonce, err := s.l1(r)
	if err != nil {
		writeError(w, err)
		return
	}
	c, ok := s.keys.create(addr, nonce, s.cfg.Clock())
	if !ok {
		writeError(w, invalid("Could not create api key"))
		return
	}
	writeJSON(w, http.StatusOK, credsJSON(c))
}

func (s *Server) deriveAPIKey(w http.ResponseWriter, r *http.Request) {
	addr, nonce, err := s.l1(r)
	if err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, credsJSON(s.keys.deriveOrCreate(addr, nonce, s.cfg.Clock())))
}

func (s *Server) listAPIKeys(w http.ResponseWriter, _ *http.Request, key *apiKey, _ []byte) {
	writeJSON(w, http.StatusOK, map[string]any{"apiKeys": s.keys.keysOf(key.address)})
}

func (s *Server) deleteAPIKey(w http.ResponseWriter, _ *http.Request, key *apiKey, _ []byte) {
	s.keys.remove(key.creds.Key)
	writeJSON(w, http.StatusOK, "OK")
}
