package agents

import (
	"time"

	"github.com/agent-trading/ats/models/throttle"
)

// Default guess limits of user codes: 10 wrong codes per user and per
// client address (IPv6 per /64) in 15 minutes. Wrong passwords on the
// /link page count against the same per-address budget when the users
// service shares the agents service's counter (users.AddrLimit), as
// cmd/ats wires them.
const (
	DefaultMaxGuessFailures = 10
	DefaultGuessWindow      = 15 * time.Minute
)

// codeGuesses is the limit on wrong user codes.
func (s *Service) codeGuesses() throttle.Limit {
	s.init()
	return throttle.Limit{Counter: s.Attempts, Max: DefaultMaxGuessFailures, Window: DefaultGuessWindow}
}
