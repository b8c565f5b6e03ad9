package markets

import "github.com/agent-trading/ats/venue"

// SetTick changes a market's minimum tick in the engine and the catalogue
// (GET /tick-size, Gamma), and the market channel reports it as a
// tick_size_change. The live venue narrows the tick on its own when a
// price nears 0 or 1; the sandbox does it on request (control API).
func (v *Venue) SetTick(conditionID string, tickMicro uint64) (Info, error) {
	m, ok := v.ByCondition(conditionID)
	if !ok {
		return Info{}, venue.E(venue.NotFound, "market not found")
	}
	if _, err := v.engine.SetTick(m.ConditionID, tickMicro); err != nil {
		return Info{}, err
	}
	v.mu.Lock()
	info := v.byCond[m.ConditionID]
	info.TickMicro = tickMicro
	seq := v.saveLocked(info)
	cp := *info
	v.mu.Unlock()
	return cp, v.durable(seq)
}
