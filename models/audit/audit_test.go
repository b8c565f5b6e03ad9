package audit_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

func TestRecordAndList(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		svc := &audit.Service{Store: s}
		t0 := time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC)

		entries := []audit.Entry{
			{Time: t0, UserID: "usr_1", Action: audit.ActionUserLogin, Target: "usr_1", Result: audit.Success, ClientAddr: "1.2.3.4"},
			{Time: t0.Add(time.Second), UserID: "usr_1", AgentID: "agt_1", Action: audit.ActionAgentLink, Target: "agt_1", Result: audit.Success,
				Detail: map[string]any{"agent_name": "bot", "api_key": "ll_secret", "nested": map[string]any{"private_key": "0xabc", "ok": 1}}},
			{Time: t0.Add(2 * time.Second), UserID: "usr_1", AgentID: "agt_1", Action: audit.ActionOrderPlace, Target: "ord_1", Result: audit.Denied,
				Detail: map[string]any{"reason": "budget_exceeded", "Password": "hunter2", "totp_code": "123456", "device_code": "abc"}},
			{Time: t0.Add(3 * time.Second), UserID: "usr_2", Action: audit.ActionWalletImport, Target: "wal_1", Result: audit.Failure},
		}
		for _, e := range entries {
			require.NoError(t, svc.Record(ctx, e))
		}

		tests := []struct {
			name    string
			f       audit.Filter
			wantIDs []string // actions, newest first
		}{
			{"all", audit.Filter{}, []string{audit.ActionWalletImport, audit.ActionOrderPlace, audit.ActionAgentLink, audit.ActionUserLogin}},
			{"user", audit.Filter{UserID: "usr_1"}, []string{audit.ActionOrderPlace, audit.ActionAgentLink, audit.ActionUserLogin}},
			{"agent", audit.Filter{AgentID: "agt_1"}, []string{audit.ActionOrderPlace, audit.ActionAgentLink}},
			{"action", audit.Filter{Action: audit.ActionUserLogin}, []string{audit.ActionUserLogin}},
			{"result", audit.Filter{Result: audit.Denied}, []string{audit.ActionOrderPlace}},
			{"window", audit.Filter{Since: t0.Add(time.Second), Until: t0.Add(3 * time.Second)}, []string{audit.ActionOrderPlace, audit.ActionAgentLink}},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				page, err := svc.List(ctx, tt.f)
				require.NoError(t, err)
				var got []string
				for _, r := range page.Entries {
					got = append(got, r.Action)
				}
				assert.Equal(t, tt.wantIDs, got)
				assert.Empty(t, page.NextCursor)
			})
		}

		t.Run("paging", func(t *testing.T) {
			p1, err := svc.List(ctx, audit.Filter{Limit: 3})
			require.NoError(t, err)
			require.Len(t, p1.Entries, 3)
			require.NotEmpty(t, p1.NextCursor)
			p2, err := svc.List(ctx, audit.Filter{Limit: 3, Cursor: p1.NextCursor})
			require.NoError(t, err)
			require.Len(t, p2.Entries, 1)
			assert.Equal(t, audit.ActionUserLogin, p2.Entries[0].Action)
			assert.Empty(t, p2.NextCursor)
		})

		t.Run("secrets redacted", func(t *testing.T) {
			page, err := svc.List(ctx, audit.Filter{})
			require.NoError(t, err)
			raw, err := json.Marshal(page)
			require.NoError(t, err)
			for _, leak := range []string{"ll_secret", "0xabc", "hunter2", "123456", `"abc"`} {
				assert.NotContains(t, string(raw), leak)
			}
			var detail map[string]any
			for _, r := range page.Entries {
				if r.Action == audit.ActionAgentLink {
					require.NoError(t, json.Unmarshal(r.Detail, &detail))
				}
			}
			assert.Equal(t, "bot", detail["agent_name"])
			assert.Equal(t, "[redacted]", detail["api_key"])
			assert.Equal(t, map[string]any{"private_key": "[redacted]", "ok": float64(1)}, detail["nested"])
			assert.True(t, strings.Contains(string(raw), `"client_address":"1.2.3.4"`))
		})

		t.Run("invalid entries", func(t *testing.T) {
			for _, e := range []audit.Entry{
				{Result: audit.Success},
				{Action: audit.ActionUserLogin, Result: "maybe"},
				{Action: audit.ActionUserLogin, Result: audit.Success, Detail: map[string]any{"ch": make(chan int)}},
			} {
				assert.Error(t, svc.Record(ctx, e))
			}
		})

		t.Run("append in a rolled-back transaction leaves nothing", func(t *testing.T) {
			err := s.Tx(ctx, func(tx *store.Store) error {
				require.NoError(t, audit.Append(ctx, tx, audit.Entry{Action: audit.ActionAgentRevoke, Result: audit.Success}))
				return errs.E(errs.Conflict, "abort")
			})
			require.Error(t, err)
			page, err := svc.List(ctx, audit.Filter{Action: audit.ActionAgentRevoke})
			require.NoError(t, err)
			assert.Empty(t, page.Entries)
		})

		t.Run("default time is now", func(t *testing.T) {
			before := time.Now().Add(-time.Second)
			require.NoError(t, svc.Record(ctx, audit.Entry{Action: audit.ActionWalletDelete, Result: audit.Success}))
			page, err := svc.List(ctx, audit.Filter{Action: audit.ActionWalletDelete})
			require.NoError(t, err)
			require.Len(t, page.Entries, 1)
			assert.True(t, page.Entries[0].Time.After(before))
			assert.True(t, models.HasPrefix(page.Entries[0].ID, models.PrefixAudit))
		})
	})
}
