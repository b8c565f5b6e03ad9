package skill_test

import (
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agent-trading/ats/api"
	"github.com/agent-trading/ats/api/skill"
	"github.com/agent-trading/ats/models/errs"
)

// versions holds the SHA-256 of skill.md for each released version. A
// change to skill.md must come with a new Version and its digest here, so
// agents polling latest_skill_version learn of it; an old entry is never
// edited.
var versions = map[int]string{
	1: "fc08fe09fd1289f9ab50a175d9617f36db423e628352a4f48dffbb46907843a3",
	2: "e6fc484fd523c547998011ce1d333131b9494da8778f47bde9e398e11e7bb4a4",
	3: "ddb89a16cfe08aad4541ab4e63877d17bf7343f28484b345e387e19e2d4d78f8",
	4: "08473b989f584b2401d732da4027ee5ecac9f95f93c1b40b26d51280ad12f0fa",
	5: "77f78bc3b4923850f97bcb4e9a473c7e42617dc346ee6e08ceb9d44b75fcc908",
	6: "57081bc6cdd68b875fca05b1ead474f5079319c5c2b165078e95bd5f3db6afbc",
}

func TestVersionMatchesContent(t *testing.T) {
	sum := sha256.Sum256(skill.Text())
	got := hex.EncodeToString(sum[:])
	want, ok := versions[skill.Version]
	require.True(t, ok, "skill.Version %d has no digest in versions: add %s", skill.Version, got)
	require.Equal(t, want, got, "skill.md changed without a version bump: raise skill.Version and add its digest")
	for v := range versions {
		assert.LessOrEqual(t, v, skill.Version, "a digest for a version newer than skill.Version")
	}
	assert.Contains(t, string(skill.Text()), "version: "+strconv.Itoa(skill.Version)+"\n", "front matter names the version")
	assert.Contains(t, string(skill.Text()), "This is skill **version "+strconv.Itoa(skill.Version)+"**")
}

// TestErrorCodesExist: every code the skill's error table names is in the
// catalogue, so the skill never teaches a code the service does not send.
func TestErrorCodesExist(t *testing.T) {
	text := string(skill.Text())
	i := strings.Index(text, "## 7. Errors")
	require.GreaterOrEqual(t, i, 0)
	row := regexp.MustCompile("(?m)^\\| ([^|]+) \\|")
	code := regexp.MustCompile("`([a-z_]+)`")
	n := 0
	for _, m := range row.FindAllStringSubmatch(text[i:], -1) {
		for _, c := range code.FindAllStringSubmatch(m[1], -1) {
			_, ok := errs.Lookup(c[1])
			assert.True(t, ok, "the skill names error code %q, which is not in the catalogue", c[1])
			n++
		}
	}
	assert.Greater(t, n, 10)
}

func TestServed(t *testing.T) {
	srv := api.New(api.Config{Registry: prometheus.NewRegistry()}, api.Deps{Routes: []api.Routes{skill.Routes("https://ats.example/")}})
	rec := httptest.NewRecorder()
	srv.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/skill.md", nil))
	require.Equal(t, http.StatusOK, rec.Code)
	assert.Equal(t, "text/markdown; charset=utf-8", rec.Header().Get("Content-Type"))
	assert.Equal(t, strconv.Itoa(skill.Version), rec.Header().Get("X-Skill-Version"))
	body := rec.Body.String()
	assert.NotContains(t, body, "{base_url}")
	assert.Contains(t, body, "POST https://ats.example/api/auth/device")
}
