package store

import (
	"context"
	"time"

	"gorm.io/gorm/clause"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
)

// BudgetTotals are the committed amounts the budget engine checks limits
// against, in micro-USDC.
type BudgetTotals struct {
	// AgentUsedMicro is what the agent's orders spent on fills.
	AgentUsedMicro int64
	// AgentHeldMicro is what the agent's live orders still hold.
	AgentHeldMicro int64
	// UserHeldMicro is what live orders of all the user's agents hold: it
	// is not yet spent on chain, so it is not reflected in the wallet
	// balance, and the wallet is shared by the user's agents.
	UserHeldMicro int64
}

// WithBudgetLock runs fn in one transaction that holds the user's budget
// lock: every reservation change of any agent of userID is serialised
// behind it, so "sum, check, insert" inside fn cannot interleave with
// another. PostgreSQL locks the user row (SELECT … FOR NO KEY UPDATE); SQLite
// transactions are BEGIN IMMEDIATE (see sqliteDSN), so one writer runs at a
// time anyway. An unknown user is NotFound.
func (s *Store) WithBudgetLock(ctx context.Context, userID string, fn func(tx *Store) error) error {
	return s.Tx(ctx, func(tx *Store) error {
		q := tx.db.WithContext(ctx).Model(&models.User{}).Select("id").Where("id = ?", userID)
		if tx.dialect == Postgres {
			// NO KEY UPDATE serialises budget writers of the user but not
			// inserts of rows referencing the user (FOR KEY SHARE).
			q = q.Clauses(clause.Locking{Strength: "NO KEY UPDATE"})
		}
		var ids []string
		if err := q.Pluck("id", &ids).Error; err != nil {
			return mapErr(err, "user")
		}
		if len(ids) == 0 {
			return errs.E(errs.NotFound, "user not found")
		}
		return fn(tx)
	})
}

// BudgetTotals sums the reservations of agentID (and the held amounts of
// all of userID's agents) in one statement over the user's reservations.
func (s *Store) BudgetTotals(ctx context.Context, userID, agentID string) (BudgetTotals, error) {
	var row struct{ Used, Held, UserHeld int64 }
	err := s.db.WithContext(ctx).Model(&models.BudgetReservation{}).
		// The user's held amount counts the agents of agentID's mode only:
		// paper orders hold paper money, live ones the wallet's.
		Select("COALESCE(SUM(CASE WHEN agent_id = ? THEN used_micro ELSE 0 END), 0) AS used, "+
			"COALESCE(SUM(CASE WHEN agent_id = ? THEN held_micro ELSE 0 END), 0) AS held, "+
			"COALESCE(SUM(CASE WHEN status = ? AND agent_id IN (SELECT id FROM agents WHERE user_id = ? AND "+
			"mode = (SELECT mode FROM agents WHERE id = ?)) THEN held_micro ELSE 0 END), 0) AS user_held",
			agentID, agentID, models.ReservationActive, userID, agentID).
		Where("user_id = ?", userID).Scan(&row).Error
	if err != nil {
		return BudgetTotals{}, mapErr(err, "budget reservation")
	}
	return BudgetTotals{AgentUsedMicro: row.Used, AgentHeldMicro: row.Held, UserHeldMicro: row.UserHeld}, nil
}

// CreateBudgetReservation inserts r as an active reservation holding its
// whole amount, filling ID and timestamps. A reservation with the same ref
// is errs.Conflict. Limits are the caller's business (models/budget checks
// them under WithBudgetLock).
func (s *Store) CreateBudgetReservation(ctx context.Context, r *models.BudgetReservation) error {
	if r.Ref == "" || r.AgentID == "" || r.UserID == "" {
		return errs.E(errs.Invalid, "a budget reservation needs a reference, an agent and a user")
	}
	if r.AmountMicro <= 0 {
		return errs.E(errs.Invalid, "a budget reservation must be positive")
	}
	if r.ID == "" {
		r.ID = models.NewID(models.PrefixBudgetReservation)
	}
	r.HeldMicro, r.UsedMicro, r.Status = r.AmountMicro, 0, models.ReservationActive
	now := s.now()
	r.CreatedAt, r.UpdatedAt = now, now
	return mapErr(s.db.WithContext(ctx).Create(r).Error, "budget reservation")
}

// BudgetReservationByRef finds the reservation of ref.
func (s *Store) BudgetReservationByRef(ctx context.Context, ref string) (*models.BudgetReservation, error) {
	var r models.BudgetReservation
	if err := s.db.WithContext(ctx).Where("ref = ?", ref).Take(&r).Error; err != nil {
		return nil, mapErr(err, "budget reservation")
	}
	r.CreatedAt, r.UpdatedAt = r.CreatedAt.UTC(), r.UpdatedAt.UTC()
	return &r, nil
}

// SettleBudgetReservation moves ref's reservation forward and returns it:
// UsedMicro becomes max(UsedMicro, filledMicro) — filledMicro is the
// cumulative spend, so replays and out-of-order reports cannot lower it —
// and, while active, HeldMicro becomes what remains of AmountMicro. When
// terminal is set or nothing remains, the reservation closes and holds
// nothing. A closed reservation only ever takes a higher UsedMicro (a fill
// reported after the cancel). Run it under WithBudgetLock.
func (s *Store) SettleBudgetReservation(ctx context.Context, ref string, filledMicro int64, terminal bool) (*models.BudgetReservation, error) {
	if filledMicro < 0 {
		return nil, errs.E(errs.Invalid, "a filled amount cannot be negative")
	}
	r, err := s.BudgetReservationByRef(ctx, ref)
	if err != nil {
		return nil, err
	}
	used := max(r.UsedMicro, filledMicro)
	held, status := int64(0), models.ReservationClosed
	if r.Status == models.ReservationActive && !terminal && used < r.AmountMicro {
		held, status = r.AmountMicro-used, models.ReservationActive
	}
	if used == r.UsedMicro && held == r.HeldMicro && status == r.Status {
		return r, nil
	}
	now := s.now()
	err = s.db.WithContext(ctx).Model(&models.BudgetReservation{}).Where("id = ?", r.ID).
		Updates(map[string]any{"used_micro": used, "held_micro": held, "status": status, "updated_at": now}).Error
	if err != nil {
		return nil, mapErr(err, "budget reservation")
	}
	r.UsedMicro, r.HeldMicro, r.Status, r.UpdatedAt = used, held, status, now
	return r, nil
}

// OrderCounts counts the agent's orders: all of them, and those with any
// filled size.
func (s *Store) OrderCounts(ctx context.Context, agentID string) (total, filled int64, err error) {
	var row struct{ Total, Filled int64 }
	err = s.db.WithContext(ctx).Model(&models.Order{}).
		Select("COUNT(*) AS total, COALESCE(SUM(CASE WHEN filled_size_micro > 0 THEN 1 ELSE 0 END), 0) AS filled").
		Where("agent_id = ?", agentID).Scan(&row).Error
	if err != nil {
		return 0, 0, mapErr(err, "order")
	}
	return row.Total, row.Filled, nil
}

// AgentFill is one fill of an agent's order with the order fields needed
// to account for it.
type AgentFill struct {
	OrderID      string
	TokenID      string
	Side         string // BUY | SELL, or SideRedeem (AgentRedemptions)
	PriceMicro   int64
	SizeMicro    int64
	FeeMicro     int64
	Time         time.Time
	VenueTradeID string
	// PayoutMicro is what a redemption paid for SizeMicro shares (zero for
	// a fill).
	PayoutMicro int64
}

// SideRedeem marks an AgentFill that is a position's redemption.
const SideRedeem = "REDEEM"

// AgentRedemptions returns the agent's positions that were redeemed on
// chain as one AgentFill each (Side SideRedeem, the shares burned and the
// payout, at the last redemption's time), oldest first, so statistics can
// replay them with the fills.
func (s *Store) AgentRedemptions(ctx context.Context, agentID string) ([]AgentFill, error) {
	var ps []models.Position
	err := s.db.WithContext(ctx).Select("token_id", "redeemed_size_micro", "payout_micro", "redeemed_at", "updated_at").
		Where("agent_id = ? AND redeemed_size_micro > 0", agentID).Order("redeemed_at").Order("token_id").Find(&ps).Error
	if err != nil {
		return nil, mapErr(err, "position")
	}
	out := make([]AgentFill, 0, len(ps))
	for _, p := range ps {
		at := p.UpdatedAt
		if p.RedeemedAt != nil {
			at = *p.RedeemedAt
		}
		out = append(out, AgentFill{TokenID: p.TokenID, Side: SideRedeem, SizeMicro: p.RedeemedSizeMicro,
			PayoutMicro: p.PayoutMicro, Time: at.UTC()})
	}
	return out, nil
}

// AgentFills returns every fill of the agent's orders, oldest first (ties
// broken by fill ID, so replays are deterministic).
func (s *Store) AgentFills(ctx context.Context, agentID string) ([]AgentFill, error) {
	var out []AgentFill
	err := s.db.WithContext(ctx).Table("fills").
		Select("fills.order_id AS order_id, orders.token_id AS token_id, orders.side AS side, "+
			"fills.price_micro AS price_micro, fills.size_micro AS size_micro, fills.fee_micro AS fee_micro, "+
			"fills.time AS time, fills.venue_trade_id AS venue_trade_id").
		Joins("JOIN orders ON orders.id = fills.order_id").
		Where("orders.agent_id = ?", agentID).
		Order("fills.time").Order("fills.id").Scan(&out).Error
	if err != nil {
		return nil, mapErr(err, "fill")
	}
	for i := range out {
		out[i].Time = out[i].Time.UTC()
	}
	return out, nil
}
