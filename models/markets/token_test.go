package markets_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/markets"
	"github.com/agent-trading/ats/sandbox"
	"github.com/agent-trading/ats/venue/clob"
)

// TestTokenMarket reads a token's market from the sandbox venue: its name
// (question, outcome, slug, end date), its trading rules, and whether it
// still trades — read afresh, so a market that resolves is seen closed at
// once.
func TestTokenMarket(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the sandbox venue")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	sb, err := sandbox.Start(ctx, sandbox.Config{Addr: "127.0.0.1:0", Seed: 7, PaperChain: true, Ordinary: 2,
		DisableUpDown: true, QuoteInterval: time.Hour})
	require.NoError(t, err)
	t.Cleanup(func() { _ = sb.Close() })
	m := sb.Venue().Markets()[0]
	svc := &markets.Service{CLOB: clob.NewClient(clob.ConfigFor(sb.Network()))}

	got, err := svc.TokenMarket(ctx, m.TokenIDs[1])
	require.NoError(t, err)
	assert.Equal(t, m.ConditionID, got.ConditionID)
	assert.Equal(t, m.Question, got.Question)
	assert.Equal(t, m.Outcomes[1], got.Outcome)
	assert.Equal(t, m.Slug, got.Slug)
	require.NotNil(t, got.EndDate)
	assert.Equal(t, m.End.UTC().Truncate(time.Second), *got.EndDate)
	assert.True(t, got.Trading())
	assert.Equal(t, "0.01", got.TickSize.String())
	assert.Equal(t, "5", got.MinOrderSize.String())

	_, err = sb.Venue().Resolve(ctx, m.ConditionID, m.Outcomes[0])
	require.NoError(t, err)
	got, err = svc.TokenMarket(ctx, m.TokenIDs[1])
	require.NoError(t, err)
	assert.False(t, got.Trading(), "resolved: it takes no orders")

	_, err = svc.TokenMarket(ctx, "123456789")
	assert.Equal(t, errs.CodeUnknownToken, errs.CodeOf(err))
}
