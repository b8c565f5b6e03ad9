package exchange

import (
	"context"

	"github.com/agent-trading/ats/venue"
)

// Replacement is what ReplaceWhere did: the ids of the orders it
// cancelled, and for each new order (index-aligned with the call's) its
// result or the error that refused it.
type Replacement struct {
	Cancelled []string
	Results   []Result
	Errs      []error
}

// ReplaceWhere swaps owner's live orders of a market for orders in one
// locked section: the old ones are cancelled and every new one admitted
// (matched, rested) before any other order can trade or any subscriber can
// look. A re-quoting market maker thus never shows an empty or half-built
// book: the market channel gets one update with every touched level's new
// total, and the journal one entry, so a restart sees all of the swap or
// none of it.
//
// The new orders must all be owner's and of the market's tokens. One the
// venue refuses (funds, tick, duplicate, a market that stopped accepting)
// is reported in Errs and the others still go in: the old orders are gone
// either way, so the caller keeps the quotes it could place. A new order
// that crosses another owner's resting order trades as Place would: the
// match is admitted in the swap and settled after it (the rest of the
// order rests once its match is final), each match in turn.
func (e *Engine) ReplaceWhere(ctx context.Context, owner, conditionID string, orders []Order) (Replacement, error) {
	rep := Replacement{Results: make([]Result, len(orders)), Errs: make([]error, len(orders))}
	e.mu.Lock()
	ms, ok := e.markets[conditionID]
	if !ok {
		e.unlock()
		return Replacement{}, venue.E(venue.NotFound, "market not found")
	}
	for i := range orders {
		o := &orders[i]
		if o.Owner != owner || (o.TokenID != ms.Tokens[0] && o.TokenID != ms.Tokens[1]) {
			e.unlock()
			return Replacement{}, venue.Ef(venue.Invalid, "order %s is not one of the owner's orders of the market", o.ID)
		}
	}
	rep.Cancelled = e.cancelWhereLocked(owner, conditionID, "")
	type inflight struct {
		i int
		p *pending
	}
	var matched []inflight
	for i, o := range orders {
		p, err := e.admitLocked(ctx, o)
		switch {
		case err != nil:
			rep.Errs[i] = err
		case p.match != nil:
			matched = append(matched, inflight{i, p})
		default: // rests at once: no match, so no trade
			rep.Results[i], _, rep.Errs[i] = e.finishLocked(p, Settlement{}, nil)
		}
	}
	seq := e.unlock()
	derr := e.durable(seq)
	for _, m := range matched {
		rep.Results[m.i], rep.Errs[m.i] = e.settle(ctx, m.p, derr)
	}
	return rep, derr
}
