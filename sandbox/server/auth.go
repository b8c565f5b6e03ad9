package server

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"io"
	"net/http"
	"sort"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/google/uuid"

	"github.com/agent-trading/ats/sandbox/exchange"
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

// keyStore holds the API keys, one per (address, nonce) as on the live
// venue: create-api-key makes a new random one (and refuses when the pair
// has one), derive-api-key returns the existing one (and refuses when there
// is none), delete removes it. With a journal the keys are kept on disk.
type keyStore struct {
	journal Journal // nil: in memory only
	mu      sync.Mutex
	byKey   map[string]*apiKey
	byAddr  map[common.Address]map[uint64]*apiKey
}

func newKeyStore(j Journal) *keyStore {
	return &keyStore{journal: j, byKey: map[string]*apiKey{}, byAddr: map[common.Address]map[uint64]*apiKey{}}
}

// keyPrefix is the journal's key prefix for API keys.
const keyPrefix = "s/k/"

// savedKey is an API key as kept.
type savedKey struct {
	Key        string         `json:"key"`
	Secret     string         `json:"secret"`
	Passphrase string         `json:"passphrase"`
	Address    common.Address `json:"address"`
	Nonce      uint64         `json:"nonce"`
	Created    time.Time      `json:"created"`
}

// restore loads the kept keys.
func (k *keyStore) restore() error {
	if k.journal == nil {
		return nil
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	return exchange.ScanJournal(k.journal, keyPrefix, func(_ string, sk savedKey) error {
		k.addLocked(&apiKey{creds: clob.Creds{Key: sk.Key, Secret: sk.Secret, Passphrase: sk.Passphrase},
			address: sk.Address, nonce: sk.Nonce, created: sk.Created})
		return nil
	})
}

// newCreds makes fresh random credentials in the venue's formats: a UUID
// key, a base64url secret and a hex passphrase.
func newCreds() (clob.Creds, error) {
	var secret [32]byte
	var pass [32]byte
	if _, err := rand.Read(secret[:]); err != nil {
		return clob.Creds{}, err
	}
	if _, err := rand.Read(pass[:]); err != nil {
		return clob.Creds{}, err
	}
	return clob.Creds{
		Key:        uuid.NewString(),
		Secret:     base64.URLEncoding.EncodeToString(secret[:]),
		Passphrase: hex.EncodeToString(pass[:]),
	}, nil
}

// create registers a new key for (addr, nonce); ok is false when the pair
// has one, as the live venue's create fails (clients then derive).
func (k *keyStore) create(addr common.Address, nonce uint64, now time.Time) (c clob.Creds, ok bool, err error) {
	c, err = newCreds()
	if err != nil {
		return clob.Creds{}, false, venue.Wrap(venue.Internal, err, "could not make credentials")
	}
	k.mu.Lock()
	if _, exists := k.byAddr[addr][nonce]; exists {
		k.mu.Unlock()
		return clob.Creds{}, false, nil
	}
	a := &apiKey{creds: c, address: addr, nonce: nonce, created: now}
	k.addLocked(a)
	var seq uint64
	if k.journal != nil {
		seq = k.journal.Put(keyPrefix+c.Key, savedKey{Key: c.Key, Secret: c.Secret, Passphrase: c.Passphrase,
			Address: addr, Nonce: nonce, Created: now})
	}
	k.mu.Unlock()
	if err := k.durable(seq); err != nil {
		return clob.Creds{}, false, err
	}
	return c, true, nil
}

// derive returns the key of (addr, nonce), if it has one.
func (k *keyStore) derive(addr common.Address, nonce uint64) (clob.Creds, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	a, ok := k.byAddr[addr][nonce]
	if !ok {
		return clob.Creds{}, false
	}
	return a.creds, true
}

func (k *keyStore) addLocked(a *apiKey) {
	k.byKey[a.creds.Key] = a
	if k.byAddr[a.address] == nil {
		k.byAddr[a.address] = map[uint64]*apiKey{}
	}
	k.byAddr[a.address][a.nonce] = a
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

func (k *keyStore) remove(key string) error {
	k.mu.Lock()
	var seq uint64
	if a, ok := k.byKey[key]; ok {
		delete(k.byKey, key)
		delete(k.byAddr[a.address], a.nonce)
		if k.journal != nil {
			seq = k.journal.Delete(keyPrefix + key)
		}
	}
	k.mu.Unlock()
	return k.durable(seq)
}

func (k *keyStore) durable(seq uint64) error { return exchange.WaitDurable(k.journal, seq) }

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
	c, ok, err := s.keys.create(addr, nonce, s.cfg.Clock())
	switch {
	case err != nil:
		writeError(w, err)
	case !ok:
		writeError(w, invalid("Could not create api key"))
	default:
		writeJSON(w, http.StatusOK, credsJSON(c))
	}
}

// deriveAPIKey returns the existing key of the address and nonce; the live
// venue refuses when there is none (clients create first).
func (s *Server) deriveAPIKey(w http.ResponseWriter, r *http.Request) {
	addr, nonce, err := s.l1(r)
	if err != nil {
		writeError(w, err)
		return
	}
	c, ok := s.keys.derive(addr, nonce)
	if !ok {
		writeError(w, invalid("Could not derive api key!"))
		return
	}
	writeJSON(w, http.StatusOK, credsJSON(c))
}

func (s *Server) listAPIKeys(w http.ResponseWriter, _ *http.Request, key *apiKey, _ []byte) {
	writeJSON(w, http.StatusOK, map[string]any{"apiKeys": s.keys.keysOf(key.address)})
}

func (s *Server) deleteAPIKey(w http.ResponseWriter, _ *http.Request, key *apiKey, _ []byte) {
	if err := s.keys.remove(key.creds.Key); err != nil {
		writeError(w, err)
		return
	}
	writeJSON(w, http.StatusOK, "OK")
}
