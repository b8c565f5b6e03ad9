package settlements

import (
	"context"
	"math/big"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/venue/chain"
)

// paperAgents returns the user's paper agents and whether the calling
// agent is one of them.
func (s *Service) paperAgents(ctx context.Context, in RedeemInput) (map[string]bool, bool, error) {
	agents, err := s.Store.ListAgentsByUser(ctx, in.UserID)
	if err != nil {
		return nil, false, err
	}
	paper := map[string]bool{}
	for _, a := range agents {
		if a.Mode == models.ModePaper {
			paper[a.ID] = true
		}
	}
	return paper, paper[in.AgentID], nil
}

// planPaperRedeem plans a paper agent's redemption: the user's paper
// positions (of every paper agent: as with the wallet, a market is settled
// once for all of them) in the markets that resolved, each paid what its
// shares pay at the market's payouts, read from the chain. The chain is
// only read: paper positions hold no tokens, so nothing is burnt or sent;
// recording the plan credits the paper balance (RecordRedemptions).
func (s *Service) planPaperRedeem(ctx context.Context, in RedeemInput, all []models.Position, paper map[string]bool) (RedeemPlan, error) {
	plan := RedeemPlan{Conditions: []PlannedCondition{}, Positions: []PlannedPosition{}, Holdings: []PlannedHolding{}, Paper: true}
	byCond, conds := byCondition(all, in, func(p *models.Position) bool { return paper[p.AgentID] })
	for _, c := range conds {
		ps := byCond[c]
		nums, den, resolved, err := s.resolvedPayouts(ctx, c, ps, in.AgentID, &plan)
		if err != nil {
			return plan, err
		}
		if !resolved {
			continue
		}
		m, err := s.Markets.Market(ctx, c)
		if err != nil {
			return plan, err
		}
		pc, index := plannedCondition(c, m)
		for _, p := range ps {
			idx, ok := index[p.TokenID]
			if !ok || idx >= len(nums) {
				return plan, errs.Ef(errs.Internal, "position %s holds token %s, which market %s does not list", p.ID, p.TokenID, c)
			}
			plan.Positions = append(plan.Positions, PlannedPosition{
				AgentID: p.AgentID, PositionID: p.ID, TokenID: p.TokenID, ConditionID: c, Outcome: p.Outcome,
				SharesMicro: p.SizeMicro, PayoutMicro: chain.PayoutFor(big.NewInt(p.SizeMicro), nums[idx], den).Int64(),
			})
		}
		plan.Conditions = append(plan.Conditions, pc)
	}
	return plan, nil
}
