package sessions_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/models/audit"
	"github.com/agent-trading/ats/models/errs"
	"github.com/agent-trading/ats/models/sessions"
	"github.com/agent-trading/ats/models/store"
	"github.com/agent-trading/ats/models/store/storetest"
)

type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func TestSessionLifecycle(t *testing.T) {
	storetest.EachDB(t, func(t *testing.T, st *store.Store) {
		ctx := context.Background()
		clk := &clock{t: time.Now().UTC()}
		st.SetClock(clk.now)
		svc := &sessions.Service{Store: st, Audit: &audit.Service{Store: st}, Now: clk.now}

		anon, anonToken, err := svc.Start(ctx, "203.0.113.1", "test")
		require.NoError(t, err)
		assert.False(t, anon.SignedIn())
		anon.State.Flash = "hello"
		anon.State.PendingUserID = "usr_x"
		require.NoError(t, svc.Save(ctx, anon))

		in, token, err := svc.SignIn(ctx, anon, "usr_a", sessions.MethodPassword, false, "203.0.113.1", "test")
		require.NoError(t, err)
		assert.NotEqual(t, anonToken, token, "a new token")
		assert.NotEqual(t, anon.ID, in.ID)
		assert.NotEqual(t, anon.CSRFToken, in.CSRFToken, "and a new CSRF token")
		assert.Equal(t, "hello", in.State.Flash, "only the flash carries over")
		assert.Empty(t, in.State.PendingUserID)
		_, err = svc.Lookup(ctx, anonToken)
		assert.Equal(t, errs.NotFound, errs.KindOf(err), "the old session is gone")
		got, err := svc.Lookup(ctx, token)
		require.NoError(t, err)
		assert.Equal(t, "usr_a", got.UserID)
		assert.False(t, svc.Fresh(got), "a password alone is no fresh second factor")
		require.NoError(t, svc.MarkSecondFactor(ctx, got))
		assert.True(t, svc.Fresh(got))
		clk.add(sessions.DefaultFreshFor)
		assert.False(t, svc.Fresh(got), "second factors go stale")

		for _, bad := range []string{"", "short", token + "x"} {
			_, err := svc.Lookup(ctx, bad)
			assert.Equal(t, errs.NotFound, errs.KindOf(err), bad)
		}

		// Activity extends the idle expiry, never beyond the absolute one.
		step := sessions.DefaultIdleTTL - time.Hour
		for i := 0; i < 30; i++ {
			clk.add(step)
			if _, err := svc.Lookup(ctx, token); err != nil {
				age := clk.now().Sub(in.CreatedAt)
				assert.GreaterOrEqual(t, age, sessions.DefaultAbsoluteTTL, "expired before the absolute lifetime")
				assert.Less(t, age, sessions.DefaultAbsoluteTTL+step)
				return
			}
		}
		t.Fatal("the session outlived its absolute lifetime")
	})
}

func TestIdleExpiryAndRevocation(t *testing.T) {
	st := storetest.NewSQLite(t)
	ctx := context.Background()
	clk := &clock{t: time.Now().UTC()}
	st.SetClock(clk.now)
	svc := &sessions.Service{Store: st, Audit: &audit.Service{Store: st}, Now: clk.now}
	a, ta, err := svc.SignIn(ctx, nil, "usr_a", sessions.MethodPasskey, true, "", "")
	require.NoError(t, err)
	assert.True(t, svc.Fresh(a), "a passkey sign-in counts as a second factor")
	_, tb, err := svc.SignIn(ctx, nil, "usr_a", sessions.MethodPassword, false, "", "")
	require.NoError(t, err)

	list, err := svc.List(ctx, "usr_a", a.ID)
	require.NoError(t, err)
	require.Len(t, list, 2)
	var other string
	for _, i := range list {
		if !i.Current {
			other = i.ID
		}
	}
	assert.Equal(t, errs.NotFound, errs.KindOf(svc.Revoke(ctx, "usr_b", other, "")), "only the owner revokes")
	require.NoError(t, svc.Revoke(ctx, "usr_a", other, ""))
	_, err = svc.Lookup(ctx, tb)
	assert.Equal(t, errs.NotFound, errs.KindOf(err))

	clk.add(sessions.DefaultIdleTTL + time.Minute)
	_, err = svc.Lookup(ctx, ta)
	assert.Equal(t, errs.NotFound, errs.KindOf(err), "idle too long")
}
