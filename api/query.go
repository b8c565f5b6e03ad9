package api

import (
	"strconv"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/agent-trading/ats/models/errs"
)

// QueryInt reads an optional integer query parameter: def when absent, an
// errs.Invalid error naming the parameter and its range when it is not an
// integer within [lo, hi]. Spec limits such as "limit: default 50, max 100"
// are one call: api.QueryInt(c, "limit", 50, 1, 100).
func QueryInt(c *gin.Context, name string, def, lo, hi int) (int, error) {
	raw, ok := c.GetQuery(name)
	if !ok || strings.TrimSpace(raw) == "" {
		return def, nil
	}
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	if err != nil || n < lo || n > hi {
		return 0, errs.Ef(errs.Invalid, "query parameter %q must be an integer between %d and %d", name, lo, hi).
			WithCode(errs.CodeInvalidQuery)
	}
	return n, nil
}

// QueryBool reads an optional boolean query parameter ("true"/"false",
// "1"/"0", any case): def when absent, an errs.Invalid error otherwise.
func QueryBool(c *gin.Context, name string, def bool) (bool, error) {
	raw, ok := c.GetQuery(name)
	if !ok || strings.TrimSpace(raw) == "" {
		return def, nil
	}
	b, err := strconv.ParseBool(strings.ToLower(strings.TrimSpace(raw)))
	if err != nil {
		return false, errs.Ef(errs.Invalid, "query parameter %q must be true or false", name).WithCode(errs.CodeInvalidQuery)
	}
	return b, nil
}
