package store_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func mustUser(t *testing.T, s *store.Store, email string) *models.User {
	t.Helper()
	u := &models.User{Email: email, PasswordHash: "h"}
	require.NoError(t, s.CreateUser(context.Background(), u))
	return u
}

func TestAudit(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		// 7 entries one second apart: users u1/u2 alternate, agent a1 on
		// even ones, the last one a failure; plus two at the same instant
		// to exercise the id tie-break of the cursor.
		var all []models.AuditLog
		for i := range 7 {
			e := models.AuditLog{
				Time:   t0.Add(time.Duration(i) * time.Second),
				UserID: []string{"usr_1", "usr_2"}[i%2],
				Action: "order.place", Target: fmt.Sprintf("ord_%d", i), Result: models.AuditSuccess,
				ClientAddr: "10.0.0.1", Detail: `{"n":1}`,
			}
			if i%2 == 0 {
				e.AgentID = "agt_1"
			}
			if i == 6 {
				e.Result = models.AuditFailure
				e.Action = "user.login"
			}
			require.NoError(t, s.AppendAudit(ctx, &e))
			require.True(t, models.HasPrefix(e.ID, models.PrefixAudit))
			all = append(all, e)
		}
		for range 2 {
			e := models.AuditLog{Time: t0.Add(time.Hour), Action: "agent.link", Result: models.AuditSuccess, UserID: "usr_3"}
			require.NoError(t, s.AppendAudit(ctx, &e))
		}

		tests := []struct {
			name    string
			f       store.AuditFilter
			wantLen int
			check   func(t *testing.T, got []models.AuditLog)
		}{
			{"all newest first", store.AuditFilter{}, 9, func(t *testing.T, got []models.AuditLog) {
				for i := 1; i < len(got); i++ {
					assert.False(t, got[i].Time.After(got[i-1].Time), "ordered")
				}
			}},
			{"by user", store.AuditFilter{UserID: "usr_2"}, 3, nil},
			{"by agent", store.AuditFilter{AgentID: "agt_1"}, 4, nil},
			{"by action", store.AuditFilter{Action: "user.login"}, 1, func(t *testing.T, got []models.AuditLog) {
				assert.Equal(t, all[6].ID, got[0].ID)
				assert.Equal(t, models.AuditFailure, got[0].Result)
				assert.True(t, got[0].Time.Equal(all[6].Time))
				assert.Equal(t, `{"n":1}`, got[0].Detail)
			}},
			{"by result", store.AuditFilter{Result: models.AuditFailure}, 1, nil},
			{"time window", store.AuditFilter{Since: t0.Add(2 * time.Second), Until: t0.Add(5 * time.Second)}, 3, func(t *testing.T, got []models.AuditLog) {
				assert.Equal(t, all[4].ID, got[0].ID)
				assert.Equal(t, all[2].ID, got[2].ID)
			}},
			{"combined", store.AuditFilter{UserID: "usr_1", AgentID: "agt_1"}, 4, nil},
			{"combined disjoint", store.AuditFilter{UserID: "usr_2", AgentID: "agt_1"}, 0, nil},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, next, err := s.ListAudit(ctx, tt.f)
				require.NoError(t, err)
				assert.Len(t, got, tt.wantLen)
				assert.Empty(t, next)
				if tt.check != nil {
					tt.check(t, got)
				}
			})
		}

		t.Run("paging visits every entry once", func(t *testing.T) {
			seen := map[string]bool{}
			cursor := ""
			pages := 0
			for {
				got, next, err := s.ListAudit(ctx, store.AuditFilter{Limit: 2, Cursor: cursor})
				require.NoError(t, err)
				pages++
				for _, e := range got {
					assert.False(t, seen[e.ID], "duplicate %s", e.ID)
					seen[e.ID] = true
				}
				if next == "" {
					break
				}
				cursor = next
			}
			assert.Len(t, seen, 9)
			assert.Equal(t, 5, pages)
		})

		t.Run("bad cursor", func(t *testing.T) {
			_, _, err := s.ListAudit(ctx, store.AuditFilter{Cursor: "!!"})
			assert.Equal(t, errs.Invalid, errs.KindOf(err))
		})

		t.Run("append-only", func(t *testing.T) {
			err := s.DB().WithContext(ctx).Model(&models.AuditLog{}).Where("id = ?", all[0].ID).Update("result", "tampered").Error
			assert.Error(t, err, "update refused")
			err = s.DB().WithContext(ctx).Where("id = ?", all[0].ID).Delete(&models.AuditLog{}).Error
			assert.Error(t, err, "delete refused")
			got, _, err := s.ListAudit(ctx, store.AuditFilter{Action: "order.place", UserID: "usr_1", Limit: 10})
			require.NoError(t, err)
			assert.Len(t, got, 3)
		})

		t.Run("invalid entry", func(t *testing.T) {
			assert.Equal(t, errs.Invalid, errs.KindOf(s.AppendAudit(ctx, &models.AuditLog{Action: "x"})))
		})
	})
}

func TestIdempotency(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		rec := func(agent, key string, created time.Time, ttl time.Duration) *models.IdempotencyRecord {
			return &models.IdempotencyRecord{
				AgentID: agent, Key: key, RequestHash: "req-" + key, ResponseStatus: 201,
				ResponseBody: []byte(`{"ok":true}`), CreatedAt: created, ExpiresAt: created.Add(ttl),
			}
		}
		require.NoError(t, s.PutIdempotency(ctx, rec("agt_1", "k1", t0, time.Hour)))
		require.NoError(t, s.PutIdempotency(ctx, rec("agt_2", "k1", t0, time.Hour)), "same key, other agent")
		require.NoError(t, s.PutIdempotency(ctx, rec("agt_1", "k2", t0, time.Minute)))

		tests := []struct {
			name    string
			agent   string
			key     string
			now     time.Time
			wantErr errs.Kind
		}{
			{"live", "agt_1", "k1", t0.Add(time.Minute), 0},
			{"other agent", "agt_2", "k1", t0, 0},
			{"expired", "agt_1", "k2", t0.Add(2 * time.Minute), errs.NotFound},
			{"unknown key", "agt_1", "nope", t0, errs.NotFound},
			{"unknown agent", "agt_3", "k1", t0, errs.NotFound},
		}
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				got, err := s.GetIdempotency(ctx, tt.agent, tt.key, tt.now)
				if tt.wantErr != 0 {
					assert.Equal(t, tt.wantErr, errs.KindOf(err), "err: %v", err)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, "req-"+tt.key, got.RequestHash)
				assert.Equal(t, 201, got.ResponseStatus)
				assert.Equal(t, []byte(`{"ok":true}`), got.ResponseBody)
				assert.True(t, got.ExpiresAt.Equal(t0.Add(time.Hour)))
			})
		}

		err := s.PutIdempotency(ctx, rec("agt_1", "k1", t0.Add(time.Second), time.Hour))
		assert.Equal(t, errs.Conflict, errs.KindOf(err), "live duplicate: %v", err)

		// An expired key can be reused without waiting for the purge.
		require.NoError(t, s.PutIdempotency(ctx, rec("agt_1", "k2", t0.Add(2*time.Minute), time.Hour)))
		_, err = s.GetIdempotency(ctx, "agt_1", "k2", t0.Add(3*time.Minute))
		require.NoError(t, err)

		assert.Equal(t, errs.Invalid, errs.KindOf(s.PutIdempotency(ctx, rec("", "k", t0, time.Hour))))
		assert.Equal(t, errs.Invalid, errs.KindOf(s.PutIdempotency(ctx, rec("agt_1", "k9", t0, 0))))

		// agt_1/k1 and agt_2/k1 expire at t0+60m, the reused k2 at t0+62m.
		n, err := s.PurgeExpiredIdempotency(ctx, t0.Add(61*time.Minute))
		require.NoError(t, err)
		assert.Equal(t, int64(2), n)
		n, err = s.PurgeExpiredIdempotency(ctx, t0.Add(61*time.Minute))
		require.NoError(t, err)
		assert.Zero(t, n)
		_, err = s.GetIdempotency(ctx, "agt_1", "k2", t0.Add(3*time.Minute))
		require.NoError(t, err, "unexpired record survives the purge")
	})
}

func TestDeviceLinks(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		mk := func(code string, expires time.Time) *models.DeviceLink {
			l := &models.DeviceLink{DeviceCodeHash: "hash-" + code, UserCode: code, AgentName: "bot " + code, ExpiresAt: expires, IntervalSeconds: 5}
			require.NoError(t, s.CreateDeviceLink(ctx, l))
			return l
		}
		a := mk("AAAA-1111", t0.Add(10*time.Minute))
		b := mk("BBBB-2222", t0.Add(time.Minute))
		c := mk("CCCC-3333", t0.Add(time.Minute))
		assert.True(t, models.HasPrefix(a.ID, models.PrefixDeviceLink))
		assert.Equal(t, models.DeviceLinkPending, a.Status)

		t.Run("lookups", func(t *testing.T) {
			tests := []struct {
				name    string
				get     func() (*models.DeviceLink, error)
				wantID  string
				wantErr errs.Kind
			}{
				{"user code", func() (*models.DeviceLink, error) { return s.DeviceLinkByUserCode(ctx, "AAAA-1111") }, a.ID, 0},
				{"device code hash", func() (*models.DeviceLink, error) { return s.DeviceLinkByDeviceCodeHash(ctx, "hash-BBBB-2222") }, b.ID, 0},
				{"id", func() (*models.DeviceLink, error) { return s.DeviceLinkByID(ctx, c.ID) }, c.ID, 0},
				{"unknown user code", func() (*models.DeviceLink, error) { return s.DeviceLinkByUserCode(ctx, "ZZZZ-0000") }, "", errs.NotFound},
				{"unknown hash", func() (*models.DeviceLink, error) { return s.DeviceLinkByDeviceCodeHash(ctx, "nope") }, "", errs.NotFound},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					got, err := tt.get()
					if tt.wantErr != 0 {
						assert.Equal(t, tt.wantErr, errs.KindOf(err))
						return
					}
					require.NoError(t, err)
					assert.Equal(t, tt.wantID, got.ID)
					assert.Equal(t, 5, got.IntervalSeconds)
				})
			}
		})

		t.Run("duplicate codes conflict", func(t *testing.T) {
			err := s.CreateDeviceLink(ctx, &models.DeviceLink{DeviceCodeHash: "fresh", UserCode: "AAAA-1111", ExpiresAt: t0})
			assert.Equal(t, errs.Conflict, errs.KindOf(err))
			err = s.CreateDeviceLink(ctx, &models.DeviceLink{DeviceCodeHash: "hash-AAAA-1111", UserCode: "FRESH", ExpiresAt: t0})
			assert.Equal(t, errs.Conflict, errs.KindOf(err))
			err = s.CreateDeviceLink(ctx, &models.DeviceLink{UserCode: "X"})
			assert.Equal(t, errs.Invalid, errs.KindOf(err))
		})

		t.Run("transitions", func(t *testing.T) {
			user, agent := "usr_1", "agt_1"
			tests := []struct {
				name    string
				id      string
				from    string
				upd     store.DeviceLinkUpdate
				wantErr errs.Kind
			}{
				{"approve", a.ID, models.DeviceLinkPending, store.DeviceLinkUpdate{Status: models.DeviceLinkApproved, UserID: &user}, 0},
				{"approve again loses", a.ID, models.DeviceLinkPending, store.DeviceLinkUpdate{Status: models.DeviceLinkApproved, UserID: &user}, errs.Conflict},
				{"issue", a.ID, models.DeviceLinkApproved, store.DeviceLinkUpdate{Status: models.DeviceLinkIssued, AgentID: &agent}, 0},
				{"deny", c.ID, models.DeviceLinkPending, store.DeviceLinkUpdate{Status: models.DeviceLinkDenied, UserID: &user}, 0},
				{"missing", "dl_nope", models.DeviceLinkPending, store.DeviceLinkUpdate{Status: models.DeviceLinkDenied}, errs.NotFound},
				{"no status", b.ID, models.DeviceLinkPending, store.DeviceLinkUpdate{}, errs.Invalid},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					err := s.UpdateDeviceLinkStatus(ctx, tt.id, tt.from, tt.upd)
					if tt.wantErr != 0 {
						assert.Equal(t, tt.wantErr, errs.KindOf(err), "err: %v", err)
						return
					}
					require.NoError(t, err)
					got, err := s.DeviceLinkByID(ctx, tt.id)
					require.NoError(t, err)
					assert.Equal(t, tt.upd.Status, got.Status)
				})
			}
			got, err := s.DeviceLinkByID(ctx, a.ID)
			require.NoError(t, err)
			require.NotNil(t, got.UserID)
			require.NotNil(t, got.AgentID)
			assert.Equal(t, user, *got.UserID)
			assert.Equal(t, agent, *got.AgentID)
		})

		t.Run("poll", func(t *testing.T) {
			prev, err := s.TouchDeviceLinkPoll(ctx, b.ID, t0)
			require.NoError(t, err)
			assert.Nil(t, prev)
			prev, err = s.TouchDeviceLinkPoll(ctx, b.ID, t0.Add(5*time.Second))
			require.NoError(t, err)
			require.NotNil(t, prev)
			assert.True(t, prev.Equal(t0), "got %v", prev)
			_, err = s.TouchDeviceLinkPoll(ctx, "dl_nope", t0)
			assert.Equal(t, errs.NotFound, errs.KindOf(err))
		})

		t.Run("expire", func(t *testing.T) {
			// b (pending) expired at t0+1m; a is issued and c denied, so
			// they are final whatever their expiry.
			n, err := s.ExpireDeviceLinks(ctx, t0.Add(time.Hour))
			require.NoError(t, err)
			assert.Equal(t, int64(1), n)
			got, err := s.DeviceLinkByID(ctx, b.ID)
			require.NoError(t, err)
			assert.Equal(t, models.DeviceLinkExpired, got.Status)
			for id, want := range map[string]string{a.ID: models.DeviceLinkIssued, c.ID: models.DeviceLinkDenied} {
				got, err := s.DeviceLinkByID(ctx, id)
				require.NoError(t, err)
				assert.Equal(t, want, got.Status)
			}
			d := mk("DDDD-4444", t0.Add(2*time.Hour))
			n, err = s.ExpireDeviceLinks(ctx, t0.Add(time.Hour))
			require.NoError(t, err)
			assert.Zero(t, n, "an unexpired link stays pending")
			got, err = s.DeviceLinkByID(ctx, d.ID)
			require.NoError(t, err)
			assert.Equal(t, models.DeviceLinkPending, got.Status)
		})
	})
}

func TestAgentsAndKeys(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustUser(t, s, "alice@example.com")
		bob := mustUser(t, s, "bob@example.com")

		limit := int64(50 * models.MicroPerUnit)
		a1 := &models.Agent{UserID: alice.ID, Name: "first", Scopes: "read trade", BudgetLimitMicro: &limit}
		k1 := &models.APIKey{Hash: "hash-1", DisplayPrefix: "ll_AAAA…"}
		require.NoError(t, s.CreateAgentWithKey(ctx, a1, k1))
		assert.True(t, models.HasPrefix(a1.ID, models.PrefixAgent))
		assert.True(t, models.HasPrefix(k1.ID, models.PrefixAPIKey))
		assert.Equal(t, models.AgentActive, a1.Status)
		assert.Equal(t, models.DefaultRateLimitPerMinute, a1.RateLimitPerMinute)
		assert.Equal(t, a1.ID, k1.AgentID)
		assert.Equal(t, alice.ID, k1.UserID)

		a2 := &models.Agent{UserID: alice.ID, Name: "second"}
		require.NoError(t, s.CreateAgentWithKey(ctx, a2, &models.APIKey{Hash: "hash-2", DisplayPrefix: "ll_BBBB…"}))
		a3 := &models.Agent{UserID: bob.ID, Name: "bobs"}
		require.NoError(t, s.CreateAgentWithKey(ctx, a3, &models.APIKey{Hash: "hash-3", DisplayPrefix: "ll_CCCC…"}))

		t.Run("duplicate key hash stores nothing", func(t *testing.T) {
			dup := &models.Agent{UserID: bob.ID, Name: "dup"}
			err := s.CreateAgentWithKey(ctx, dup, &models.APIKey{Hash: "hash-1"})
			assert.Equal(t, errs.Conflict, errs.KindOf(err))
			_, err = s.AgentByID(ctx, dup.ID)
			assert.Equal(t, errs.NotFound, errs.KindOf(err), "agent insert rolled back")
		})

		t.Run("invalid", func(t *testing.T) {
			assert.Equal(t, errs.Invalid, errs.KindOf(s.CreateAgentWithKey(ctx, &models.Agent{UserID: bob.ID}, &models.APIKey{Hash: "h"})))
			assert.Equal(t, errs.Invalid, errs.KindOf(s.CreateAgentWithKey(ctx, &models.Agent{UserID: bob.ID, Name: "n"}, &models.APIKey{})))
		})

		t.Run("key by hash", func(t *testing.T) {
			k, a, err := s.AgentKeyByHash(ctx, "hash-1")
			require.NoError(t, err)
			assert.Equal(t, k1.ID, k.ID)
			assert.Equal(t, a1.ID, a.ID)
			assert.Equal(t, "read trade", a.Scopes)
			assert.True(t, a.HasScope("trade"))
			require.NotNil(t, a.BudgetLimitMicro)
			assert.Equal(t, limit, *a.BudgetLimitMicro)
			assert.Nil(t, a.BudgetPercentBps)
			_, _, err = s.AgentKeyByHash(ctx, "unknown")
			assert.Equal(t, errs.NotFound, errs.KindOf(err))
		})

		t.Run("touch key", func(t *testing.T) {
			require.NoError(t, s.TouchAPIKey(ctx, k1.ID, t0.Add(time.Minute)))
			require.NoError(t, s.TouchAPIKey(ctx, k1.ID, t0), "an older time does not move it back")
			k, _, err := s.AgentKeyByHash(ctx, "hash-1")
			require.NoError(t, err)
			require.NotNil(t, k.LastUsedAt)
			assert.True(t, k.LastUsedAt.Equal(t0.Add(time.Minute)), "got %v", k.LastUsedAt)
		})

		// Concurrent touches (on PostgreSQL written in shared statements)
		// leave the latest time, whatever order they commit in.
		t.Run("touch key concurrently", func(t *testing.T) {
			var wg sync.WaitGroup
			errc := make(chan error, 8*25)
			for g := range 8 {
				wg.Add(1)
				go func() {
					defer wg.Done()
					for i := range 25 {
						errc <- s.TouchAPIKey(ctx, k1.ID, t0.Add(time.Duration(2+(g*25+i)*7%200)*time.Minute))
					}
				}()
			}
			wg.Wait()
			close(errc)
			for err := range errc {
				require.NoError(t, err)
			}
			k, _, err := s.AgentKeyByHash(ctx, "hash-1")
			require.NoError(t, err)
			require.NotNil(t, k.LastUsedAt)
			assert.True(t, k.LastUsedAt.Equal(t0.Add(201*time.Minute)), "got %v", k.LastUsedAt)
		})

		t.Run("list by user", func(t *testing.T) {
			got, err := s.ListAgentsByUser(ctx, alice.ID)
			require.NoError(t, err)
			require.Len(t, got, 2)
			ids := []string{got[0].ID, got[1].ID}
			assert.ElementsMatch(t, []string{a1.ID, a2.ID}, ids)
			got, err = s.ListAgentsByUser(ctx, "usr_none")
			require.NoError(t, err)
			assert.Empty(t, got)
		})

		t.Run("status", func(t *testing.T) {
			tests := []struct {
				name    string
				user    string
				agent   string
				status  string
				wantErr errs.Kind
			}{
				{"pause", alice.ID, a1.ID, models.AgentPaused, 0},
				{"resume", alice.ID, a1.ID, models.AgentActive, 0},
				{"someone else's agent", bob.ID, a1.ID, models.AgentPaused, errs.NotFound},
				{"unknown status", alice.ID, a1.ID, "sleeping", errs.Invalid},
				{"revoke", alice.ID, a1.ID, models.AgentRevoked, 0},
				{"revoke twice is a no-op", alice.ID, a1.ID, models.AgentRevoked, 0},
				{"revoked is final", alice.ID, a1.ID, models.AgentActive, errs.Conflict},
				{"missing", alice.ID, "agt_nope", models.AgentPaused, errs.NotFound},
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					err := s.UpdateAgentStatus(ctx, tt.user, tt.agent, tt.status)
					if tt.wantErr != 0 {
						assert.Equal(t, tt.wantErr, errs.KindOf(err), "err: %v", err)
						return
					}
					require.NoError(t, err)
					a, err := s.AgentForUser(ctx, tt.user, tt.agent)
					require.NoError(t, err)
					assert.Equal(t, tt.status, a.Status)
				})
			}
			k, a, err := s.AgentKeyByHash(ctx, "hash-1")
			require.NoError(t, err)
			assert.NotNil(t, k.RevokedAt, "revoking the agent revokes its keys")
			assert.NotNil(t, a.RevokedAt)
			k2, _, err := s.AgentKeyByHash(ctx, "hash-2")
			require.NoError(t, err)
			assert.Nil(t, k2.RevokedAt, "other agents' keys untouched")
		})
	})
}

func TestWallets(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		alice := mustUser(t, s, "alice@example.com")
		bob := mustUser(t, s, "bob@example.com")
		wallet := func(user, id, addr string) *models.Wallet {
			return &models.Wallet{
				ID: id, UserID: user, Kind: models.WalletProxy, EOAAddress: addr, FunderAddress: addr + "f",
				SignatureType: 1, KeyCiphertext: []byte{1, 2, 3}, KeyNonce: []byte{4, 5}, KeyVersion: 1,
				APICredsCiphertext: []byte{9}, APICredsNonce: []byte{8}, APICredsKeyVersion: 1,
			}
		}

		_, err := s.WalletByUser(ctx, alice.ID)
		assert.Equal(t, errs.NotFound, errs.KindOf(err))

		w1 := wallet(alice.ID, models.NewID(models.PrefixWallet), "0xA1")
		require.NoError(t, s.UpsertWallet(ctx, w1))
		got, err := s.WalletByUser(ctx, alice.ID)
		require.NoError(t, err)
		assert.Equal(t, w1.ID, got.ID)
		assert.Equal(t, []byte{1, 2, 3}, got.KeyCiphertext)
		assert.Equal(t, 1, got.SignatureType)
		created := got.CreatedAt

		// Same ID: updated in place, zero values written, created_at kept.
		s.SetClock(func() time.Time { return created.Add(time.Hour) })
		upd := wallet(alice.ID, w1.ID, "0xA2")
		upd.APICredsCiphertext, upd.APICredsNonce, upd.APICredsKeyVersion = nil, nil, 0
		require.NoError(t, s.UpsertWallet(ctx, upd))
		got, err = s.WalletByUser(ctx, alice.ID)
		require.NoError(t, err)
		assert.Equal(t, "0xA2", got.EOAAddress)
		assert.Empty(t, got.APICredsCiphertext)
		assert.Zero(t, got.APICredsKeyVersion)
		assert.True(t, got.CreatedAt.Equal(created), "created_at kept")
		assert.True(t, got.UpdatedAt.Equal(created.Add(time.Hour)), "updated_at moved")

		// New ID: replaces the old wallet.
		w2 := wallet(alice.ID, models.NewID(models.PrefixWallet), "0xA3")
		require.NoError(t, s.UpsertWallet(ctx, w2))
		got, err = s.WalletByUser(ctx, alice.ID)
		require.NoError(t, err)
		assert.Equal(t, w2.ID, got.ID)
		var count int64
		require.NoError(t, s.DB().Model(&models.Wallet{}).Where("user_id = ?", alice.ID).Count(&count).Error)
		assert.Equal(t, int64(1), count)

		bw := wallet(bob.ID, models.NewID(models.PrefixWallet), "0xB1")
		require.NoError(t, s.UpsertWallet(ctx, bw))

		tests := []struct {
			name    string
			user    string
			id      string
			wantErr errs.Kind
		}{
			{"someone else's", bob.ID, w2.ID, errs.NotFound},
			{"missing", alice.ID, "wal_nope", errs.NotFound},
			{"own", alice.ID, w2.ID, 0},
			{"again", alice.ID, w2.ID, errs.NotFound},
		}
		for _, tt := range tests {
			t.Run("delete "+tt.name, func(t *testing.T) {
				err := s.DeleteWallet(ctx, tt.user, tt.id)
				if tt.wantErr != 0 {
					assert.Equal(t, tt.wantErr, errs.KindOf(err))
					return
				}
				require.NoError(t, err)
			})
		}
		_, err = s.WalletByUser(ctx, bob.ID)
		require.NoError(t, err, "bob's wallet untouched")

		invalid := wallet(alice.ID, "", "0x")
		assert.Equal(t, errs.Invalid, errs.KindOf(s.UpsertWallet(ctx, invalid)))
		invalid = wallet(alice.ID, "wal_x", "0x")
		invalid.KeyCiphertext = nil
		assert.Equal(t, errs.Invalid, errs.KindOf(s.UpsertWallet(ctx, invalid)))
		// A wallet for a user that does not exist violates the foreign key.
		assert.Error(t, s.UpsertWallet(ctx, wallet("usr_ghost", "wal_ghost", "0x")))
	})
}
