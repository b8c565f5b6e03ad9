package activities_test

import (
	"testing"
	"time"

	"go.temporal.io/sdk/testsuite"

	"github.com/agent-trading/ats/activities"
	"github.com/agent-trading/ats/activities/activitiestest"
)

// The housekeeping instant comes through Temporal: a forged far-future
// "now" must not purge live idempotency records or expire live links.
func TestHousekeepingNeverRunsAhead(t *testing.T) {
	store := activitiestest.NewMemHousekeeper()
	store.PutIdempotency("live", time.Now().Add(time.Hour))
	store.PutDeviceLink("dl_live", time.Now().Add(time.Hour))
	var suite testsuite.WorkflowTestSuite
	env := suite.NewTestActivityEnvironment()
	env.RegisterActivity(&activities.Housekeeping{Store: store})
	var hk *activities.Housekeeping
	future := time.Now().Add(365 * 24 * time.Hour)
	if _, err := env.ExecuteActivity(hk.PurgeExpiredIdempotency, future); err != nil {
		t.Fatal(err)
	}
	if _, err := env.ExecuteActivity(hk.ExpireDeviceLinks, future); err != nil {
		t.Fatal(err)
	}
	if !store.HasIdempotency("live") || store.DeviceLinkExpired("dl_live") {
		t.Fatal("a forged future instant removed live records")
	}
	for _, c := range store.Calls() {
		if c.Now.After(time.Now()) {
			t.Fatalf("%s ran at %s, ahead of the clock", c.Op, c.Now)
		}
	}
}
