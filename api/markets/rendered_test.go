package markets_test

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	apimarkets "github.com/agent-trading/ats/api/markets"
)

// A market's detail is encoded once for as long as the service's caches
// hand out the same market and books: the same bytes as a fresh encoding,
// and a new answer once the book changed.
func TestMarketDetailEncodedOncePerBook(t *testing.T) {
	ms := ordinary(t)
	m := ms[len(ms)-1]
	n := sb.Network()
	svc := newService(n.GammaURL, n.CLOBURL)
	svc.BookTTL = 200 * time.Millisecond
	e := engine(svc)
	path := "/api/agent/v1/markets/" + strconv.Itoa(m.ID)
	body := func() []byte {
		t.Helper()
		req := httptest.NewRequest(http.MethodGet, path, nil)
		req.Header.Set("Authorization", "Bearer "+readKey)
		w := httptest.NewRecorder()
		e.ServeHTTP(w, req)
		require.Equal(t, http.StatusOK, w.Code, w.Body.String())
		require.Equal(t, "application/json; charset=utf-8", w.Header().Get("Content-Type"))
		return w.Body.Bytes()
	}
	first := body()
	require.Equal(t, first, body(), "the same market and books, the same answer")
	// What encoding the same detail afresh gives.
	var got struct {
		Data apimarkets.MarketDetail `json:"data"`
	}
	require.NoError(t, json.Unmarshal(first, &got))
	encoded, err := json.Marshal(api.Envelope{Success: true, Data: got.Data})
	require.NoError(t, err)
	require.Equal(t, string(encoded), string(first))

	// A trade moves the book: once the book cache refreshes, the answer
	// follows.
	tok := m.TokenIDs[0]
	resp, err := http.Post(sb.URL()+"/control/markets/"+tok+"/price", "application/json", bytes.NewReader([]byte(`{"price":0.31}`)))
	require.NoError(t, err)
	resp.Body.Close()
	require.Eventually(t, func() bool { return !bytes.Equal(body(), first) }, 5*time.Second, 50*time.Millisecond,
		"the answer never followed the book")
}
