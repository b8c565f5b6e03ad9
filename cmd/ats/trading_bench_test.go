package main

import (
	"context"
	"encoding/base64"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/venue/clob"
)

// BenchmarkOrderPath measures placing a resting limit order end to end —
// POST /orders in, through validation, the budget reservation, the order
// workflow (update-with-start) and its Submit activity, to the signed post
// on the sandbox venue and back — next to the same wallet posting the
// same kind of order directly with the Go venue client, in the same run.
// Each sub-benchmark reports p50 and p99 latencies.
//
//	go test -run '^$' -bench BenchmarkOrderPath -benchtime 200x ./cmd/ats/
func BenchmarkOrderPath(b *testing.B) {
	e := newTradingEnv(b, tradingOpts{})
	tr := e.newTrader(b, 0)
	m := e.newMarket(b, "Will the benchmark be fast", "0.5")
	token := m.TokenIDs[0]
	// Orders at 0.01 rest far below the book and hold 0.05 USDC each, so
	// thousands fit in the demo wallet.
	body := map[string]any{"tokenId": token, "side": "BUY", "price": 0.01, "size": 5}

	b.Run("api", func(b *testing.B) { benchPlacements(b, e, tr, body) })

	// The checks alone (a dry run: market, wallet, balance, allowance,
	// budget read), to tell validation from placement.
	b.Run("api-dry-run", func(b *testing.B) {
		dry := map[string]any{"tokenId": token, "side": "BUY", "price": 0.01, "size": 5, "dryRun": true}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			t0 := time.Now()
			status, resp := e.call(b, tr.key, "POST", "/orders", dry)
			lat = append(lat, time.Since(t0))
			if status != http.StatusOK {
				b.Fatalf("POST /orders dry run: %d %s", status, resp)
			}
		}
		reportLatency(b, lat)
	})

	b.Run("direct", func(b *testing.B) {
		ctx := context.Background()
		signer, err := e.svc.wallets.Signer(ctx, tr.userID)
		if err != nil {
			b.Fatal(err)
		}
		creds, err := e.svc.wallets.Creds(ctx, tr.userID)
		if err != nil {
			b.Fatal(err)
		}
		t := &clob.Trader{
			Client: clob.NewClient(clob.ConfigFor(e.sb.Network())).WithCreds(creds, signer.Address()), Network: e.sb.Network(),
			Signer: signer, SignatureType: clob.SignatureType(tr.wallet.SignatureType), Funder: common.HexToAddress(tr.wallet.Address),
		}
		args := clob.LimitOrderArgs{TokenID: token, Side: clob.Buy, Price: decimal.RequireFromString("0.01"), Size: decimal.NewFromInt(5)}
		if _, err := t.PlaceLimitOrder(ctx, args); err != nil { // warm the market-info cache like the service's
			b.Fatal(err)
		}
		lat := make([]time.Duration, 0, b.N)
		b.ResetTimer()
		for range b.N {
			t0 := time.Now()
			_, err := t.PlaceLimitOrder(ctx, args)
			lat = append(lat, time.Since(t0))
			if err != nil {
				b.Fatal(err)
			}
		}
		reportLatency(b, lat)
	})
}

// benchPlacements posts body b.N times as tr and reports the latencies
// and how many placements answered 202 (slower than the API waits).
func benchPlacements(b *testing.B, e *tradingEnv, tr trader, body map[string]any) {
	lat := make([]time.Duration, 0, b.N)
	pending := 0
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		status, resp := e.call(b, tr.key, "POST", "/orders", body)
		lat = append(lat, time.Since(t0))
		switch status {
		case http.StatusOK:
		case http.StatusAccepted: // placement slower than the API waits
			pending++
		default:
			b.Fatalf("POST /orders: %d %s", status, resp)
		}
	}
	reportLatency(b, lat)
	b.ReportMetric(float64(pending), "pending-202s")
}

// BenchmarkOrderPathSplit is BenchmarkOrderPath's "api" with the worker
// in its own process (`ats worker`, as production deploys it next to
// `ats api`): the placement's activity runs there.
//
//	go test -run '^$' -bench BenchmarkOrderPathSplit -benchtime 200x ./cmd/ats/
func BenchmarkOrderPathSplit(b *testing.B) {
	bin := buildATS(b)
	e := newTradingEnv(b, tradingOpts{noWorker: true})
	tr := e.newTrader(b, 0)
	m := e.newMarket(b, "Will the split benchmark be fast", "0.5")
	keyFile := filepath.Join(e.dataDir, "master.key")
	if err := os.WriteFile(keyFile, []byte(base64.StdEncoding.EncodeToString(e.master)), 0o600); err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(bin, "worker", "--ops-listen", "127.0.0.1:0", "--data-dir", e.dataDir, "--temporal", e.dev.FrontendAddr(),
		"--venue", "sandbox", "--sandbox-addr", strings.TrimPrefix(e.sb.URL(), "http://"), "--master-key-file", keyFile, "--log-level", "warn")
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cmd.Process.Kill(); _, _ = cmd.Process.Wait() })
	benchPlacements(b, e, tr, map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.01, "size": 5})
}

func reportLatency(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 {
		i := int(p * float64(len(lat)-1))
		return float64(lat[i].Microseconds()) / 1000
	}
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.99), "p99-ms")
}

// BenchmarkFillVisible measures how long a fill takes to be recorded: a
// resting BUY of one trader is filled by another trader's SELL posted
// directly to the sandbox venue (the match happens inside that post);
// the clock runs from just before that post until the stored order reads
// FILLED — the user channel's event, the router, the signal, a workflow
// task, the SyncOrder activity (venue read, fill, budget, position) and
// its write. GET /orders and positions read the stored order. Reports p50
// and p95.
//
//	go test -run '^$' -bench BenchmarkFillVisible -benchtime 50x ./cmd/ats/
func BenchmarkFillVisible(b *testing.B) {
	e := newTradingEnv(b, tradingOpts{})
	maker, taker := e.newTrader(b, 0), e.newTrader(b, 0)
	m := e.newMarket(b, "Will the fill be quick", "0.5")
	token := m.TokenIDs[0]
	ctx := context.Background()
	size := decimal.NewFromInt(5)
	status, body := e.call(b, taker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": 0.99, "size": 5 * (b.N + 1), "type": "MARKET"})
	if status != http.StatusOK {
		b.Fatalf("the taker's buy: %d %s", status, body)
	}
	signer, err := e.svc.wallets.Signer(ctx, taker.userID)
	if err != nil {
		b.Fatal(err)
	}
	creds, err := e.svc.wallets.Creds(ctx, taker.userID)
	if err != nil {
		b.Fatal(err)
	}
	direct := &clob.Trader{
		Client: clob.NewClient(clob.ConfigFor(e.sb.Network())).WithCreds(creds, signer.Address()), Network: e.sb.Network(),
		Signer: signer, SignatureType: clob.SignatureType(taker.wallet.SignatureType), Funder: common.HexToAddress(taker.wallet.Address),
	}
	// one measures one fill; false when the taker's sell met another bid
	// (the sandbox's synthetic book moved in between) and the maker's
	// order was left unfilled, which is then cancelled and tried again.
	one := func() (time.Duration, bool) {
		book, err := e.svc.orders.CLOB.OrderBook(ctx, token)
		if err != nil {
			b.Fatal(err)
		}
		bestBid := decimal.Zero
		for _, l := range book.Bids {
			bestBid = decimal.Max(bestBid, l.Price)
		}
		price := bestBid.Add(decimal.RequireFromString("0.01"))
		status, body := e.call(b, maker.key, "POST", "/orders", map[string]any{"tokenId": token, "side": "BUY", "price": price, "size": 5})
		if status != http.StatusOK || dataOrder(b, body).Status != models.OrderOpen {
			b.Fatalf("the maker's resting buy: %d %s", status, body)
		}
		id := dataOrder(b, body).ID
		time.Sleep(50 * time.Millisecond) // the order rests before it is hit, as a real one would
		t0 := time.Now()
		if _, err := direct.PlaceLimitOrder(ctx, clob.LimitOrderArgs{TokenID: token, Side: clob.Sell, Price: price, Size: size}); err != nil {
			b.Fatal(err)
		}
		for {
			o, err := e.store.OrderByID(ctx, id)
			if err != nil {
				b.Fatal(err)
			}
			if o.Status == models.OrderFilled {
				return time.Since(t0), true
			}
			if time.Since(t0) > 10*time.Second {
				// GET /orders/{id} asks the venue itself.
				_, body := e.call(b, maker.key, "GET", "/orders/"+id, nil)
				if st := dataOrder(b, body).Status; st != models.OrderOpen {
					b.Fatalf("order %s is %s on the venue but was never recorded by its workflow", id, st)
				}
				if status, body := e.call(b, maker.key, "DELETE", "/orders/"+id, nil); status != http.StatusOK {
					b.Fatalf("cancel the unmatched order: %d %s", status, body)
				}
				return 0, false
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
	measure := func() time.Duration {
		for range 5 {
			if d, ok := one(); ok {
				return d
			}
		}
		b.Fatal("the taker's sell never met the maker's bid")
		return 0
	}
	measure() // warm: the maker's stream comes up
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		lat = append(lat, measure())
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	q := func(p float64) float64 { return float64(lat[int(p*float64(len(lat)-1))].Microseconds()) / 1000 }
	b.ReportMetric(q(0.50), "p50-ms")
	b.ReportMetric(q(0.95), "p95-ms")
	b.ReportMetric(q(1), "max-ms")
}
