// Package server is the sandbox venue's HTTP surface: one handler with the
// prefixes /clob (the Polymarket CLOB REST API), /gamma (the Gamma markets
// API), /data-api (positions, activity, trades), /control (the sandbox
// control API of the operator surface) and /rpc, /rpc/ws (the chain's
// JSON-RPC, mounted from the chain's handler).
//
// Paths, field names, string-versus-number types, cursor pagination and
// error strings follow the live venue (see the protocol reference §1, §4,
// §6, §8.2), because the same client code talks to both.
package server

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"log/slog"
	"math/big"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"

	"github.com/agent-trading/ats/sandbox/exchange"
	"github.com/agent-trading/ats/sandbox/markets"
	"github.com/agent-trading/ats/venue"
	"github.com/agent-trading/ats/venue/chain"
	"github.com/agent-trading/ats/venue/micro"
	"github.com/agent-trading/ats/venue/network"
)

// L2MaxSkew is how far an L2 request's POLY_TIMESTAMP may be from the
// server's clock. The live venue's window is undocumented; 30 s accepts any
// client that reads the clock right before signing (or uses GET /time) and
// bounds the replay of a captured request.
const L2MaxSkew = 30 * time.Second

// L1MaxSkew bounds the age of ClobAuth headers: a captured L1 header set
// would otherwise mint the wallet's API credentials forever.
const L1MaxSkew = 5 * time.Minute

// heartbeatTimeout is the live venue's dead-man switch: once a key has sent
// a heartbeat, missing the next one for this long cancels its orders.
const heartbeatTimeout = 10 * time.Second

// WalletResolver decides whether an API key's EOA may trade for a funder
// (proxy, Safe, or a deposit wallet it owns on chain). venue/chain.Client
// implements it.
type WalletResolver interface {
	DetectKind(ctx context.Context, owner, funder common.Address) (chain.Kind, error)
}

// Config wires a server.
type Config struct {
	Venue   *markets.Venue
	Network network.Network
	// RPC and RPCWS serve the chain's JSON-RPC over HTTP and WebSocket; nil
	// answers 503.
	RPC, RPCWS http.Handler
	// Wallets checks proxy/Safe/deposit-wallet ownership; nil falls back to
	// CREATE2 derivation for proxy and Safe and the ERC-7739 envelope for
	// deposit wallets.
	Wallets WalletResolver
	// RefuseEOAMakers rejects signature-type-0 orders, as the live venue
	// can be configured to.
	RefuseEOAMakers bool
	// Journal, when set, keeps the API keys on disk (Restore loads them).
	Journal Journal
	Clock   func() time.Time
	Logger  *slog.Logger
}

// Server is the sandbox HTTP surface.
type Server struct {
	cfg    Config
	log    *slog.Logger
	v      *markets.Venue
	e      *exchange.Engine
	keys   *keyStore
	hbMu   sync.Mutex
	hb     map[string]heartbeat // api key → last heartbeat
	mux    *http.ServeMux
	fundMu sync.Mutex
	// streams serves the WebSocket channels /ws/market and /ws/user.
	streams *streams
}

type heartbeat struct {
	id   string
	last time.Time
}

// New builds a server.
func New(cfg Config) *Server {
	if cfg.Clock == nil {
		cfg.Clock = time.Now
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{
		cfg: cfg, log: cfg.Logger, v: cfg.Venue, e: cfg.Venue.Engine(),
		keys: newKeyStore(cfg.Journal), hb: map[string]heartbeat{},
	}
	s.streams = newStreams(s)
	s.e.SetEventSink(s.streams)
	s.mux = http.NewServeMux()
	s.mux.HandleFunc("GET /ws/market", s.streams.serve(false))
	s.mux.HandleFunc("GET /ws/user", s.streams.serve(true))
	s.mux.Handle("/clob/", http.StripPrefix("/clob", s.clobRoutes()))
	s.mux.Handle("/gamma/", http.StripPrefix("/gamma", s.gammaRoutes()))
	s.mux.Handle("/data-api/", http.StripPrefix("/data-api", s.dataRoutes()))
	s.mux.Handle("/control/", s.controlRoutes())
	s.mux.Handle("/rpc/ws", orUnavailable(cfg.RPCWS))
	s.mux.Handle("/rpc", orUnavailable(cfg.RPC))
	s.mux.Handle("/rpc/", http.StripPrefix("/rpc", orUnavailable(cfg.RPC)))
	return s
}

func orUnavailable(h http.Handler) http.Handler {
	if h != nil {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		writeError(w, venue.E(venue.Unavailable, "chain RPC is not available"))
	})
}

// Handler is the whole surface.
func (s *Server) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The RPC handlers expect the path with the mount prefix removed.
		if r.URL.Path == "/rpc/ws" && s.cfg.RPCWS != nil {
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/"
			s.cfg.RPCWS.ServeHTTP(w, r2)
			return
		}
		if r.URL.Path == "/rpc" && s.cfg.RPC != nil {
			r2 := r.Clone(r.Context())
			r2.URL.Path = "/"
			s.cfg.RPC.ServeHTTP(w, r2)
			return
		}
		s.mux.ServeHTTP(w, r)
	})
}

// Journal is where the server keeps the API keys (sandbox/persist.Store).
type Journal interface {
	exchange.Journal
	Put(key string, value any) uint64
	Delete(key string) uint64
}

// Restore loads the kept API keys; call it before serving.
func (s *Server) Restore() error { return s.keys.restore() }

// CloseStreams closes every WebSocket of the /ws channels (hijacked
// connections outlive http.Server.Shutdown).
func (s *Server) CloseStreams() { s.streams.Close() }

// SweepHeartbeats cancels the orders of keys whose heartbeat lapsed; the
// sandbox calls it every second.
func (s *Server) SweepHeartbeats() {
	now := s.cfg.Clock()
	var dead []string
	s.hbMu.Lock()
	for k, h := range s.hb {
		if now.Sub(h.last) > heartbeatTimeout {
			dead = append(dead, k)
			delete(s.hb, k)
		}
	}
	s.hbMu.Unlock()
	for _, k := range dead {
		ids := s.e.CancelWhere(k, "", "")
		s.log.Info("heartbeat lapsed; orders cancelled", "api_key", k, "orders", len(ids))
	}
}

// statusFor maps an error kind to the venue's status codes: the CLOB
// answers most refusals with 400.
func statusFor(err error) int {
	switch venue.CategoryOf(err) {
	case venue.Invalid, venue.Conflict, venue.Rejected:
		return http.StatusBadRequest
	case venue.Unauthorized:
		return http.StatusUnauthorized
	case venue.Forbidden:
		return http.StatusForbidden
	case venue.NotFound:
		return http.StatusNotFound
	case venue.RateLimited:
		return http.StatusTooManyRequests
	case venue.Unavailable:
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		http.Error(w, `{"error":"could not encode the response"}`, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(bytes.TrimRight(buf.Bytes(), "\n"))
}

func writeError(w http.ResponseWriter, err error) {
	writeJSON(w, statusFor(err), map[string]string{"error": venue.MessageOf(err)})
}

func invalid(msg string) error { return venue.E(venue.Invalid, msg) }

// Cursor pagination: the cursor is base64 of the offset; "MA==" is the
// first page and "LTE=" (base64 "-1") the end.
const (
	firstCursor = "MA=="
	endCursor   = "LTE="
)

func parseCursor(c string) (int, error) {
	if c == "" {
		return 0, nil
	}
	if c == endCursor {
		return -1, nil
	}
	b, err := base64.StdEncoding.DecodeString(c)
	if err != nil {
		return 0, invalid("invalid next_cursor")
	}
	n, err := strconv.Atoi(string(b))
	if err != nil || n < 0 {
		return 0, invalid("invalid next_cursor")
	}
	return n, nil
}

// page slices items from the cursor and returns the envelope.
func page[T any](items []T, cursor string, size int) (map[string]any, error) {
	off, err := parseCursor(cursor)
	if err != nil {
		return nil, err
	}
	if off < 0 || off > len(items) {
		off = len(items)
	}
	end := min(off+size, len(items))
	next := endCursor
	if end < len(items) {
		next = base64.StdEncoding.EncodeToString([]byte(strconv.Itoa(end)))
	}
	data := items[off:end]
	if data == nil {
		data = []T{}
	}
	return map[string]any{"data": data, "next_cursor": next, "limit": size, "count": len(data)}, nil
}

// num renders micro-units as a JSON number with the decimal's exact digits.
func num(v uint64) json.Number { return json.Number(micro.String(v)) }

func bigOrZero(x *big.Int) string {
	if x == nil {
		return "0"
	}
	return x.String()
}

func isoTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02T15:04:05Z")
}

func queryList(r *http.Request, key string) []string {
	var out []string
	for _, v := range r.URL.Query()[key] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
