// Package skill serves the agent skill, {base_url}/skill.md: the document
// that teaches an AI agent to use the service (linking, the heartbeat
// loop, trading, strategies, errors and the rules). Its integer Version is
// the heartbeat's latest_skill_version; TestVersionMatchesContent fails
// when the text changes without a new version (and its digest) in
// versions.
package skill

import (
	"bytes"
	_ "embed"
	"net/http"
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/api"
)

// Version is the skill's version. Bump it (and add the new digest to
// versions in skill_test.go) whenever skill.md changes.
const Version = 3

// Path is where the skill is served.
const Path = "/skill.md"

//go:embed skill.md
var text []byte

// Text returns the skill document.
func Text() []byte { return append([]byte(nil), text...) }

// Routes serves the skill: public (no key), text/markdown, cacheable for
// an hour; the version is also in the X-Skill-Version header. baseURL,
// when set, replaces the text's "{base_url}" placeholders, so an agent can
// use the examples as they are.
func Routes(baseURL string) api.Routes {
	body := text
	if baseURL = strings.TrimRight(baseURL, "/"); baseURL != "" {
		body = bytes.ReplaceAll(text, []byte("{base_url}"), []byte(baseURL))
	}
	return func(s *api.Server) {
		s.Engine().GET(Path, func(c *gin.Context) {
			c.Header("Cache-Control", "public, max-age=3600")
			c.Header("X-Skill-Version", strconv.Itoa(Version))
			c.Data(http.StatusOK, "text/markdown; charset=utf-8", body)
		})
	}
}
