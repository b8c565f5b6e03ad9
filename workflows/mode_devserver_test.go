package workflows_test

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/shopspring/decimal"
	"go.temporal.io/api/workflowservice/v1"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/intent/intenttest"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store/storetest"
	"github.com/agent-trading/ats/models/strategies"
	"github.com/agent-trading/ats/models/strategies/strategiestest"
	"github.com/agent-trading/ats/worker"
	"github.com/agent-trading/ats/worker/replaytest"
	"github.com/agent-trading/ats/workflows"
)

// TestModeSearchAttributeOnDevServer runs, on a real Temporal server, the
// workflows of a paper agent: a PRICE_ALERT whose LIMIT order rests (the
// strategy's workflow started by the strategy desk, its order's workflow
// as the strategy's child) and an order whose workflow the order desk's
// client starts. The Web UI's query `Mode` = "paper" finds the three, with
// the mode in their memo; `Mode` = "live" finds none of them, and a live
// agent's strategy is found by it. (MODE is a keyword of Temporal's SQL
// query parser: the name is quoted in backticks.)
func TestModeSearchAttributeOnDevServer(t *testing.T) {
	keys := intenttest.Keys(t)
	fx := strategiestest.New(t, storetest.NewSQLite(t), nil)
	if err := fx.Store.DB().Model(&models.Agent{}).Where("id = ?", fx.AgentID).Update("mode", models.ModePaper).Error; err != nil {
		t.Fatal(err)
	}
	fx.Placer.Set(func(p *strategiestest.Placer) { p.Status = models.OrderOpen })
	ctx, c := onDevServerWithOrders(t, venueOrder(fx), &activities.Strategies{Engine: fx.Engine, Intents: keys})
	sc := workflows.StrategyDeskClient{Client: c, Intents: keys}
	svc := &workflows.StrategyDesk{Runs: sc, Strategies: &strategies.Service{Store: fx.Store, Resolver: strategiestest.Resolver{}}}
	st, err := svc.Create(ctx, fx.Actor(), strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.35,"size":10,"orderType":"LIMIT"}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode != models.ModePaper {
		t.Fatalf("the strategy of a paper agent is %q", st.Mode)
	}
	fx.Book.Set(strategiestest.Token, "0.30", "0.34")
	if err := sc.Hint(ctx, st.ID); err != nil {
		t.Fatal(err)
	}
	var res strategies.State
	if err := c.GetWorkflow(ctx, st.ID, "").Get(ctx, &res); err != nil || res.Status != strategies.StatusCompleted || res.Mode != models.ModePaper {
		t.Fatalf("result %+v %v", res, err)
	}
	recs, err := fx.Store.ListStrategyExecutions(ctx, st.ID, 10)
	if err != nil || len(recs) != 1 || recs[0].OrderID == nil {
		t.Fatalf("executions %+v %v", recs, err)
	}
	child := workflows.WorkflowID(workflows.KindOrder, *recs[0].OrderID)

	// An order the agent places itself: its workflow is started by the
	// order desk's client with the order's mode.
	acc, err := fx.Placer.Accept(ctx, orders.Principal{AgentID: fx.AgentID, UserID: fx.UserID}, orders.PlaceRequest{
		TokenID: strategiestest.Token, Side: "BUY", Type: "LIMIT", Price: decimal.RequireFromString("0.2"), Size: decimal.RequireFromString("5")})
	if err != nil || acc.Await == nil {
		t.Fatalf("accept: %+v %v", acc, err)
	}
	oc := workflows.OrderDeskClient{Client: c, Intents: keys}
	if err := oc.Resume(ctx, acc.Await.ID, fx.UserID, fx.AgentID, strategiestest.Token, models.ModePaper); err != nil {
		t.Fatal(err)
	}
	direct := workflows.WorkflowID(workflows.KindOrder, acc.Await.ID)

	// A live agent's strategy beside it.
	live := &models.Agent{UserID: fx.UserID, Name: "live strategist", Scopes: "read trade cancel redeem", Mode: models.ModeLive}
	if err := fx.Store.CreateAgent(ctx, live); err != nil {
		t.Fatal(err)
	}
	lst, err := svc.Create(ctx, strategies.Actor{By: strategies.ByAgent, AgentID: live.ID, UserID: fx.UserID}, strategies.CreateRequest{Type: "PRICE_ALERT",
		Config:    json.RawMessage(`{"tokenId":"1001","side":"BUY","triggerCondition":"PRICE_LTE","triggerPrice":0.05,"size":10,"orderType":"LIMIT"}`),
		MaxBudget: strategies.D(decimal.RequireFromString("20"))})
	if err != nil {
		t.Fatal(err)
	}

	dc, _, err := worker.Converters(replaytest.HistoryCodecKey) // the test client's: memos are encrypted as payloads are
	if err != nil {
		t.Fatal(err)
	}
	find := func(query string, want ...string) {
		t.Helper()
		sort.Strings(want)
		deadline := time.Now().Add(30 * time.Second)
		for {
			resp, err := c.ListWorkflow(ctx, &workflowservice.ListWorkflowExecutionsRequest{Namespace: "default", Query: query})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, e := range resp.Executions {
				got = append(got, e.Execution.WorkflowId)
				var mode string
				if p := e.Memo.GetFields()[workflows.MemoMode]; p == nil || dc.FromPayload(p, &mode) != nil || !strings.Contains(query, `"`+mode+`"`) {
					t.Fatalf("%s: the memo of %s has mode %q", query, e.Execution.WorkflowId, mode)
				}
			}
			sort.Strings(got)
			if strings.Join(got, " ") == strings.Join(want, " ") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s finds %v, want %v", query, got, want)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
	users := ` AND UserId="` + fx.UserID + `"`
	find("`Mode`=\"paper\""+users, st.ID, child, direct)
	find("`Mode`=\"paper\" AND WorkflowKind=\"order\""+users, child, direct)
	find("`Mode`=\"live\""+users, lst.ID)
}
