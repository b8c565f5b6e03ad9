package portfolio

import (
	"context"
	"slices"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/micro"
)

// Order statuses a view can filter by: each stored status, and "open" for
// every status an order can still fill in.
const StatusOpen = "open"

// OrderStatuses are the order filter's choices, in the order shown.
var OrderStatuses = []string{StatusOpen, models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled,
	models.OrderFilled, models.OrderCancelled, models.OrderFailed}

// statusesOf maps a status filter to stored statuses; "" is every status.
func statusesOf(status string) ([]string, error) {
	switch status {
	case "":
		return nil, nil
	case StatusOpen:
		return []string{models.OrderPending, models.OrderOpen, models.OrderPartiallyFilled}, nil
	}
	st := strings.ToUpper(status)
	if slices.Contains(OrderStatuses[1:], st) {
		return []string{st}, nil
	}
	return nil, errs.Ef(errs.Invalid, "unknown order status %q", status).WithCode(errs.CodeInvalidStatus)
}

// Query filters the views across agents; zero fields don't filter. From
// and To bound the time (of placing for orders, of the trade for fills):
// From inclusive, To exclusive.
type Query struct {
	AgentID     string
	Status      string
	ConditionID string
	From, To    time.Time
	// Limit: default 50, at most 1000 (an export). Offset skips rows.
	Limit, Offset int
}

// OrderRow is an order with the agent that placed it.
type OrderRow struct {
	orders.Order
	AgentID, AgentName string
}

// names maps the user's agents' ids to their names.
func (s *Service) names(ctx context.Context, userID string) (map[string]string, error) {
	list, err := s.Agents.List(ctx, userID)
	if err != nil {
		return nil, err
	}
	m := make(map[string]string, len(list))
	for _, a := range list {
		m[a.ID] = a.Name
	}
	return m, nil
}

// Orders lists the user's orders across agents, newest first, and whether
// more follow.
func (s *Service) Orders(ctx context.Context, userID string, q Query) ([]OrderRow, bool, error) {
	statuses, err := statusesOf(q.Status)
	if err != nil {
		return nil, false, err
	}
	names, err := s.names(ctx, userID)
	if err != nil {
		return nil, false, err
	}
	rows, more, err := s.Store.ListUserOrders(ctx, store.UserOrderFilter{UserID: userID, AgentID: q.AgentID, Statuses: statuses,
		ConditionID: q.ConditionID, From: q.From, To: q.To, Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return nil, false, err
	}
	out := make([]OrderRow, len(rows))
	for i := range rows {
		out[i] = OrderRow{Order: orders.View(&rows[i]), AgentID: rows[i].AgentID, AgentName: names[rows[i].AgentID]}
	}
	return out, more, nil
}

// Fill is one trade of one of the user's orders.
type Fill struct {
	ID, OrderID, AgentID, AgentName string
	StrategyID                      string
	Time                            time.Time
	Side                            string
	TokenID, ConditionID            string
	Market, Outcome                 string
	Price, Size, Fee                decimal.Decimal
	// Value is what the trade moved: price × size, in USDC.
	Value  decimal.Decimal
	TxHash string
}

func fillOf(f store.UserFill, names map[string]string) Fill {
	out := Fill{ID: f.ID, OrderID: f.OrderID, AgentID: f.AgentID, AgentName: names[f.AgentID], Time: f.Time.UTC(),
		Side: f.Side, TokenID: f.TokenID, ConditionID: f.ConditionID, Market: f.Question, Outcome: f.Outcome,
		Price: micro.Decimal(f.PriceMicro), Size: micro.Decimal(f.SizeMicro), Fee: micro.Decimal(f.FeeMicro), TxHash: f.TxHash}
	if f.StrategyID != nil {
		out.StrategyID = *f.StrategyID
	}
	out.Value = out.Price.Mul(out.Size).Round(6)
	return out
}

// Fills lists the user's fills across agents, newest first (Status is
// ignored), and whether more follow.
func (s *Service) Fills(ctx context.Context, userID string, q Query) ([]Fill, bool, error) {
	names, err := s.names(ctx, userID)
	if err != nil {
		return nil, false, err
	}
	rows, more, err := s.Store.ListUserFills(ctx, store.UserFillFilter{UserID: userID, AgentID: q.AgentID, ConditionID: q.ConditionID,
		From: q.From, To: q.To, Limit: q.Limit, Offset: q.Offset})
	if err != nil {
		return nil, false, err
	}
	out := make([]Fill, len(rows))
	for i, f := range rows {
		out[i] = fillOf(f, names)
	}
	return out, more, nil
}

// Transition is one status an order entered.
type Transition struct {
	From, To string
	Time     time.Time
}

// OrderDetail is an order with its lifecycle, its fills and who placed it.
type OrderDetail struct {
	OrderRow
	// Transitions are the statuses it entered, oldest first (empty for
	// orders placed before the service recorded them).
	Transitions []Transition
	Fills       []Fill
	// StrategyType is the type of the strategy that placed it ("" for the
	// agent's own orders).
	StrategyType string
	// FeesPaid sums the fills' fees.
	FeesPaid decimal.Decimal
}

// Order returns the user's order id, whichever agent placed it; another
// user's is NotFound.
func (s *Service) Order(ctx context.Context, userID, id string) (OrderDetail, error) {
	if !models.HasPrefix(id, models.PrefixOrder) {
		return OrderDetail{}, errs.E(errs.NotFound, "order not found")
	}
	o, err := s.Store.OrderForUser(ctx, userID, id)
	if err != nil {
		return OrderDetail{}, err
	}
	names, err := s.names(ctx, userID)
	if err != nil {
		return OrderDetail{}, err
	}
	d := OrderDetail{OrderRow: OrderRow{Order: orders.View(o), AgentID: o.AgentID, AgentName: names[o.AgentID]}}
	ts, err := s.Store.OrderTransitions(ctx, id)
	if err != nil {
		return OrderDetail{}, err
	}
	for _, t := range ts {
		d.Transitions = append(d.Transitions, Transition{From: t.From, To: t.To, Time: t.Time.UTC()})
	}
	fills, _, err := s.Store.ListUserFills(ctx, store.UserFillFilter{UserID: userID, OrderID: id, Limit: 1000})
	if err != nil {
		return OrderDetail{}, err
	}
	// Oldest first on the order's own page: its story in order.
	for i := len(fills) - 1; i >= 0; i-- {
		f := fillOf(fills[i], names)
		d.Fills = append(d.Fills, f)
		d.FeesPaid = d.FeesPaid.Add(f.Fee)
	}
	if o.StrategyID != nil {
		st, err := s.Store.StrategyByID(ctx, *o.StrategyID)
		switch {
		case err == nil && st.UserID == userID:
			d.StrategyType = st.Type
		case err != nil && !errs.Is(err, errs.NotFound):
			return OrderDetail{}, err
		}
	}
	return d, nil
}

// Markets lists the markets the user's agents placed orders in, for the
// views' market filter.
func (s *Service) Markets(ctx context.Context, userID string) ([]store.Market, error) {
	return s.Store.UserMarkets(ctx, userID)
}

// PositionList lists the user's positions across agents (or one agent's)
// with status (positions' filters: open, settled, redeemable, all) and in
// one market when conditionID is set, valued at current prices (their
// totals per mode: SummaryByMode). Agents whose positions cannot be
// priced just now are named in unavailable; the rest is listed.
func (s *Service) PositionList(ctx context.Context, userID, agentID, status, conditionID string) ([]PositionRow, []string, error) {
	if s.Positions == nil {
		return nil, nil, errs.E(errs.Transient, "trading is not configured on this server")
	}
	rows, err := s.AgentRows(ctx, userID)
	if err != nil {
		return nil, nil, err
	}
	var out []PositionRow
	var unavailable []string
	for _, a := range rows {
		if agentID != "" && a.ID != agentID {
			continue
		}
		list, err := s.Positions.List(ctx, a.ID, status, false)
		if err != nil {
			if !transient(err) {
				return nil, nil, err
			}
			unavailable = append(unavailable, "positions of "+a.Name)
			continue
		}
		for _, it := range list.Positions {
			if conditionID != "" && it.ConditionID != conditionID {
				continue
			}
			out = append(out, PositionRow{AgentID: a.ID, AgentName: a.Name, Mode: a.Mode, Item: it})
		}
	}
	return out, unavailable, nil
}

// FillPrices returns the average fill price of the user's orders among
// ids that traded (the strategy chart marks executions at what they
// paid, not at their limit).
func (s *Service) FillPrices(ctx context.Context, userID, agentID string, ids []string) (map[string]decimal.Decimal, error) {
	rows, err := s.Store.OrdersByIDs(ctx, agentID, ids)
	if err != nil {
		return nil, err
	}
	out := map[string]decimal.Decimal{}
	for _, o := range rows {
		if o.UserID == userID && o.FilledSizeMicro > 0 && o.AvgFillPriceMicro > 0 {
			out[o.ID] = micro.Decimal(o.AvgFillPriceMicro)
		}
	}
	return out, nil
}

// OpenTokens lists the tokens of the user's open positions, whose prices
// the dashboard's live pages follow.
func (s *Service) OpenTokens(ctx context.Context, userID string) ([]string, error) {
	held, err := s.Store.HeldPositionsOfUser(ctx, userID)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, p := range held {
		if p.Status == models.PositionOpen && !slices.Contains(out, p.TokenID) {
			out = append(out, p.TokenID)
		}
	}
	return out, nil
}
