package strategies

import (
	"github.com/shopspring/decimal"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
)

// feasible refuses (CodeStrategyInfeasible) a strategy that could never
// place its order, rather than accept it and let it end without trading:
// its one order costs more than maxBudget, or is below the venue's $1
// minimum for a marketable BUY, or below the market's minimum order size
// (m, when known) where the venue applies it (a resting order, and any
// SELL). Create and every PATCH of the config or the budget check it; the
// type says what its order is (Type.Feasible).
func feasible(typ string, c Config, budget decimal.Decimal, m *markets.TokenMarket) error {
	minSize := decimal.Zero
	if m != nil {
		minSize = m.MinOrderSize
	}
	return typeOf(typ).Feasible(c, budget, minSize)
}

func infeasible(format string, args ...any) error {
	for i, a := range args {
		if d, ok := a.(decimal.Decimal); ok {
			args[i] = d.String()
		}
	}
	return errs.Ef(errs.Invalid, "the strategy could never place its order: "+format, args...).WithCode(errs.CodeStrategyInfeasible)
}
