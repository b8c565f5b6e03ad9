package redistest

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestStartServesAndStops(t *testing.T) {
	s := Start(t)
	require.NoError(t, ping(s.Addr))
	assert.Equal(t, "redis://"+s.Addr+"/0", s.URL)

	other := Start(t)
	assert.NotEqual(t, s.Addr, other.Addr, "each call gets its own server")

	s.Stop()
	assert.Error(t, ping(s.Addr), "stopped server still answers")
	s.Stop() // idempotent
	assert.NoError(t, ping(other.Addr), "stopping one server must not affect another")
}

// recordingTB captures Skip and Fatal instead of ending the test.
type recordingTB struct {
	testing.TB
	skipped, failed string
}

func (r *recordingTB) Helper()           {}
func (r *recordingTB) Skip(args ...any)  { r.skipped = fmt.Sprint(args...) }
func (r *recordingTB) Fatal(args ...any) { r.failed = fmt.Sprint(args...) }

func TestMissingBinary(t *testing.T) {
	tests := []struct {
		ci         string
		wantSkip   bool
		wantFailed bool
	}{
		{ci: "", wantSkip: true},
		{ci: "true", wantFailed: true},
		{ci: "1", wantFailed: true},
	}
	for _, tc := range tests {
		t.Run("CI="+tc.ci, func(t *testing.T) {
			t.Setenv("CI", tc.ci)
			rec := &recordingTB{TB: t}
			missingBinary(rec)
			assert.Equal(t, tc.wantSkip, rec.skipped != "", "skipped: %q", rec.skipped)
			assert.Equal(t, tc.wantFailed, rec.failed != "", "failed: %q", rec.failed)
			assert.Contains(t, rec.skipped+rec.failed, "apt-get install -y redis-server")
		})
	}
}
