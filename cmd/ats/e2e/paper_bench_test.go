package e2e

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/secret"
	"github.com/agent-trading/ats/venue/clob"
)

// BenchmarkPaperVsLivePlacement places, b.N times each and interleaved, a
// live agent's resting LIMIT order (through the whole stack to the
// sandbox venue: sign, post) and its paper sibling's same order (the same
// stack, matched by the paper exchange against the sandbox's book: one
// book read, no post), on `ats dev`'s wiring, and reports both latencies'
// p50 and p99. It also checks the paper orders never reached the venue:
// the wallet's open orders there are the live agent's alone.
//
//	go test -run '^$' -bench BenchmarkPaperVsLivePlacement -benchtime 100x ./cmd/ats/e2e/
func BenchmarkPaperVsLivePlacement(b *testing.B) {
	_, o := benchVariant(b)
	e := newTradingEnv(b, o)
	live := e.newTrader(b, 0)
	plain, hash, prefix := secret.NewAPIKey()
	a := &models.Agent{UserID: live.userID, Name: "paper twin", Scopes: "read trade cancel redeem", RateLimitPerMinute: 100_000, Mode: models.ModePaper}
	if err := e.store.CreateAgentWithKey(context.Background(), a, &models.APIKey{Hash: hash, DisplayPrefix: prefix}); err != nil {
		b.Fatal(err)
	}
	paper := trader{userID: live.userID, agentID: a.ID, key: plain, wallet: live.wallet}
	m := e.newMarket(b, "Will paper place faster than live", "0.5")
	direct := e.directTrader(b, live)
	// Far below the book: each order rests and holds 0.05.
	body := map[string]any{"tokenId": m.TokenIDs[0], "side": "BUY", "price": 0.01, "size": 5}
	place := func(tr trader, mode string) time.Duration {
		t0 := time.Now()
		status, resp := e.call(b, tr.key, "POST", "/orders", body)
		d := time.Since(t0)
		if status != http.StatusOK {
			b.Fatalf("POST /orders: %d %s", status, resp)
		}
		var o struct {
			Order struct {
				Mode string `json:"mode"`
			} `json:"order"`
		}
		if err := json.Unmarshal(resp["data"], &o); err != nil || o.Order.Mode != mode {
			b.Fatalf("placed %s, want a %s order: %v %s", o.Order.Mode, mode, err, resp["data"])
		}
		return d
	}
	for range 5 { // warm both paths
		place(live, models.ModeLive)
		place(paper, models.ModePaper)
	}
	lat := map[string][]time.Duration{}
	b.ResetTimer()
	for range b.N {
		lat["live"] = append(lat["live"], place(live, models.ModeLive))
		lat["paper"] = append(lat["paper"], place(paper, models.ModePaper))
	}
	b.StopTimer()
	for _, k := range []string{"live", "paper"} {
		p50, p99 := quantiles(lat[k])
		b.ReportMetric(p50, k+"-p50-ms")
		b.ReportMetric(p99, k+"-p99-ms")
	}
	if avg, err := loadAverage(); err == nil {
		b.ReportMetric(avg, "loadavg")
	}
	open, err := direct.Client.GetOpenOrders(context.Background(), clob.OpenOrderParams{})
	if err != nil {
		b.Fatal(err)
	}
	if want := 5 + b.N; len(open) != want {
		b.Fatalf("the venue holds %d open orders of the wallet, want the live agent's %d: paper orders reached it", len(open), want)
	}
}
