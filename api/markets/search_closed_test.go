package markets_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Regression: accepting_orders=false must list markets that no longer
// accept orders because they resolved (closed); the default must not.
func TestSearchFindsResolvedMarketWhenAskedTo(t *testing.T) {
	ms := ordinary(t)
	target := ms[len(ms)-1]

	before, _ := search(t, "min_volume=0&accepting_orders=false&slug="+target.Slug)
	require.Len(t, before, 1, "an open market is listed either way")

	// Resolve it through the sandbox's control API, as an operator would.
	resp, err := http.Post(sb.URL()+"/control/markets/"+target.ConditionID+"/resolve", "application/json",
		strings.NewReader(`{"winner":"`+target.Outcomes[0]+`"}`))
	require.NoError(t, err)
	require.NoError(t, resp.Body.Close())
	require.Equal(t, http.StatusOK, resp.StatusCode)

	for _, q := range []string{"slug=" + target.Slug, "q=" + strings.ReplaceAll(target.Question, " ", "+")} {
		items, _ := search(t, "min_volume=0&limit=100&"+q)
		for _, it := range items {
			assert.NotEqual(t, target.Slug, it.Slug, "%s: the default lists only markets accepting orders", q)
		}
		items, top := search(t, "min_volume=0&limit=100&accepting_orders=false&"+q)
		var found *item
		for i := range items {
			if items[i].Slug == target.Slug {
				found = &items[i]
			}
		}
		if assert.NotNil(t, found, "%s: accepting_orders=false lists the resolved market", q) {
			assert.False(t, found.AcceptingOrders, q)
		}
		require.NotNil(t, top, q)
		assert.Equal(t, strconv.Itoa(target.ID), top.ID, "%s: and it is the best match", q)
	}
}
