// Package positions is the position bounded context: an agent's holding in
// an outcome token, derived from the fills of its orders (Recompute), valued
// at market or at the resolved payout (List), and closed with one sell
// through the order service (Close).
//
// A position is never edited by hand: Recompute folds the token's fills in
// time order and nets out what the settlements service recorded as
// redeemed, so replaying it is harmless and two orders in one token can
// recompute at the same time. Statuses: open (shares held), closed (sold
// down to zero), and, once the market resolved on chain, redeemable (the
// shares pay out) or settled (nothing left to redeem).
package positions

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/ethereum/go-ethereum/common"
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/orders"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/venue/clob"
	"github.com/agent-trading/ats/venue/micro"
)

// PriceSource gives current prices (USDC per share, 0–1) of outcome tokens.
// Tokens without a price (no book) are left out of the map. fresh bypasses
// any cache (the API's source=clob). MidpointPrices implements it.
type PriceSource interface {
	Prices(ctx context.Context, tokenIDs []string, fresh bool) (map[string]decimal.Decimal, error)
}

// Resolutions reads a condition's resolution from the chain: the payout
// numerators by outcome index and their denominator, zero while the market
// is unresolved. venue/chain.Client implements it.
type Resolutions interface {
	Payouts(ctx context.Context, conditionID common.Hash) (numerators []*big.Int, denominator *big.Int, err error)
}

// BookSource gives a token's order book (bids, tick size) to price a
// close. venue/clob.Client implements it.
type BookSource interface {
	OrderBook(ctx context.Context, tokenID string) (*clob.OrderBook, error)
}

// MarketSource gives a market's tokens in outcome order, which is the
// index of each token's payout numerator. venue/clob.Client implements it.
type MarketSource interface {
	Market(ctx context.Context, conditionID string) (*clob.Market, error)
}

// Service computes, lists and closes positions. Store is required;
// Recompute needs nothing else. List needs Prices, Resolutions and
// Markets; PlanClose needs Books.
type Service struct {
	Store       *store.Store
	Prices      PriceSource
	Resolutions Resolutions
	Books       BookSource
	Markets     MarketSource
	// Reads, when set, serves List's read of the stored positions (a read
	// cache: models/readcache) unless the listing asks for fresh data; the
	// re-read after a resolution moved positions, and every other read,
	// goes to Store.
	Reads interface {
		ListPositions(ctx context.Context, agentID string, statuses ...string) ([]models.Position, error)
	}
	// Now is the clock of the resolution cache (time.Now when nil).
	Now func() time.Time
	// ResolutionTTL is how long "not resolved yet" is believed without
	// asking the chain again, unless a listing asks for fresh data
	// (default 5 s). A resolution, once seen, is final and kept.
	ResolutionTTL time.Duration

	mu       sync.Mutex
	resolved map[string]resolution // by condition id
	tokens   map[string][]string   // market token order by condition id
}

// ensure *Service satisfies the recomputer settlements call after a
// redemption.
var _ interface {
	Recompute(ctx context.Context, agentID, userID, tokenID string) error
} = (*Service)(nil)

func (s *Service) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Recompute rebuilds the agent's position in tokenID from its fills and
// saves it (the position keeps its id). It runs under the user's lock, so
// concurrent recomputes of one token serialise and the last one — which
// started after the last fill was committed — writes the full fold. The
// position row is also locked for the write (store.LockPositionByToken),
// so a redemption recorded concurrently is not overwritten. A token without
// fills and without a position is left alone.
func (s *Service) Recompute(ctx context.Context, agentID, userID, tokenID string) error {
	if agentID == "" || userID == "" || tokenID == "" {
		return errs.E(errs.Invalid, "recomputing a position needs an agent, a user and a token")
	}
	return s.Store.WithBudgetLock(ctx, userID, func(tx *store.Store) error {
		return recompute(ctx, tx, agentID, userID, tokenID)
	})
}

// RecomputeLocked is Recompute inside tx, a transaction that holds the
// user's lock (store.WithBudgetLock): the order service writes an order's
// fills into its position and into the order row in one such transaction,
// so a sell check never sees the one without the other.
func (s *Service) RecomputeLocked(ctx context.Context, tx *store.Store, agentID, userID, tokenID string) error {
	if agentID == "" || userID == "" || tokenID == "" {
		return errs.E(errs.Invalid, "recomputing a position needs an agent, a user and a token")
	}
	return recompute(ctx, tx, agentID, userID, tokenID)
}

// RecomputeAll rebuilds every position of the agent that has fills (after a
// data repair or a fold change).
func (s *Service) RecomputeAll(ctx context.Context, agentID, userID string) error {
	tokens, err := s.Store.FilledTokens(ctx, agentID)
	if err != nil {
		return err
	}
	for _, tok := range tokens {
		if err := s.Recompute(ctx, agentID, userID, tok); err != nil {
			return err
		}
	}
	return nil
}

func recompute(ctx context.Context, tx *store.Store, agentID, userID, tokenID string) error {
	fills, err := tx.TokenFills(ctx, agentID, tokenID)
	if err != nil {
		return err
	}
	old, err := tx.LockPositionByToken(ctx, agentID, tokenID)
	switch {
	case errs.Is(err, errs.NotFound):
		old = nil
	case err != nil:
		return err
	}
	if old == nil && len(fills) == 0 {
		return nil
	}
	p := &models.Position{AgentID: agentID, UserID: userID, TokenID: tokenID}
	if old != nil {
		cp := *old
		p = &cp
	}
	if n := len(fills); n > 0 {
		// The latest order's market data wins (they are all the same market).
		last := fills[n-1]
		p.ConditionID, p.Question, p.Outcome, p.NegRisk = last.ConditionID, last.Question, last.Outcome, last.NegRisk
	}
	f := Fold(fills, p.RedeemedSizeMicro, p.PayoutMicro)
	if old != nil && old.RedeemedAt != nil && old.RedeemedSizeMicro > 0 && old.SizeMicro == 0 && f.SizeMicro > 0 {
		// A fill synced after the position was fully redeemed: its trade
		// came before the market resolved, so its shares were in the
		// wallet when the redemption burned the wallet's whole balance of
		// the market (paid as unattributed). They are redeemed with it,
		// at its payout per share, rather than left on a position that
		// can never be redeemed again.
		extra := f.SizeMicro
		p.PayoutMicro += micro.Nearest(micro.Decimal(extra).Mul(micro.Decimal(old.PayoutMicro)).Div(micro.Decimal(old.RedeemedSizeMicro)))
		p.RedeemedSizeMicro += extra
		f = Fold(fills, p.RedeemedSizeMicro, p.PayoutMicro)
	}
	p.SizeMicro, p.AvgEntryMicro, p.RealizedPnlMicro = f.SizeMicro, f.AvgEntryMicro, f.RealizedPnlMicro
	p.Status = nextStatus(p.Status, f.SizeMicro)
	if old != nil && samePosition(old, p) {
		return nil // idempotent: a replayed recompute writes nothing
	}
	return tx.SavePosition(ctx, p)
}

// nextStatus is the status after a recompute: a resolution outcome is
// kept (a fully redeemed position is settled), otherwise shares held mean
// open and none closed.
func nextStatus(current string, size int64) string {
	switch {
	case current == models.PositionRedeemable && size == 0:
		return models.PositionSettled
	case current == models.PositionRedeemable || current == models.PositionSettled:
		return current
	case size > 0:
		return models.PositionOpen
	default:
		return models.PositionClosed
	}
}

func samePosition(a, b *models.Position) bool {
	return a.SizeMicro == b.SizeMicro && a.AvgEntryMicro == b.AvgEntryMicro &&
		a.RealizedPnlMicro == b.RealizedPnlMicro && a.Status == b.Status &&
		a.ConditionID == b.ConditionID && a.Question == b.Question && a.Outcome == b.Outcome &&
		a.NegRisk == b.NegRisk && a.UserID == b.UserID
}

// Folded is a position computed from fills, in micro-units.
type Folded struct {
	SizeMicro int64
	// AvgEntryMicro is the cost-weighted average price of the shares held;
	// once they are all sold it keeps the last average, so a closed
	// position still tells what it was bought at.
	AvgEntryMicro    int64
	RealizedPnlMicro int64
}

// Fold computes a position from its fills, oldest first: a BUY adds shares
// at its price (the average entry is cost-weighted); a SELL removes shares
// at the average entry and realizes (price − average entry) × shares; every
// fee reduces the realized P&L. Shares sold beyond what the fills bought
// (bought outside the service) realize nothing, having no known cost.
// Finally redeemedMicro shares are removed as sold for payoutMicro.
func Fold(fills []store.TokenFill, redeemedMicro, payoutMicro int64) Folded {
	return fold(fills, redeemedMicro, payoutMicro, nil)
}

// FillRealized returns the P&L each of the token's fills (oldest first, as
// TokenFills gives them) realized in Fold, by fill id, in micro-USDC: a
// sell's gain over the average entry, less every fill's fee. The heartbeat
// reports it per filled order.
func FillRealized(fills []store.TokenFill) map[string]int64 {
	out := make(map[string]int64, len(fills))
	fold(fills, 0, 0, func(id string, realized decimal.Decimal) { out[id] = micro.Nearest(realized) })
	return out
}

func fold(fills []store.TokenFill, redeemedMicro, payoutMicro int64, each func(fillID string, realized decimal.Decimal)) Folded {
	var size, cost, realized decimal.Decimal // shares, USDC, USDC
	lastAvg := decimal.Zero
	avg := func() decimal.Decimal {
		if size.IsPositive() {
			return cost.Div(size)
		}
		return lastAvg
	}
	remove := func(shares decimal.Decimal) (sold, basis decimal.Decimal) {
		sold = decimal.Min(shares, size)
		if !sold.IsPositive() {
			return decimal.Zero, decimal.Zero
		}
		lastAvg = avg()
		if sold.Equal(size) {
			basis = cost
		} else {
			basis = cost.Mul(sold).Div(size)
		}
		size, cost = size.Sub(sold), cost.Sub(basis)
		return sold, basis
	}
	for _, f := range fills {
		shares, price := micro.Decimal(f.SizeMicro), micro.Decimal(f.PriceMicro)
		before := realized
		realized = realized.Sub(micro.Decimal(f.FeeMicro))
		switch f.Side {
		case orders.SideBuy:
			size, cost = size.Add(shares), cost.Add(shares.Mul(price))
			lastAvg = avg()
		case orders.SideSell:
			sold, basis := remove(shares)
			realized = realized.Add(sold.Mul(price).Sub(basis))
		}
		if each != nil {
			each(f.ID, realized.Sub(before))
		}
	}
	if redeemedMicro > 0 {
		_, basis := remove(micro.Decimal(redeemedMicro))
		realized = realized.Add(micro.Decimal(payoutMicro).Sub(basis))
	}
	return Folded{
		SizeMicro:        micro.Nearest(size),
		AvgEntryMicro:    micro.Nearest(avg()),
		RealizedPnlMicro: micro.Nearest(realized),
	}
}

// positionFor loads agentID's position id; another agent's is NotFound.
func (s *Service) positionFor(ctx context.Context, agentID, id string) (*models.Position, error) {
	if !models.HasPrefix(id, models.PrefixPosition) {
		return nil, errs.E(errs.NotFound, "position not found").WithCode(errs.CodePositionNotFound)
	}
	p, err := s.Store.PositionForAgent(ctx, agentID, id)
	if errs.Is(err, errs.NotFound) {
		return nil, errs.E(errs.NotFound, "position not found").WithCode(errs.CodePositionNotFound)
	}
	return p, err
}
