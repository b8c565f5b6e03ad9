package markets

import (
	"context"
	"strings"
	"time"

	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
)

// TokenMarket is the market a token trades in, as the venue's CLOB reports
// it at the moment of the read: what it is called (question, outcome,
// slug, end date), whether it still takes orders, and its trading rules.
type TokenMarket struct {
	TokenID     string
	ConditionID string
	Question    string
	Outcome     string
	Slug        string
	// EndDate is the market's announced end (nil when the venue gives
	// none); a market may trade past it until it closes.
	EndDate *time.Time
	// AcceptingOrders and Closed are the venue's flags now: a market that
	// is closed, or no longer accepts orders, trades no more.
	AcceptingOrders bool
	Closed          bool
	TickSize        decimal.Decimal
	MinOrderSize    decimal.Decimal
}

// Trading reports whether the market still takes orders.
func (m TokenMarket) Trading() bool { return m.AcceptingOrders && !m.Closed }

// TokenMarket reads the market of tokenID from the venue (never from a
// cache: callers ask it whether the market still trades). An unknown
// token is NotFound (code unknown_token).
func (s *Service) TokenMarket(ctx context.Context, tokenID string) (*TokenMarket, error) {
	if !ValidTokenID(tokenID) {
		return nil, errs.E(errs.Invalid, "token ids must be decimal numbers").WithCode(errs.CodeInvalidTokenID)
	}
	mb, err := s.CLOB.MarketByToken(ctx, tokenID)
	if err != nil {
		return nil, unknownToken(err, tokenID)
	}
	m, err := s.CLOB.Market(ctx, mb.ConditionID)
	if err != nil {
		return nil, unknownToken(err, tokenID)
	}
	out := &TokenMarket{TokenID: tokenID, ConditionID: m.ConditionID, Question: m.Question, Slug: m.MarketSlug,
		AcceptingOrders: m.AcceptingOrders, Closed: m.Closed, TickSize: m.MinimumTickSize.Decimal, MinOrderSize: m.MinimumOrderSize.Decimal}
	for _, t := range m.Tokens {
		if t.TokenID == tokenID {
			out.Outcome = t.Outcome
		}
	}
	if end := strings.TrimSpace(m.EndDateISO); end != "" {
		for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05Z0700", "2006-01-02"} {
			if t, err := time.Parse(layout, end); err == nil {
				u := t.UTC()
				out.EndDate = &u
				break
			}
		}
	}
	return out, nil
}

func unknownToken(err error, tokenID string) error {
	if errs.Is(err, errs.NotFound) {
		return errs.Ef(errs.NotFound, "no market trades token %s", tokenID).WithCode(errs.CodeUnknownToken).WithCause(err)
	}
	return err
}
