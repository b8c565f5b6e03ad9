package dashboard_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/users"
)

// TestLinkGoingLiveRevokesThePaperAgent: a paper agent's page says plainly
// that it never becomes live by itself and how it goes live; the review of
// a new link under its name says, before the user decides, that approving
// it as Live revokes the paper agent; approving as Live does (audited,
// reason went_live) and the paper agent's page no longer offers it.
func TestLinkGoingLiveRevokesThePaperAgent(t *testing.T) {
	e := newEnv(t, users.SignupOpen)
	c := e.signUp("lee@example.com", "correct horse battery")
	approve := func(name, mode string) *models.Agent {
		t.Helper()
		a := e.requestLink(name, "203.0.113.7")
		page, decide := review(t, c, a.UserCode)
		if mode == models.ModeLive {
			assert.Contains(t, page.Body, `id="link-golive"`, "the review warns before a live approval revokes the paper agent")
			assert.Contains(t, page.Body, "Approving as Live revokes it")
		} else {
			assert.NotContains(t, page.Body, `id="link-golive"`)
		}
		assert.Contains(t, page.Body, "A paper agent never becomes live by itself")
		decide.Set("action", "approve")
		decide.Set("fixed_limit", "25")
		decide.Set("mode", mode)
		r := c.Post("/link", decide)
		require.Equal(t, http.StatusSeeOther, r.Status, r.Body)
		ag, err := e.store.AgentByID(context.Background(), strings.TrimPrefix(strings.SplitN(r.Location, "?", 2)[0], "/agents/"))
		require.NoError(t, err)
		return ag
	}
	paper := approve("desk-bot", models.ModePaper)
	require.Equal(t, models.ModePaper, paper.Mode)
	body := c.Get("/agents/" + paper.ID).Body
	assert.Contains(t, body, `id="agent-paper-rule"`)
	assert.Contains(t, body, "It never becomes live by itself.")

	live := approve("desk-bot", models.ModeLive)
	assert.Equal(t, models.ModeLive, live.Mode)
	after, err := e.store.AgentByID(context.Background(), paper.ID)
	require.NoError(t, err)
	assert.Equal(t, models.AgentRevoked, after.Status, "the live approval revoked the paper agent")
	page, err := (&audit.Service{Store: e.store}).List(context.Background(), audit.Filter{AgentID: paper.ID, Action: audit.ActionAgentRevoke})
	require.NoError(t, err)
	require.Len(t, page.Entries, 1)
	assert.Contains(t, string(page.Entries[0].Detail), `"reason":"went_live"`)
	assert.NotContains(t, c.Get("/agents/"+paper.ID).Body, `id="agent-paper-rule"`)

	// Nothing left to revoke: a further review of the name says nothing.
	a := e.requestLink("desk-bot", "203.0.113.7")
	r, _ := review(t, c, a.UserCode)
	assert.NotContains(t, r.Body, `id="link-golive"`)
}
